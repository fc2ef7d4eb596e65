package session

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// WriteReports writes the coverage report and regenerates the public
// pages under the reports directory: it records in rep what the state
// and the local ledgers say of each host as of now (public.Observe), then
// writes coverage.json and coverage.md, the pages and the change feeds
// (from the local index and derived texts), each only when it changed, so
// they change in the bot's pull request exactly when what they show does.
// ix is the index in memory, nil to read the one on disk.
func WriteReports(p Dirs, getenv func(string) string, set *manifest.Set, st *state.State, rep *report.Report, ix *store.Index, now time.Time) error {
	return writeReports(p, getenv, set, st, rep, ix, now, nil)
}

// writeReports is WriteReports but for the feeds the writer w (nil:
// none) wrote during the run; the reports and pages are rendered while w
// finishes.
func writeReports(p Dirs, getenv func(string) string, set *manifest.Set, st *state.State, rep *report.Report, ix *store.Index, now time.Time, w *feedWriter) error {
	var repErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		if repErr = observe(p, set, st, rep, now); repErr != nil {
			return
		}
		var files []public.File
		if files, repErr = public.Pages(set, rep, now); repErr != nil {
			return
		}
		if _, repErr = rep.Write(p.Reports); repErr != nil {
			return
		}
		_, repErr = public.Write(p.Reports, files...)
	})
	feeds, err := feedFiles(p, getenv, set, ix, w)
	if err == nil {
		_, err = public.Write(p.Reports, feeds...)
	}
	wg.Wait()
	return errors.Join(repErr, err)
}

// RenderReports is what WriteReports writes, in memory: coverage.json,
// the coverage Markdown files, the pages and the feeds, named as under
// the reports directory, sorted by name. st nil says rep already holds
// what the hosts page shows (rep.Week, rep.Hosts: a committed report read
// back), so no ledger is read.
func RenderReports(p Dirs, getenv func(string) string, set *manifest.Set, st *state.State, rep *report.Report, ix *store.Index, now time.Time) ([]public.File, error) {
	if st != nil {
		if err := observe(p, set, st, rep, now); err != nil {
			return nil, err
		}
	}
	js, err := rep.JSON()
	if err != nil {
		return nil, err
	}
	files := []public.File{{Name: report.JSONName, Data: js}}
	for name, data := range rep.MarkdownFiles() {
		files = append(files, public.File{Name: name, Data: data})
	}
	pages, err := public.Pages(set, rep, now)
	if err != nil {
		return nil, err
	}
	feeds, err := feedFiles(p, getenv, set, ix, nil)
	if err != nil {
		return nil, err
	}
	files = append(append(files, pages...), feeds...)
	slices.SortFunc(files, func(a, b public.File) int { return strings.Compare(a.Name, b.Name) })
	return files, nil
}

// observe records in rep what the local ledgers count of each host.
func observe(p Dirs, set *manifest.Set, st *state.State, rep *report.Report, now time.Time) error {
	count := public.CountFunc(func(string, string, string) (map[string]int, error) { return nil, nil })
	if _, err := os.Stat(p.LedgerDir()); err == nil { // no ledgers yet: no requests, and nothing to create
		l, err := ledger.Open(p.LedgerDir())
		if err != nil {
			return err
		}
		defer l.Close()
		count = l.CountDispatches
	}
	return public.Observe(rep, set, st, count, now)
}

// feedFiles renders the feeds, but those w wrote, reusing the entries w
// rendered.
func feedFiles(p Dirs, getenv func(string) string, set *manifest.Set, ix *store.Index, w *feedWriter) ([]public.File, error) {
	if ix == nil {
		var err error
		if ix, err = store.LoadIndex(p.IndexPath()); err != nil {
			return nil, err
		}
	}
	in := feedInput(p, getenv, set, ix)
	if w == nil {
		return public.RulesOf(set).Feeds(in)
	}
	// Feeds asks Done only for the sources' own feeds, after rendering
	// every document's and each jurisdiction's: those render while the
	// writer's last batch is written. The writer is stopped whatever
	// Feeds returns, so that nothing writes after the run.
	stop := sync.OnceValue(w.stop)
	in.Done = func(id string) bool { return stop()(id) }
	in.Entries = w.in.Entries
	files, err := public.RulesOf(set).Feeds(in)
	stop()
	return files, err
}

// feedInput is what the feeds are made of: ix, the texts derived beside
// the blobs (or from them), and links to the blobs on the repository.
func feedInput(p Dirs, getenv func(string) string, set *manifest.Set, ix *store.Index) public.FeedInput {
	return public.FeedInput{
		Set: set, Index: ix, Blob: review.BlobLink(repository(getenv).FileURL("main")),
		Text: func(sum, contentType string) (string, bool) {
			path, err := textview.TextPath(p.Snapshots, sum)
			if err != nil {
				return "", false
			}
			if text, err := textview.ReadText(path); err == nil {
				return text, true
			}
			// Not derived yet (a first copy's text is kept only once it is
			// compared): derive it from the held bytes.
			raw, err := os.ReadFile(filepath.Join(p.Snapshots, store.Sum(sum).Path()))
			if err != nil {
				return "", false
			}
			res := textview.Extract(context.Background(), raw, contentType, textview.Limits{})
			return res.Text, res.OK()
		},
	}
}

// feedWriter writes each source's feed soon after the source's turn is
// over, while its host waits for the next dispatch: a first run has a
// feed per source to write, a thousand files that would otherwise all
// wait for the run's last answer. What it could not write, or had not
// begun to write when it was stopped, is left to the end (done does not
// name it), which then writes it or says why not.
//
// It writes once the answers pause (feedQuiet), not as each one comes:
// hosts answered together dispatch together again one delay later, and files
// written among their answers take the CPU those answers' next requests
// want. A host whose turn is over has no next request to keep clear of,
// so hostDone makes the writer write at once: the feeds of the last
// answers do not wait for the end. Answers that never pause still have
// their feeds written every feedHoldMax.
type feedWriter struct {
	in    public.FeedInput
	rules public.Rules
	dir   string
	st    *state.State
	byID  map[string]manifest.Source // Set.Source looks through them all
	// timers is the machine's clock unless a test drives its own. Not
	// the run's clock: the pauses space our own disk work from our
	// requests on this machine's CPU, and no outcome depends on them,
	// while a fake run clock's timers would fire only as the hosts'
	// waits move its time.
	timers clock.Clock

	adds atomic.Int64  // add calls so far, to see the answers pause
	now  chan struct{} // write without waiting: a host's turn is over
	halt chan struct{} // closed by stop: no more waiting at all

	mu      sync.Mutex
	queue   []string
	written map[string]bool
	wake    chan struct{}
	stopped chan struct{}
}

// The writer's pauses: feedQuiet is well under any delay the rules allow,
// and long next to the moments in which hosts answered together come back.
const (
	feedQuiet   = 20 * time.Millisecond
	feedHoldMax = time.Second
)

func startFeedWriter(p Dirs, getenv func(string) string, set *manifest.Set, ix *store.Index, st *state.State) *feedWriter {
	w := newFeedWriter(p, getenv, set, ix, st)
	w.start()
	return w
}

func newFeedWriter(p Dirs, getenv func(string) string, set *manifest.Set, ix *store.Index, st *state.State) *feedWriter {
	w := &feedWriter{
		in: feedInput(p, getenv, set, ix), rules: public.RulesOf(set), dir: p.Reports, st: st,
		timers: clock.Real{},
		now:    make(chan struct{}, 1), halt: make(chan struct{}),
		written: map[string]bool{}, wake: make(chan struct{}, 1), stopped: make(chan struct{}),
	}
	// The end's feeds of every document and of each jurisdiction show the
	// entries rendered here.
	w.in.Entries = &public.EntryMemo{}
	w.byID = make(map[string]manifest.Source, len(set.Sources))
	for _, src := range slices.Backward(set.Sources) { // the first of an id wins, as in Set.Source
		w.byID[src.ID] = src
	}
	return w
}

func (w *feedWriter) start() {
	go func() {
		defer close(w.stopped)
		for range w.wake {
			if w.settle(); w.halted() {
				return
			}
			w.flush()
		}
	}()
}

// settle waits until no answer has come for feedQuiet, a host's turn is
// over, the writer stops, or feedHoldMax has passed.
func (w *feedWriter) settle() {
	hold := w.timers.After(feedHoldMax)
	for {
		n := w.adds.Load()
		select {
		case <-w.timers.After(feedQuiet):
			if w.adds.Load() == n {
				return
			}
		case <-w.now:
			return
		case <-w.halt:
			return
		case <-hold:
			return
		}
	}
}

// halted reports whether stop was called.
func (w *feedWriter) halted() bool {
	select {
	case <-w.halt:
		return true
	default:
		return false
	}
}

// hostDone tells the writer that a host's turn is over: what is queued
// is written without waiting for the answers to pause. It never blocks.
func (w *feedWriter) hostDone() {
	select {
	case w.now <- struct{}{}:
	default: // a write without waiting is due already
	}
}

// add queues id's feed; it never blocks (pipeline.Options.SourceDone).
func (w *feedWriter) add(id string) {
	w.adds.Add(1)
	w.mu.Lock()
	w.queue = append(w.queue, id)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default: // a flush is due already; it takes id too
	}
}

// flush writes the feeds queued so far, at once.
func (w *feedWriter) flush() {
	w.mu.Lock()
	ids := w.queue
	w.queue = nil
	w.mu.Unlock()
	var files []public.File
	var made []string
	for _, id := range ids {
		src, ok := w.byID[id]
		if !ok {
			continue
		}
		f, err := w.rules.SourceFeed(w.in, src)
		if err != nil {
			continue // the end renders it again and says why
		}
		files, made = append(files, f), append(made, id)
	}
	if len(files) == 0 {
		return
	}
	if _, err := public.Write(w.dir, files...); err != nil {
		return // the end writes them again and says why
	}
	w.mu.Lock()
	for _, id := range made {
		w.written[id] = true
	}
	w.mu.Unlock()
}

// stop waits for the write under way, if any, and returns which feeds
// the writer wrote. The feeds still queued are left to the end, which
// writes them beside the pages, all at once, rather than after the
// writer's last batch. No add may follow.
func (w *feedWriter) stop() (done func(id string) bool) {
	close(w.halt)
	close(w.wake)
	<-w.stopped
	return func(id string) bool { return w.written[id] }
}

// repository is where the feeds link blobs: the repository Actions names
// (GITHUB_SERVER_URL, GITHUB_REPOSITORY), else the bot's own.
func repository(getenv func(string) string) github.Config {
	c := github.Config{ServerURL: github.DefaultServerURL}
	c.Owner, c.Repo, _ = strings.Cut(policy.IdentityRepository, "/")
	if getenv == nil {
		return c
	}
	if owner, repo, ok := strings.Cut(strings.TrimSpace(getenv("GITHUB_REPOSITORY")), "/"); ok && owner != "" && repo != "" && !strings.Contains(repo, "/") {
		c.Owner, c.Repo = owner, repo
	}
	if u, err := url.Parse(strings.TrimSpace(getenv("GITHUB_SERVER_URL"))); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil {
		c.ServerURL = strings.TrimRight(u.String(), "/")
	}
	return c
}
