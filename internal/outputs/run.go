package outputs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Dirs are the directories a run's outputs are read from and written to.
type Dirs struct {
	Snapshots string // the local store, its derived texts beside the blobs
	Reports   string // where the outputs are written
	Ledgers   string // the ledgers the requests per week are counted from
}

// Run is the outputs of one fetch run: each source's feed is written
// soon after the source's turn is over, while its host waits for the next
// dispatch (a first run has a feed per source to write, a thousand files
// that would otherwise all wait for the run's last answer), and End
// writes the rest.
//
// The writer writes once the answers pause (feedQuiet), not as each one
// comes: hosts answered together dispatch together again one delay later,
// and files written among their answers take the CPU those answers' next
// requests want. A host whose turn is over has no next request to keep
// clear of, so HostDone makes the writer write at once: the feeds of the
// last answers do not wait for the end. Answers that never pause still
// have their feeds written every feedHoldMax. What it could not write, or
// had not begun to write when End stopped it, End writes or says why not.
type Run struct {
	d Dirs
	// reports is d.Reports, opened once: every write of the run goes
	// through it and stays inside (nil, with dirErr, when it could not be
	// opened; End says why).
	reports *atomicfile.Dir
	dirErr  error
	set     *manifest.Set
	st      *state.State
	ix      *store.Index
	in      public.FeedInput
	rules   public.Rules
	byID    map[string]manifest.Source // Set.Source looks through them all
	// timers is the machine's clock unless a test drives its own. Not
	// the run's clock: the pauses space our own disk work from our
	// requests on this machine's CPU, and no outcome depends on them,
	// while a fake run clock's timers would fire only as the hosts'
	// waits move its time.
	timers clock.Clock

	adds atomic.Int64  // SourceDone calls so far, to see the answers pause
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

// Start begins the outputs of a run of set over st and ix, which the run
// goes on updating: End renders them as they are then. getenv names the
// repository the feeds link blobs on (nil: the bot's own).
func Start(d Dirs, getenv func(string) string, set *manifest.Set, st *state.State, ix *store.Index) *Run {
	r := newRun(d, getenv, set, st, ix)
	r.start()
	return r
}

func newRun(d Dirs, getenv func(string) string, set *manifest.Set, st *state.State, ix *store.Index) *Run {
	in := Input{Set: set, Index: ix, Texts: Derived{Snapshots: d.Snapshots}.Memoized(), Blob: BlobLinks(getenv)}
	r := &Run{
		d: d, set: set, st: st, ix: ix,
		in: in.feedInput(context.Background()), rules: public.RulesOf(set),
		timers: clock.Real{},
		now:    make(chan struct{}, 1), halt: make(chan struct{}),
		written: map[string]bool{}, wake: make(chan struct{}, 1), stopped: make(chan struct{}),
	}
	r.reports, r.dirErr = atomicfile.OpenDir(d.Reports)
	// The end's feeds of every document and of each jurisdiction show the
	// entries rendered here.
	r.in.Entries = &public.EntryMemo{}
	r.byID = make(map[string]manifest.Source, len(set.Sources))
	for _, src := range slices.Backward(set.Sources) { // the first of an id wins, as in Set.Source
		r.byID[src.ID] = src
	}
	return r
}

func (r *Run) start() {
	go func() {
		defer close(r.stopped)
		for range r.wake {
			if r.settle(); r.halted() {
				return
			}
			r.flush()
		}
	}()
}

// settle waits until no answer has come for feedQuiet, a host's turn is
// over, the writer stops, or feedHoldMax has passed.
func (r *Run) settle() {
	hold := r.timers.After(feedHoldMax)
	for {
		n := r.adds.Load()
		select {
		case <-r.timers.After(feedQuiet):
			if r.adds.Load() == n {
				return
			}
		case <-r.now:
			return
		case <-r.halt:
			return
		case <-hold:
			return
		}
	}
}

// halted reports whether stop was called.
func (r *Run) halted() bool {
	select {
	case <-r.halt:
		return true
	default:
		return false
	}
}

// HostDone tells the writer that a host's turn is over: what is queued
// is written without waiting for the answers to pause. It never blocks.
func (r *Run) HostDone() {
	select {
	case r.now <- struct{}{}:
	default: // a write without waiting is due already
	}
}

// SourceDone queues id's feed: its turn in the run is recorded in the
// state and the index. It never blocks.
func (r *Run) SourceDone(id string) {
	r.adds.Add(1)
	r.mu.Lock()
	r.queue = append(r.queue, id)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default: // a flush is due already; it takes id too
	}
}

// flush writes the feeds queued so far, at once.
func (r *Run) flush() {
	r.mu.Lock()
	ids := r.queue
	r.queue = nil
	r.mu.Unlock()
	var files []public.File
	var made []string
	for _, id := range ids {
		src, ok := r.byID[id]
		if !ok {
			continue
		}
		f, err := r.rules.SourceFeed(r.in, src)
		if err != nil {
			continue // the end renders it again and says why
		}
		files, made = append(files, f), append(made, id)
	}
	if len(files) == 0 || r.reports == nil {
		return
	}
	if _, err := public.WriteIn(r.reports, files...); err != nil {
		return // the end writes them again and says why
	}
	r.mu.Lock()
	for _, id := range made {
		r.written[id] = true
	}
	r.mu.Unlock()
}

// stop waits for the write under way, if any, and returns which feeds
// the writer wrote. The feeds still queued are left to the end, which
// writes them beside the pages, all at once, rather than after the
// writer's last batch. No SourceDone may follow.
func (r *Run) stop() (done func(id string) bool) {
	close(r.halt)
	close(r.wake)
	<-r.stopped
	return func(id string) bool { return r.written[id] }
}

// End stops the writer and writes the outputs as the state and the index
// stand now (the run's last answer is in): it records what the state and
// the ledgers say of each host as of now, then writes the coverage report,
// the pages and the feeds the writer did not, each only when it changed,
// so they change in the bot's pull request exactly when what they show
// does. Call it once, after the run's last SourceDone.
func (r *Run) End(now time.Time) error {
	if r.reports == nil {
		r.stop()
		return fmt.Errorf("open the reports directory: %w", r.dirErr)
	}
	defer r.reports.Close()
	rep := report.Build(r.set, r.st).AddUsage(r.ix.Usage)
	var repErr error
	var wg sync.WaitGroup
	wg.Go(func() { repErr = r.writeCoverageAndPages(Input{Set: r.set, Report: rep, State: r.st, Now: now}) })
	// Feeds asks Done only for the sources' own feeds, after rendering
	// every document's and each jurisdiction's: those render while the
	// writer's last batch is written. The writer is stopped whatever
	// Feeds returns, so that nothing writes after the run.
	stop := sync.OnceValue(r.stop)
	in := r.in
	// The new editions as the held pages stand now: a source's feed the
	// writer wrote with those of the run's start is written again when
	// they differ for it.
	texts := Derived{Snapshots: r.d.Snapshots}.Memoized()
	in.Editions = editionsByID(Editions(context.Background(), r.set, r.ix, texts.Held(context.Background()), texts))
	in.Done = func(id string) bool { return stop()(id) && sameEdition(r.in.Editions, in.Editions, id) }
	feeds, err := r.rules.Feeds(in)
	stop()
	if err == nil {
		_, err = public.WriteIn(r.reports, feeds...)
	}
	wg.Wait()
	if repErr == nil && err == nil {
		// The site, once the report holds what was observed of the
		// hosts: only the pages whose inputs changed since the last build
		// are rendered, from the change documents the feeds rendered.
		err = r.writeSite(Input{Set: r.set, Report: rep, Blob: r.in.Blob}, in)
	}
	return errors.Join(repErr, err)
}

// writeSite renders the site's pages whose inputs changed since the build
// whose inputs the reports directory holds, and writes those that changed.
func (r *Run) writeSite(in Input, fi public.FeedInput) error {
	var prior map[string]string
	if data, err := fs.ReadFile(r.reports.FS(), public.SiteInputs); err == nil {
		// A file that cannot be read renders every page again.
		prior, _ = public.ParseSiteInputs(data)
	}
	for name := range prior {
		if _, err := fs.Stat(r.reports.FS(), name); err != nil {
			delete(prior, name) // a page removed by hand is rendered again
		}
	}
	site, err := r.rules.Site(in.siteInput(fi, prior))
	if err != nil {
		return err
	}
	_, err = public.WriteIn(r.reports, site...)
	return err
}

// writeCoverageAndPages observes the hosts (with in.State), then writes
// the coverage report (removing the per-jurisdiction files a smaller
// report no longer has) and the pages.
func (r *Run) writeCoverageAndPages(in Input) error {
	if in.State != nil && in.Count == nil {
		count, closeLedgers, err := LedgerCounts(r.d.Ledgers)
		if err != nil {
			return err
		}
		defer closeLedgers()
		in.Count = count
	}
	if err := observe(in); err != nil {
		return err
	}
	pages, err := public.Pages(in.Set, in.Report, in.Now)
	if err != nil {
		return err
	}
	if _, err := in.Report.WriteIn(r.reports); err != nil {
		return err
	}
	_, err = public.WriteIn(r.reports, pages...)
	return err
}
