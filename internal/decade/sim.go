package decade

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// Result is what a simulation measured.
type Result struct {
	Mode    string
	Runs    int // hourly runs simulated
	Fetched int // versions fetched
	Merges  int // squash merges into main
	Served  int64
	Commits int
	// Uploads are, per run that fetched a new version, the bytes of its new
	// versions: what it sends to each store (RecordOnly) or pushes into git
	// (BytesInMain).
	Uploads []int64
	// Pushes are, per run that fetched a new version, what its push of the
	// bot branch adds before git compresses it: the new files whole, the
	// rewritten ones (index, coverage, feeds) by what they gained.
	Pushes   []int64
	Releases int // releases of assets (RecordOnly)
	// MostAssets is the most assets a release holds.
	MostAssets int
	// StoreBytes is what each store holds (RecordOnly: the release assets,
	// and the bucket, each a full copy).
	StoreBytes int64
	// MainFiles is the number of files in main's last tree; BytesInTree
	// their total size.
	MainFiles   int
	BytesInTree int64
	IndexSize   int64 // snapshots/index.json at the end
	SiteSize    int64 // what the Pages site publishes: reports/ and schemas/
	// LargestFile and LargestFolder are the largest file in main and the
	// folder with the most entries, with their paths.
	LargestFile       int64
	LargestFilePath   string
	LargestFolder     int
	LargestFolderPath string
	// Crossings are the limits crossed, in the order first crossed;
	// Largest the largest value met of each limit, by name.
	Crossings []Crossing
	Largest   map[string]int64
}

// Files of the repository the simulation starts from: the manifests (so
// that validate has them) and the schemas (which the site publishes).
func ProjectFiles(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, glob := range []string{"manifests/*.yaml", "schemas/*.json"} {
		matches, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("decade: no %s under %s: give the repository's root", glob, root)
		}
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(root, m)
			out[filepath.ToSlash(rel)] = data
		}
	}
	return out, nil
}

// Simulate runs the plan in mode, writing main's history into the bare
// repository gitDir (which must exist and be empty) with git fast-import,
// starting from the files project (path → bytes).
func Simulate(ctx context.Context, plan *Plan, mode Mode, gitDir string, project map[string][]byte) (*Result, error) {
	cmd := exec.CommandContext(ctx, "git", "fast-import", "--quiet", "--done")
	cmd.Env = append(os.Environ(), "GIT_DIR="+gitDir, "GIT_CONFIG_NOSYSTEM=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("decade: git fast-import: %w", err)
	}
	s := newSim(plan, mode, stdin)
	res, simErr := s.run(project)
	closeErr := stdin.Close()
	waitErr := cmd.Wait()
	if err := errors.Join(simErr, closeErr); err != nil {
		return nil, err
	}
	if waitErr != nil {
		return nil, fmt.Errorf("decade: git fast-import: %w: %s", waitErr, strings.TrimSpace(stderr.String()))
	}
	return res, nil
}

// Account runs the plan in mode without git: every figure of Simulate but
// main's packed size, in the time it takes to make the versions.
func Account(plan *Plan, mode Mode, project map[string][]byte) (*Result, error) {
	return newSim(plan, mode, io.Discard).run(project)
}

type sim struct {
	plan    *Plan
	mode    Mode
	w       *bufio.Writer
	content *content
	limits  *limits
	res     *Result

	// main's tree: every path and its size, and the entries of each folder.
	tree    map[string]int64
	folders map[string]int

	// The record.
	record map[*Doc][]store.Entry
	frags  map[string][]byte // source id → its entries as index.json writes them
	// lastIndexLen is the index's size at the last run.
	lastIndexLen int64
	last         map[*Doc]store.Sum
	feeds        map[string][]string // feed path → its entries, newest first

	// The stores: assets of each month's releases.
	releases map[string][]int // month → the asset count of each of its releases

	pending map[string][]byte // files the open pull request carries, by path
}

func newSim(plan *Plan, mode Mode, w io.Writer) *sim {
	return &sim{
		plan: plan, mode: mode, w: bufio.NewWriterSize(w, 1<<20),
		content: newContent(), limits: newLimits(),
		res:      &Result{Mode: mode.Name, Runs: plan.Config.Hours},
		tree:     map[string]int64{},
		folders:  map[string]int{},
		record:   map[*Doc][]store.Entry{},
		frags:    map[string][]byte{},
		last:     map[*Doc]store.Sum{},
		feeds:    map[string][]string{},
		releases: map[string][]int{},
		pending:  map[string][]byte{},
	}
}

// The size of what GitHub's assets per release rule leaves to a month's
// release before the next is opened, as internal/blobs does.
const assetsBeforeNextRelease = 900

func (s *sim) run(project map[string][]byte) (*Result, error) {
	start := s.plan.Config.Start
	for p, data := range project {
		s.pending[p] = data
	}
	s.pending[botrepo.IndexJSON] = s.indexJSON()
	if err := s.commit(start, "Initial commit: the manifests and schemas"); err != nil {
		return nil, err
	}
	day := -1
	var mergeAt time.Time
	for _, run := range s.plan.Runs() {
		if d := run.Hour / (24 * max(s.plan.Config.MergeEveryDays, 1)); d != day {
			if len(s.pending) > 0 {
				if err := s.merge(mergeAt); err != nil {
					return nil, err
				}
			}
			day = d
		}
		s.fetchRun(run)
		mergeAt = s.plan.Time(run.Hour).Add(time.Hour)
	}
	if len(s.pending) > 0 {
		if err := s.merge(mergeAt); err != nil {
			return nil, err
		}
	}
	if _, err := s.w.WriteString("done\n"); err != nil {
		return nil, err
	}
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	return s.finish(), nil
}

// fetchRun is one hourly run: each new version is stored (in the stores, in
// RecordOnly), its text derived, the index and the reports updated, and the
// bot branch pushed with them.
func (s *sim) fetchRun(run Run) {
	when := s.plan.Time(run.Hour)
	date := when.Format(time.DateOnly)
	// upload is the bytes of the new versions the run sends away (to each
	// store, or in its push); push what its push of the bot branch adds,
	// before git's compression: new files whole, rewritten ones by what
	// they gain (git sends those as deltas of the last push's).
	var upload, push int64
	carry := func(p string, data []byte) {
		s.pending[p] = data
		if s.mode.Carries(p) {
			push += int64(len(data))
		}
	}
	rewrite := func(p string, data []byte, gained int) {
		s.pending[p] = data
		if s.mode.Carries(p) {
			push += int64(gained)
		}
	}
	for _, f := range run.Fetches {
		d := f.Doc
		v := s.content.version(d, f.Version)
		h := sha256.Sum256(v.Bytes)
		sum := store.Sum(hex.EncodeToString(h[:]))
		s.res.Fetched++
		s.res.Served += v.Size

		blobPath := "snapshots/" + store.BlobPath(string(sum))
		carry(blobPath, v.Bytes)
		upload += v.Size
		if s.mode.Stores {
			s.storeAsset(when, v.Size, d.Source.ID)
		}
		textPath := s.mode.textPath(d.Source.ID, sum)
		carry(textPath, v.Text)
		carry(textview.EnginePath(textPath), []byte(string(d.Source.Kind)+": pdftotext 24.02.0\nsha256 "+string(sum)+"\n"))

		s.record[d] = append(s.record[d], store.Entry{
			SHA256: sum, Size: v.Size, ContentType: contentType(d.Form), FinalURL: d.Source.URL,
			FirstSeen: date, SWHID: store.SWHIDOf(v.Bytes), Status: 200, Fetched: when.Format(time.RFC3339),
			Header: map[string]string{"Content-Type": contentType(d.Form), "Content-Length": fmt.Sprint(v.Size), "Date": when.Format(time.RFC1123), "Last-Modified": when.Add(-time.Hour).Format(time.RFC1123)},
		})
		s.frags[d.Source.ID] = marshalEntries(s.record[d])

		if old, ok := s.last[d]; ok {
			doc := changeDoc(d, date, old, sum, v.Text)
			carry("reports/"+changedoc.Path(d.Source.ID, date, old, sum), doc)
		}
		s.last[d] = sum
		entry := fmt.Sprintf("<entry><title>%s: a new version</title><id>urn:sha256:%s</id><updated>%s</updated><link href=\"%s\"/><summary>%d bytes, first seen %s</summary></entry>\n", d.Source.Title, sum, when.Format(time.RFC3339), d.Source.URL, v.Size, date)
		for _, feed := range []string{"reports/feeds/sources/" + d.Source.ID + ".atom", "reports/feeds/" + d.Source.Jurisdiction + ".atom", "reports/feeds/all.atom"} {
			rewrite(feed, s.feed(feed, entry), len(entry))
		}
	}
	// The index is put together once, at the merge: a decade's is
	// megabytes, and the runs between two merges only add to it.
	s.pending[botrepo.IndexJSON] = nil
	indexLen := s.indexLen()
	if s.mode.Carries(botrepo.IndexJSON) {
		push += indexLen - s.lastIndexLen
	}
	s.lastIndexLen = indexLen
	cov := s.coverage()
	rewrite(botrepo.CoverageJSON, cov, len(cov)/max(len(s.plan.Docs), 1)*len(run.Fetches))
	s.res.Uploads = append(s.res.Uploads, upload)
	s.res.Pushes = append(s.res.Pushes, push)
	s.limits.check(PushSize, push, func() string { return "the push of the run of " + when.Format(time.RFC3339) })
}

// storeAsset counts an asset in its month's release, opening the next
// release of the month past assetsBeforeNextRelease.
func (s *sim) storeAsset(when time.Time, size int64, id string) {
	s.res.StoreBytes += size
	month := when.Format("2006-01")
	rs := s.releases[month]
	if len(rs) == 0 || rs[len(rs)-1] >= assetsBeforeNextRelease {
		rs = append(rs, 0)
	}
	rs[len(rs)-1]++
	s.releases[month] = rs
	s.limits.check(AssetsPerRelease, int64(rs[len(rs)-1]), func() string { return "release blobs-" + month })
	s.limits.check(AssetSize, size, func() string { return "the bytes of " + id + " at " + when.Format(time.DateOnly) })
}

// merge squash-merges the pull request into main: one commit with what it
// carries, once a day (MergeEveryDays) on days with new versions.
func (s *sim) merge(when time.Time) error {
	s.res.Merges++
	return s.commit(when, "TaxKernelBot: new versions (#"+fmt.Sprint(s.res.Merges)+")")
}

func (s *sim) commit(when time.Time, msg string) error {
	if _, ok := s.pending[botrepo.IndexJSON]; ok {
		s.pending[botrepo.IndexJSON] = s.indexJSON()
	}
	paths := make([]string, 0, len(s.pending))
	for p := range s.pending {
		if s.mode.Carries(p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	fmt.Fprintf(s.w, "commit refs/heads/main\ncommitter %s <%s> %d +0000\ndata %d\n%s\n", botrepo.BotName, botrepo.BotEmail, when.Unix(), len(msg), msg)
	for _, p := range paths {
		data := s.pending[p]
		fmt.Fprintf(s.w, "M 100644 inline %s\ndata %d\n", p, len(data))
		s.w.Write(data)
		s.w.WriteByte('\n')
		s.place(p, int64(len(data)), when)
	}
	clear(s.pending)
	s.res.Commits++
	return s.w.Flush()
}

// place puts a file in main's tree, counting the entries of the folders
// it adds to and checking the sizes against the limits.
func (s *sim) place(p string, size int64, when time.Time) {
	if _, ok := s.tree[p]; !ok {
		for child := p; child != "."; {
			dir := path.Dir(child)
			s.folders[dir]++
			n := s.folders[dir]
			s.limits.check(EntriesPerFolder, int64(n), func() string { return dir + "/ at " + when.Format(time.DateOnly) })
			if _, seen := s.tree[dir+"/"]; seen || dir == "." {
				break
			}
			s.tree[dir+"/"] = 0 // a folder, counted once in its parent
			child = dir
		}
	}
	s.tree[p] = size
	s.limits.check(FileInGit, size, func() string { return p })
	s.limits.check(FileWarn, size, func() string { return p })
}

func (s *sim) finish() *Result {
	r := s.res
	for p, size := range s.tree {
		if strings.HasSuffix(p, "/") {
			continue
		}
		r.MainFiles++
		r.BytesInTree += size
		if size > r.LargestFile {
			r.LargestFile, r.LargestFilePath = size, p
		}
		if strings.HasPrefix(p, "reports/") || strings.HasPrefix(p, "schemas/") {
			r.SiteSize += size
		}
	}
	dirs := make([]string, 0, len(s.folders))
	for d := range s.folders {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if s.folders[d] > r.LargestFolder {
			r.LargestFolder, r.LargestFolderPath = s.folders[d], d
		}
	}
	r.IndexSize = s.tree[botrepo.IndexJSON]
	s.limits.check(PagesSite, r.SiteSize, func() string { return "reports/ and schemas/ at the end" })
	for _, rs := range s.releases {
		r.Releases += len(rs)
		for _, n := range rs {
			r.MostAssets = max(r.MostAssets, n)
		}
	}
	r.Crossings = s.limits.list()
	r.Largest = s.limits.largest
	return r
}

func contentType(f Form) string {
	switch f {
	case FormPDF:
		return "application/pdf"
	case FormZip:
		return "application/zip"
	case FormSheet:
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case FormXML:
		return "application/xml"
	}
	return "text/html; charset=utf-8"
}

// marshalEntries renders a source's entries as index.json does, indented
// for their place under "sources".
func marshalEntries(es []store.Entry) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	if err := enc.Encode(es); err != nil {
		panic(err) // entries are plain data: they always encode
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// indexJSON is snapshots/index.json, byte for byte as store.Index.Marshal
// writes it, put together from each source's entries rendered once when
// they changed: a decade's index is rewritten at every run.
func (s *sim) indexJSON() []byte {
	ids := make([]string, 0, len(s.frags))
	for id := range s.frags {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		return []byte("{\n  \"sources\": {}\n}\n")
	}
	var buf bytes.Buffer
	buf.WriteString("{\n  \"sources\": {\n")
	for i, id := range ids {
		key, _ := json.Marshal(id)
		fmt.Fprintf(&buf, "    %s: ", key)
		buf.Write(s.frags[id])
		if i < len(ids)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("  }\n}\n")
	return buf.Bytes()
}

// indexLen is the size indexJSON would have.
func (s *sim) indexLen() int64 {
	n := int64(len("{\n  \"sources\": {\n  }\n}\n"))
	for id, frag := range s.frags {
		n += int64(len(id)+len("    \"\": ,\n")) + int64(len(frag))
	}
	return n - 1 // no comma after the last
}

// coverage is reports/coverage.json: a line per source with its latest
// version, so that a run changes the lines of the sources it changed.
func (s *sim) coverage() []byte {
	var buf bytes.Buffer
	buf.WriteString("{\n  \"sources\": [\n")
	for i, d := range s.plan.Docs {
		es := s.record[d]
		status, sum, seen := "pending", "", ""
		if len(es) > 0 {
			status, sum, seen = "ok", string(es[len(es)-1].SHA256), es[len(es)-1].FirstSeen
		}
		fmt.Fprintf(&buf, "    {\"jurisdiction\":%q,\"id\":%q,\"url\":%q,\"kind\":%q,\"status\":%q,\"versions\":%d,\"sha256\":%q,\"changed\":%q}", d.Source.Jurisdiction, d.Source.ID, d.Source.URL, d.Source.Kind, status, len(es), sum, seen)
		if i < len(s.plan.Docs)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("  ]\n}\n")
	return buf.Bytes()
}

// feedEntries is how many entries a feed keeps.
const feedEntries = 20

func (s *sim) feed(p, entry string) []byte {
	es := append([]string{entry}, s.feeds[p]...)
	es = es[:min(len(es), feedEntries)]
	s.feeds[p] = es
	return []byte("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n" + strings.Join(es, "") + "</feed>\n")
}

// changeDoc is a change's document: what changed, with the first changed
// lines of the text.
func changeDoc(d *Doc, date string, old, new store.Sum, text []byte) []byte {
	lines := bytes.SplitN(text, []byte("\n"), 8)
	excerpt := make([]string, 0, len(lines))
	for _, l := range lines[:min(len(lines), 6)] {
		excerpt = append(excerpt, string(l))
	}
	doc, _ := json.MarshalIndent(map[string]any{
		"source": d.Source.ID, "date": date, "old": old, "new": new,
		"kind": d.Source.Kind, "url": d.Source.URL, "lines": excerpt,
	}, "", "  ")
	return append(doc, '\n')
}
