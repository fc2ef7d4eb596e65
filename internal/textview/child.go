package textview

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/view"
)

// Each extraction runs in a child process: this program started again with
// childEnv set, which the package's init sees before anything else runs.
// The child puts resource limits on itself (memory, CPU time) and then
// either extracts with this package's Go extractors ("go") or replaces
// itself with pdftotext ("exec"), which inherits the limits. A document
// that needs more than a bound ends its child, never the run: the parent
// reads the child's output up to the text limit and kills it at the
// deadline.
const childEnv = "TAXKERNELBOT_TEXTVIEW_CHILD"

// statusPrefix starts the line of the child's stderr that says how the Go
// extraction ended.
const statusPrefix = "textview-status: "

// childRequest is what the parent asks of a child, in childEnv.
type childRequest struct {
	Mode        string // "go" or "exec"
	Kind        Kind
	ContentType string
	Drop        []string
	Limits      Limits
	Path        string // exec: the program
}

// childStatus is how a Go extraction in a child ended.
type childStatus struct {
	Code string // "", "text", "page", "none", "error", "panic", "memory"
	Err  string
	Size int
}

// isolate sends each extraction to a child process. Tests that replace an
// extractor turn it off, as the child would not see their replacement.
var isolate = true

func init() {
	v, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	os.Unsetenv(childEnv)
	os.Exit(childMain(v))
}

func childMain(spec string) int {
	var req childRequest
	if err := json.Unmarshal([]byte(spec), &req); err != nil {
		fmt.Fprintf(os.Stderr, "textview child: bad request: %v\n", err)
		return 125
	}
	lim := req.Limits.withDefaults()
	if req.Mode == "exec" {
		err := execLimited(req.Path, append([]string{"pdftotext"}, os.Args[1:]...), parserEnv(), lim.MaxMemory, lim.MaxCPU)
		fmt.Fprintf(os.Stderr, "textview child: start %s: %v\n", req.Path, err)
		return 126
	}
	// The Go runtime's own ceiling comes first, so that it collects
	// garbage harder before the hard limit ends the child.
	debug.SetMemoryLimit(lim.MaxMemory / 4 * 3)
	debug.SetMaxStack(64 << 20)
	if err := setLimits(lim.MaxMemory, lim.MaxCPU, true); err != nil {
		fmt.Fprintf(os.Stderr, "textview child: limits: %v\n", err)
		return 125
	}
	go watchMemory(lim.MaxMemory)
	raw, err := io.ReadAll(io.LimitReader(os.Stdin, lim.MaxInput+1))
	if err != nil {
		fmt.Fprintf(os.Stderr, "textview child: read the document: %v\n", err)
		return 125
	}
	st := childStatus{}
	out := &lines{max: lim.MaxText}
	func() {
		defer func() {
			if p := recover(); p != nil {
				st = childStatus{Code: "panic", Err: fmt.Sprint(p)}
			}
		}()
		v, err := Compile(view.Spec{Drop: req.Drop})
		if err != nil {
			st = childStatus{Code: "error", Err: err.Error()}
			return
		}
		run := extractors[req.Kind]
		if run == nil {
			st = childStatus{Code: "error", Err: "no extractor for " + string(req.Kind)}
			return
		}
		err = run(context.Background(), raw, req.ContentType, v, lim, out)
		st = childStatus{Size: out.size}
		switch {
		case err == nil:
		case errors.Is(err, errTextLimit):
			st.Code = "text"
		case errors.Is(err, errPageLimit):
			st.Code = "page"
		case errors.Is(err, errNoText):
			st.Code, st.Err = "none", err.Error()
		default:
			st.Code, st.Err = "error", err.Error()
		}
	}()
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	if st.Code != "panic" {
		w.WriteString(out.String())
	}
	if err := w.Flush(); err != nil {
		return 124 // the parent stopped reading
	}
	js, _ := json.Marshal(st)
	fmt.Fprintf(os.Stderr, "\n%s%s\n", statusPrefix, js)
	return 0
}

// watchMemory ends this child, saying why, once the memory the Go runtime
// has mapped comes near the bound: at the bound itself the runtime is
// refused pages where it cannot always say so (a collector thread dies of
// it), so the parent could not tell memory from damage.
func watchMemory(bound int64) {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	for {
		metrics.Read(s)
		if int64(s[0].Value.Uint64()) > bound/10*8 {
			js, _ := json.Marshal(childStatus{Code: "memory"})
			fmt.Fprintf(os.Stderr, "\n%s%s\n", statusPrefix, js)
			os.Exit(0)
		}
		<-clock.Real{}.After(2 * time.Millisecond)
	}
}

var (
	selfOnce sync.Once
	selfPath string
)

// self is the path of this program, for starting children; "" when it
// cannot be told (then extraction runs in this process, bounded in time
// and output only).
func self() string {
	selfOnce.Do(func() {
		if p, err := os.Executable(); err == nil {
			selfPath = p
		}
	})
	return selfPath
}

// childRun is how a child ended.
type childRun struct {
	status   *childStatus // the Go child's own account; nil when it gave none
	exit     *os.ProcessState
	stderr   string // the last part of its stderr, without the status line
	stopped  error  // set when the parent stopped reading: the limit hit
	startErr error
	inputErr error // the document could not be read (a damaged blob)
}

// runChild starts cmd with in as its standard input, hands each line of
// its standard output to line, and waits for it. When line returns an
// error the child is killed and the error is kept in stopped.
func runChild(ctx context.Context, cmd func(ctx context.Context) *exec.Cmd, in io.Reader, maxLine int, line func(string) error) childRun {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := cmd(ctx)
	c.WaitDelay = 5 * time.Second
	// A temp directory of the child's own, removed once it has ended: a
	// child ended at a bound runs none of its cleanup, and excelize leaves
	// a large sheet's spill file behind even when it refuses the workbook.
	if tmp, err := os.MkdirTemp("", "taxkernelbot-textview-"); err == nil {
		defer os.RemoveAll(tmp)
		if c.Env == nil {
			c.Env = parserEnv()
		}
		c.Env = append(c.Env, "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	}
	var res childRun
	var inErr error
	var inMu sync.Mutex
	c.Stdin = readerFunc(func(p []byte) (int, error) {
		n, err := in.Read(p)
		if err != nil && err != io.EOF {
			inMu.Lock()
			inErr = err
			inMu.Unlock()
		}
		return n, err
	})
	tail := &tailBuffer{max: 4 << 10}
	c.Stderr = tail
	stdout, err := c.StdoutPipe()
	if err != nil {
		res.startErr = err
		return res
	}
	if err := c.Start(); err != nil {
		res.startErr = err
		return res
	}
	br := bufio.NewReaderSize(stdout, 64<<10)
	var cur []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(cur)+len(chunk) > maxLine+1 {
			res.stopped = errTextLimit
			cancel()
			break
		}
		cur = append(cur, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(cur) > 0 {
			if lerr := line(strings.TrimSuffix(string(cur), "\n")); lerr != nil {
				res.stopped = lerr
				cancel()
				break
			}
		}
		cur = cur[:0]
		if err != nil {
			break
		}
	}
	io.Copy(io.Discard, stdout)
	_ = c.Wait()
	res.exit = c.ProcessState
	inMu.Lock()
	res.inputErr = inErr
	inMu.Unlock()
	text := tail.String()
	if i := strings.LastIndex(text, "\n"+statusPrefix); i >= 0 {
		var st childStatus
		if json.Unmarshal([]byte(strings.TrimSpace(text[i+1+len(statusPrefix):])), &st) == nil {
			res.status = &st
		}
		text = text[:i]
	}
	res.stderr = strings.TrimSpace(text)
	return res
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// tailBuffer keeps the first and the last max bytes written to it: where
// a program says why it ends (a Go runtime's "fatal error" comes first,
// before its goroutines' stacks; a status line comes last).
type tailBuffer struct {
	mu   sync.Mutex
	head []byte
	buf  []byte
	max  int
	cut  bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		t.cut = true
	}
	if t.cut {
		return string(t.head) + "\n…\n" + string(b)
	}
	return string(t.head) + string(b)
}

// why is the line of a child's stderr that says why it ended: a Go
// runtime's fatal error or panic, else the last line.
func why(stderr string) string {
	for l := range strings.Lines(stderr) {
		if strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "runtime: ") {
			return lastLine(l)
		}
	}
	return lastLine(stderr)
}

// lastLine is the last non-empty line of s, cut to a readable length.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// overMemory reports a child's stderr that says it ran out of memory.
func overMemory(stderr string) bool {
	for _, s := range []string{"out of memory", "bad_alloc", "Cannot allocate memory", "cannot allocate memory", "Out of memory", "failed to reserve", "failed to create new OS thread"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}
