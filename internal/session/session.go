package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Dirs are the directories a run works in.
type Dirs struct {
	Snapshots string // the content-addressed store and index.json
	Reports   string // the Outputs' directory: temp files of killed writes there are swept
	State     string // ledgers, robots copies, validators, backoff
}

func (d Dirs) IndexPath() string { return filepath.Join(d.Snapshots, "index.json") }
func (d Dirs) LedgerDir() string { return filepath.Join(d.State, "ledgers") }
func (d Dirs) lockPath() string  { return filepath.Join(d.State, "lock") }

// Output is where a run prints and the environment it reads.
type Output struct {
	// Out gets the dry run's plan; Err the progress and the run's notes.
	Out, Err io.Writer
	// Getenv reads the signing key and the identity the run speaks with;
	// nil: an empty environment.
	Getenv func(string) string
	// Terminal shows the live view on Err (the caller knows whether Err
	// is a terminal); otherwise Err gets timestamped log lines.
	Terminal bool
	// Tick is how often the progress is refreshed while every host waits
	// (a second, on the wall clock); 0: only as the run's events come.
	Tick time.Duration
}

func (o Output) getenv(key string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(key)
}

// Options is one run.
type Options struct {
	Dirs
	Output
	// Set is the manifests, loaded; when it is nil, Load loads them, while
	// the run opens its directories (a first run creates them durably,
	// which takes about as long as parsing a thousand sources).
	Set  *manifest.Set
	Load func() (*manifest.Set, error)

	// Limits bound the run and hear of it; the cycle sets the hosts of its
	// shard, the budget its lease reserved, the time its lease lets it
	// send until, and a Progress that pushes the ledgers.
	pipeline.Limits
	// Plan, when set, is handed a dry run's plan, host by host, instead
	// of the plan being printed on Out (`run --dry-run --json`).
	Plan func(set *manifest.Set, plans []pipeline.HostPlan) error
	// Resolver looks up the hosts' names, for the requests and for the
	// check that the runner is online before the run sends anything; nil
	// is the system's.
	Resolver *net.Resolver
	// Outputs, when set, begins what the run leaves for people to read
	// (the coverage report, the pages, the change feeds: outputs.Start)
	// once the run has loaded its state and index; nil writes none.
	Outputs func(set *manifest.Set, st *state.State, ix *store.Index) RunOutputs
}

// RunOutputs is what a run leaves for people to read, written as the run
// goes and at its end (outputs.Run).
type RunOutputs interface {
	// SourceDone: a source's turn is recorded in the state and the
	// index. It never blocks.
	SourceDone(id string)
	// HostDone: a host's turn is over. It never blocks.
	HostDone()
	// End writes the rest, the run's last answer in, beside the saving of
	// the state and the index, which stand as they will be saved.
	End(now time.Time) error
}

// noOutputs writes nothing.
type noOutputs struct{}

func (noOutputs) SourceDone(string)   {}
func (noOutputs) HostDone()           {}
func (noOutputs) End(time.Time) error { return nil }

// Result is what a run did.
type Result struct {
	pipeline.Result
	// Report is coverage.md's path ("" for a dry run).
	Report string
}

// Run is one fetch run: load, lock, recover, fetch, then save the ledger,
// the index and the state, and end the Outputs — also after an
// interruption, so nothing fetched is lost. Its error has a kind (see
// ErrUsage, ErrCannot, ErrInterrupted, ErrFailures; pipeline.ErrFatal is
// one of ErrCannot's); Load's is returned as it is.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Output.Out == nil {
		o.Output.Out = io.Discard
	}
	if o.Output.Err == nil {
		o.Output.Err = io.Discard
	}
	opened := make(chan *workspace, 1)
	go func(d Dirs, dryRun bool) { opened <- openWorkspace(d, dryRun) }(o.Dirs, o.DryRun)
	if o.Set == nil {
		var err error
		if o.Set, err = o.Load(); err != nil {
			(<-opened).close()
			return Result{}, err
		}
	}
	set := o.Set
	w := <-opened
	defer w.close()
	if err := CheckOnly(set, o.Only); err != nil {
		return Result{}, err
	}
	if w.err != nil {
		return Result{}, w.err
	}
	st, s, ix, led := w.state, w.store, w.index, w.ledger
	if o.DryRun {
		return Result{}, printPlan(ctx, o, set, st, s)
	}
	if err := speakOwnVoice(set, o.Getenv); err != nil {
		return Result{}, err
	}
	if err := recoverInterrupted(ctx, o, s, ix, st); err != nil {
		return Result{}, err
	}
	defer boundHeap()()
	p := set.Policy
	signer, err := requestSigner(o.Output, p, o.Clock.Now)
	if err != nil {
		return Result{}, err
	}
	client := fetch.New(fetch.Config{
		UserAgent: p.UserAgent, From: p.From, Timeout: p.Timeout, MaxBody: p.MaxBody,
		AllowPrivate: p.AllowPrivateNetworks, Sign: signer, Now: o.Clock.Now,
		Resolver: o.Resolver,
	})
	checkNetwork := func(ctx context.Context, hosts []string) error {
		var r fetch.Resolver = net.DefaultResolver
		if o.Resolver != nil {
			r = o.Resolver
		}
		return fetch.CheckNetwork(ctx, r, hosts)
	}
	settling := newSettler(led)
	var outs RunOutputs = noOutputs{}
	if o.Outputs != nil {
		outs = o.Outputs(set, st, ix)
	}
	prog := newProgress(o.Output.Err, o.Clock, o.Terminal, o.Tick)
	stopTicks := prog.start(ctx)
	lim := o.Limits
	lim.Deadline = deadline(o)
	lim.Progress = func(r pipeline.Result) {
		prog.update(r)
		if o.Progress != nil {
			o.Progress(r)
		}
	}
	res, runErr := pipeline.Run(ctx, pipeline.Options{
		Set: set, Store: s, Index: ix, Ledger: led, State: st, HTTP: client,
		Limits: lim,
		Log:    prog.event,
		HostEvent: func(e pipeline.HostEvent) {
			prog.hostEvent(e)
			if e.Kind == pipeline.HostDone {
				client.Release(e.Host)
				outs.HostDone()
				settling.hostDone(e.Host)
			}
		},
		SourceDone:   outs.SourceDone,
		CheckNetwork: checkNetwork,
	})
	client.CloseIdle() // the hosts' turns are over: nothing is kept alive through the save
	stopTicks()
	prog.done()
	out := Result{Result: *res, Report: filepath.Join(o.Reports, "coverage.md")}
	// Save even after an interruption or a fatal error: what was fetched and
	// dispatched must not be lost.
	saved := save(o, st, ix, led, settling, outs)
	if saved != nil {
		return out, cannotRun("%w", saved)
	}
	if errors.Is(runErr, fetch.ErrNoNetwork) {
		return out, &kindError{ErrCannot, fmt.Errorf("%w: nothing was sent and nothing recorded against any site; run again once the runner is online", runErr)}
	}
	prog.finish("run: %d request(s), %d source(s) checked, %d failing, %d deferred",
		res.Dispatches, res.Checked, res.Failed, res.Deferred)
	md := out.Report
	if o.Outputs != nil {
		prog.finish("run: report in %s (and coverage.json beside it)", md)
	}
	// The error is the caller's to print, after, as the last line: it says
	// where too.
	switch {
	case errors.Is(runErr, pipeline.ErrFatal):
		return out, &kindError{ErrCannot, runErr}
	case runErr != nil:
		return out, &kindError{ErrInterrupted, fmt.Errorf("interrupted (%w): state, index and reports saved; the report is %s", runErr, md)}
	case res.Failed > 0:
		return out, fmt.Errorf("%w; the report is %s", ErrFailures, md)
	}
	return out, nil
}

// workspace is what a run opens of its directories before it knows its
// manifests: the state, the store and its index and, unless it is a dry
// run, the lock and the ledger.
type workspace struct {
	state  *state.State
	store  *store.Store
	index  *store.Index
	unlock func()
	ledger *ledger.Ledger
	err    error // the first failure; what it needed is not open
}

func openWorkspace(d Dirs, dryRun bool) *workspace {
	w := &workspace{}
	var err error
	if w.state, err = state.Load(d.State); err != nil {
		w.err = cannotRun("%w", err)
		return w
	}
	w.store = store.ReadOnly(d.Snapshots)
	if !dryRun {
		if w.store, err = store.Open(d.Snapshots); err != nil {
			w.err = cannotRun("%w", err)
			return w
		}
	}
	if w.index, err = store.LoadIndex(d.IndexPath()); err != nil {
		w.err = cannotRun("%w", err)
		return w
	}
	if dryRun {
		return w
	}
	if w.unlock, w.err = lockState(d.lockPath()); w.err != nil {
		return w
	}
	if w.ledger, err = ledger.Open(d.LedgerDir()); err != nil {
		w.err = cannotRun("%w", err)
	}
	return w
}

// close closes the ledger (its result lines were made durable by save
// already, or there are none) and lets the lock go.
func (w *workspace) close() {
	if w.ledger != nil {
		w.ledger.Close()
	}
	if w.unlock != nil {
		w.unlock()
	}
}

// save writes what a run leaves: the files are independent and written
// at once; closing the ledger makes its result lines (never fsynced on
// their own) durable, those of the hosts not yet settled, and a failure
// there, a settling's too, is reported like any other.
func save(o Options, st *state.State, ix *store.Index, led *ledger.Ledger, settling *settler, outs RunOutputs) error {
	return all(
		func() error { // the result lines, written without an fsync of their own
			settling.stop()
			return led.Close()
		},
		func() error { return ix.Save(o.IndexPath()) },
		func() error { return st.Save(o.State) },
		func() error {
			// The last feeds the writer has under way are waited for
			// here, beside the other writes, not before them.
			return outs.End(o.Clock.Now())
		},
	)
}

// recoverInterrupted puts back what a run killed before saving left: a
// run killed between storing a blob and saving the index left blobs no
// index names; adopt what the ledger or the state proves, remove the
// rest, before anything new is stored. And the temp files that killed
// writes of the state and the reports left: nothing reads them, nothing
// else would remove them.
func recoverInterrupted(ctx context.Context, o Options, s *store.Store, ix *store.Index, st *state.State) error {
	rec, err := pipeline.Recover(ctx, s, ix, o.LedgerDir(), st, o.Set)
	if err != nil {
		return cannotRun("recovering the store after an interrupted run: %w", err)
	}
	for _, dir := range []string{o.State, filepath.Join(o.State, "robots"), o.Reports} {
		sweep := atomicfile.Sweep
		if dir == o.Reports { // its parts, feeds and .well-known too
			sweep = atomicfile.SweepTree
		}
		swept, err := sweep(dir)
		if err != nil {
			return cannotRun("removing temp files of an interrupted run from %s: %w", dir, err)
		}
		rec.Removed = append(rec.Removed, swept...)
	}
	if n, m := len(rec.Adopted), len(rec.Removed); n+m > 0 {
		fmt.Fprintf(o.Output.Err, "run: after an interrupted run, %d blob(s) put back into the index, %d unproven blob(s) or temp file(s) removed\n", n, m)
	}
	return nil
}

func deadline(o Options) time.Time {
	d := o.Clock.Now().Add(o.MaxDuration)
	if !o.Deadline.IsZero() && o.Deadline.Before(d) {
		return o.Deadline
	}
	return d
}

// all runs fs at once and returns their errors joined, in fs's order.
func all(fs ...func() error) error {
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Go(func() { errs[i] = f() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// speakOwnVoice gives set the identity the environment names for this run,
// and refuses a run that would speak as the bot from anywhere but its own
// workflow, before anything is sent.
func speakOwnVoice(set *manifest.Set, getenv func(string) string) error {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	p, err := set.Policy.WithIdentityFrom(getenv)
	if err != nil {
		return usageError("%w", err)
	}
	// Requests that go only to this machine or its network reach no
	// operator who could mistake them for ours.
	public := slices.ContainsFunc(set.Sources, func(s manifest.Source) bool { return !policy.IsPrivateHost(s.Host) })
	if err := p.Voice(getenv); err != nil && public {
		return usageError("%w", err)
	}
	set.Policy = p
	return nil
}
