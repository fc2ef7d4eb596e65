package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
)

// Event names.
const (
	Dispatch = "dispatch"
	Result   = "result"
)

// Purpose of a dispatch.
const (
	PurposeRobots   = "robots"
	PurposeDocument = "document"
	PurposeRedirect = "redirect"
)

// MaxLine is the longest line Append writes and Read accepts, newline
// included. Append refuses longer lines so that it never writes one that a
// later read could not parse.
const MaxLine = 1 << 20

// Line is one ledger record. Dispatch lines carry Time, Host, URL, Purpose,
// Source; result lines add Status, Bytes, SHA256, DurationMS, Error.
type Line struct {
	Event   string    `json:"event"`
	Time    time.Time `json:"time"`
	Host    string    `json:"host"`
	URL     string    `json:"url"`
	Purpose string    `json:"purpose,omitempty"`
	Source  string    `json:"source,omitempty"`
	RunID   string    `json:"run,omitempty"`
	Status  int       `json:"status,omitempty"`
	Bytes   int64     `json:"bytes,omitempty"`
	SHA256  string    `json:"sha256,omitempty"`
	// ContentType of a stored body, so that a run killed before saving the
	// index can be recovered from the ledger alone.
	ContentType string `json:"content_type,omitempty"`
	DurationMS  int64  `json:"duration_ms,omitempty"`
	Error       string `json:"error,omitempty"`
	// NotDocument says, for an answer that stood in for the document (a
	// bot challenge, a maintenance page, …), what it was: its bytes are
	// evidence, never a version, even when recovered from the ledger.
	NotDocument string `json:"not_document,omitempty"`
}

// Ledger appends to and reads the ledger files under one directory.
// It is safe for concurrent use.
type Ledger struct {
	dir string
	// root is dir, opened for writing: every ledger file is created and
	// opened through it, so none lands outside dir by a link. It lives as
	// long as the Ledger.
	root *atomicfile.Dir

	closed atomic.Bool
	mu     sync.Mutex
	files  map[string]*file // by path

	syncs atomic.Int64 // fsyncs of ledger files, for Syncs
}

// file is one ledger file open for appending. Its own mutex serialises the
// appends to it, so that one host's fsync does not hold up another host.
type file struct {
	mu    sync.Mutex
	f     *os.File // nil until the first append, and again after a failed one
	dirty bool     // written since the last fsync
	// unnamed: the file (or its day directory) was created and its name
	// is not yet durable; the next sync makes it so.
	unnamed bool
	// failed is a failed Settle's error, for Close: after a failed fsync a
	// second one may succeed with the lines lost, so it is not retried.
	failed error
}

// Open returns the ledger rooted at dir (usually <state>/ledgers), creating it.
func Open(dir string) (*Ledger, error) {
	if err := mkdirDurable(dir); err != nil {
		return nil, fmt.Errorf("ledger: create %s: %w", dir, err)
	}
	root, err := atomicfile.OpenDir(dir)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return &Ledger{dir: dir, root: root, files: map[string]*file{}}, nil
}

// Dir returns the directory the ledger was opened on.
func (l *Ledger) Dir() string { return l.dir }

// Day returns the ledger day of t: its UTC date, "YYYY-MM-DD".
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Append writes l to the file of l.Host for l.Time's UTC day with a single
// write. A dispatch line is then fsynced (with whatever was written before
// it): when Append returns nil it survives a crash, so the request it
// announces may leave. A result line is not fsynced on its own, which keeps
// an fsync off the path between a response and the next dispatch: the next
// dispatch line of that file, or Close, makes it durable. A crash may lose
// result lines, never a dispatch line, so caps count exactly.
func (l *Ledger) Append(line Line) error {
	if line.Event == "" || line.Host == "" || line.Time.IsZero() {
		return fmt.Errorf("ledger: line needs an event, a host and a time: %+v", line)
	}
	// The file is per UTC day: storing the time in UTC too keeps every line
	// readable against the day it is filed under.
	line.Time = line.Time.UTC()
	b, err := json.Marshal(line)
	if err != nil {
		return fmt.Errorf("ledger: encode line for %s: %w", line.Host, err)
	}
	b = append(b, '\n')
	if len(b) > MaxLine {
		return fmt.Errorf("ledger: line for %s is %d bytes, over the %d limit", line.Host, len(b), MaxLine)
	}

	day := Day(line.Time)
	path := filepath.Join(l.dir, day, FileName(line.Host))
	lf := l.file(path)

	lf.mu.Lock()
	defer lf.mu.Unlock()
	// Checked under the file's lock: Close takes it after setting closed, so
	// no file can be (re)opened behind Close's back.
	if l.closed.Load() {
		return fmt.Errorf("ledger: append to %s after Close", path)
	}
	if lf.f == nil {
		f, created, err := l.open(day, path)
		if err != nil {
			return err
		}
		lf.f, lf.unnamed = f, lf.unnamed || created
	}
	// One write: a crash leaves at most one torn line, at the very end,
	// where openAppend will find and cut it.
	_, err = lf.f.Write(b)
	if err == nil {
		lf.dirty = true
		if line.Event == Dispatch {
			err = l.sync(lf)
		}
	}
	if err != nil {
		// The file may now end in part of this line. Drop the handle so the
		// next append reopens the file and repairs the tail first.
		lf.f.Close()
		lf.f = nil
		return fmt.Errorf("ledger: append to %s: %w", path, err)
	}
	return nil
}

// sync makes what was written to lf durable, and its name with it when it
// is new; lf.mu must be held.
//
// A new file's name is synced after its first line, not before: the file's
// fsync commits its creation (and its day directory's) together with the
// line, so the directory syncs that follow find nothing left to write.
// Synced before it, the name would cost a commit of its own on the way to
// each host's first request.
func (l *Ledger) sync(lf *file) error {
	l.syncs.Add(1)
	if err := syncFile(lf.f); err != nil {
		return err
	}
	lf.dirty = false
	if lf.unnamed {
		day := filepath.Dir(lf.f.Name())
		if err := syncDir(day); err != nil {
			return err
		}
		if err := syncDir(filepath.Dir(day)); err != nil {
			return err
		}
		lf.unnamed = false
	}
	return nil
}

// syncDir is atomicfile.SyncDir and syncFile is (*os.File).Sync; tests
// replace them to see when, and to make them fail.
var (
	syncDir  = atomicfile.SyncDir
	syncFile = (*os.File).Sync
)

// Syncs returns how many times ledger files were fsynced by Append, Settle
// and Close (directory syncs aside): the durability cost of the ledger.
func (l *Ledger) Syncs() int64 { return l.syncs.Load() }

// open opens path for appending, creating its day directory and the file,
// or repairing a torn tail left by a crash. When it reports created, the
// file's name is not yet durable (nor, perhaps, its day directory's): the
// caller's sync makes it so.
func (l *Ledger) open(day, path string) (_ *os.File, created bool, _ error) {
	name, err := filepath.Rel(l.dir, path)
	if err != nil {
		return nil, false, fmt.Errorf("ledger: %w", err)
	}
	if err := l.root.Mkdir(day, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, false, fmt.Errorf("ledger: %w", err)
	}

	f, err := l.root.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, false, fmt.Errorf("ledger: %w", err)
	}
	if err := repairTail(l.root, name); err != nil {
		return nil, false, err
	}
	f, err = l.root.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("ledger: %w", err)
	}
	return f, false, nil
}

// repairTail cuts name (beneath dir) back to just after its last newline. Anything after
// it is a line whose write was torn by a crash: Append never returned for
// it, so the request it announced was never sent, and dropping it is exact.
func repairTail(dir *atomicfile.Dir, name string) error {
	path := dir.Join(name)
	f, err := dir.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("ledger: repair %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("ledger: repair %s: %w", path, err)
	}
	size := st.Size()
	keep, err := afterLastNewline(f, size)
	if err != nil {
		return fmt.Errorf("ledger: repair %s: %w", path, err)
	}
	if keep == size {
		return nil
	}
	if err := f.Truncate(keep); err != nil {
		return fmt.Errorf("ledger: repair %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("ledger: repair %s: %w", path, err)
	}
	return nil
}

// afterLastNewline returns the offset just past the last '\n' in the first
// size bytes of r, or 0 when there is none. It reads backwards in blocks,
// so a whole file is only read when it holds no newline at all.
func afterLastNewline(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := r.ReadAt(b, start); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// Dispatches counts the dispatch lines of host on day (UTC, "YYYY-MM-DD"),
// as Count does.
func (l *Ledger) Dispatches(day, host string) (int, error) {
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return 0, fmt.Errorf("ledger: day %q is not YYYY-MM-DD", day)
	}
	u, err := CountFile(filepath.Join(l.dir, day, FileName(host)), host)
	return u.Total, err
}

// Read returns every whole line of host on day, in file order. A torn last
// line is ignored (and repaired on the next Append).
func (l *Ledger) Read(day, host string) ([]Line, error) {
	var lines []Line
	err := l.scan(day, host, func(b []byte) error {
		var v Line
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		if v.Host == host {
			lines = append(lines, v)
		}
		return nil
	})
	return lines, err
}

// scan calls fn with each whole line of host's file for day. A missing file
// has no lines. Lines are filtered by their host field, not only by file,
// because FileName may map two odd host strings to one name.
func (l *Ledger) scan(day, host string, fn func([]byte) error) error {
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return fmt.Errorf("ledger: day %q is not YYYY-MM-DD", day)
	}
	return scanFile(filepath.Join(l.dir, day, FileName(host)), fn)
}

// ReadDay returns every whole line of every host on day (UTC,
// "YYYY-MM-DD") under dir, file by file in name order, each file in its
// own order. A missing day has no lines.
func ReadDay(dir, day string) ([]Line, error) {
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return nil, fmt.Errorf("ledger: day %q is not YYYY-MM-DD", day)
	}
	var lines []Line
	err := scanDay(dir, day, func(l Line) error {
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return lines, nil
}

// scanDay calls fn with each whole line of every host on day under dir,
// file by file in name order. An error of fn's own is returned as it is.
func scanDay(dir, day string, fn func(Line) error) error {
	files, err := filepath.Glob(filepath.Join(dir, day, "*.jsonl"))
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	for _, p := range files {
		var fnErr error // fn's own error is the caller's, not a corrupt line
		if err := scanFile(p, func(b []byte) error {
			var v Line
			if err := json.Unmarshal(b, &v); err != nil {
				return err
			}
			fnErr = fn(v)
			return fnErr
		}); err != nil {
			if fnErr != nil {
				return fnErr
			}
			return err
		}
	}
	return nil
}

// scanFile calls fn with each whole line of the file at path; a missing
// file has none.
func scanFile(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	defer f.Close()

	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	sc.Split(wholeLines)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(sc.Bytes()); err != nil {
			return corruptLine(path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", path, n+1, err)
	}
	return nil
}

// wholeLines is bufio.ScanLines without the final unterminated line: that
// one is torn (or still being written) and was never acknowledged.
func wholeLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	return 0, nil, nil
}

// Close makes every line written durable (result lines are not fsynced
// when written) and closes the files. Appends after Close fail.
func (l *Ledger) Close() error {
	l.closed.Store(true)
	l.mu.Lock()
	defer l.mu.Unlock()
	// The files are synced at once, not one after another: a run's end
	// waits for its ledger, and the disk can flush many files in about the
	// time of one.
	var (
		errMu sync.Mutex
		errs  []error
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}
	for path, lf := range l.files {
		wg.Go(func() {
			lf.mu.Lock()
			defer lf.mu.Unlock()
			if lf.failed != nil {
				fail(lf.failed)
			}
			if lf.f == nil {
				return
			}
			if lf.dirty && lf.failed == nil {
				if err := l.sync(lf); err != nil {
					fail(fmt.Errorf("ledger: sync %s: %w", path, err))
				}
			}
			if err := lf.f.Close(); err != nil {
				fail(fmt.Errorf("ledger: close %s: %w", path, err))
			}
			lf.f = nil
		})
	}
	wg.Wait()
	clear(l.files)
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// Settle makes the lines written for host durable now (the result lines
// since its last dispatch), so that Close has fewer files to sync: a run
// settles each host a while after its turn ends, while the other hosts
// still have requests to make, and its end waits only for the hosts that
// ended last. What is appended for host afterwards is Close's again. A
// failed fsync is kept for Close to report at the run's end, with its
// other failures, and is not tried again.
func (l *Ledger) Settle(host string) {
	name := FileName(host)
	l.mu.Lock()
	var files []*file
	for path, lf := range l.files {
		if filepath.Base(path) == name {
			files = append(files, lf)
		}
	}
	l.mu.Unlock()
	for _, lf := range files {
		lf.mu.Lock()
		if lf.f != nil && lf.dirty && lf.failed == nil && !l.closed.Load() {
			if err := l.sync(lf); err != nil {
				lf.failed = fmt.Errorf("ledger: sync %s: %w", lf.f.Name(), err)
			}
		}
		lf.mu.Unlock()
	}
}

// FileName is the file name used for host: "host:port" becomes
// "host_port.jsonl"; IPv6 brackets and colons are replaced so the name is
// portable.
//
// Exactly: every byte other than an ASCII letter, digit, '.' or '-' becomes
// '_', then ".jsonl" is added. So "www.gov.uk" → "www.gov.uk.jsonl",
// "127.0.0.1:8080" → "127.0.0.1_8080.jsonl", "[::1]:8080" →
// "___1__8080.jsonl". Hosts that differ only in such bytes ("a_b:1" and
// "a:b:1") share a file; readers filter lines by their host field, so counts
// stay right. Hosts are expected in the canonical lower case of url.URL.
func FileName(host string) string {
	b := []byte(host)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b) + ".jsonl"
}

// Days returns the day directories ("YYYY-MM-DD") under dir, oldest first.
// A missing dir has none. Other entries are ignored.
func Days(dir string) ([]string, error) {
	if dir == "" {
		return nil, nil // no ledgers named: none (os.DirFS refuses an empty root)
	}
	return daysIn(os.DirFS(dir))
}

// daysIn is Days over the root of fsys.
func daysIn(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	var days []string
	for _, e := range ents {
		if _, err := time.Parse(time.DateOnly, e.Name()); err == nil && e.IsDir() {
			days = append(days, e.Name())
		}
	}
	slices.Sort(days) // ReadDir sorts already; the contract should not lean on it.
	return days, nil
}

// mkdirDurable creates dir and, if it was new, flushes its entry in the
// parent so that ledgers written under it cannot vanish with it in a crash.
func mkdirDurable(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(filepath.Clean(dir)))
}

// file returns the one *file of path, made on first use; its own lock
// guards what is in it.
func (l *Ledger) file(path string) *file {
	l.mu.Lock()
	defer l.mu.Unlock()
	lf := l.files[path]
	if lf == nil {
		lf = &file{}
		l.files[path] = lf
	}
	return lf
}

// Path is where host's ledger of day lives, relative to a ledger directory
// (slash-separated): "2026-11-29/www.gov.uk.jsonl". The cache branch keeps
// the same layout under ledgers/.
func Path(day, host string) string { return day + "/" + FileName(host) }

// Parse returns the lines of host in the content of one ledger file, in
// file order. Only whole lines count: a torn last line was never
// acknowledged. Lines of other hosts sharing the file name are skipped. A
// whole line that does not decode is an error naming its number: a count
// built on it would not be trustworthy.
func Parse(data []byte, host string) ([]Line, error) {
	var out []Line
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line := data[:i]
		data = data[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v Line
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, fmt.Errorf("ledger of %s, line %d: %w", host, n, err)
		}
		if v.Host == host {
			out = append(out, v)
		}
	}
	return out, nil
}

// ScanAll calls fn with every whole line of every ledger file under dir,
// day by day (oldest first), file by file in name order. A missing dir has
// no lines; a torn last line is skipped, as Read skips it.
func ScanAll(dir string, fn func(Line) error) error {
	days, err := Days(dir)
	if err != nil {
		return err
	}
	for _, day := range days {
		if err := scanDay(dir, day, fn); err != nil {
			return err
		}
	}
	return nil
}
