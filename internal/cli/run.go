package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

type runOptions struct {
	paths
	Only        string
	MaxDuration time.Duration
	DryRun      bool
	// Terminal shows the live view even when IO.Err is not a terminal.
	Terminal bool
	// Tick is how often the progress is refreshed while every host waits
	// (a second, on the wall clock); 0: only as the run's events come.
	Tick  time.Duration
	RunID string
	Clock clock.Clock
	IO    IO

	// Set by `ci`: the hosts of its shard, the budget its lease reserved,
	// and the time its lease lets it send until.
	Hosts    func(host string) bool
	Spent    func(host, day string) (int, error)
	Deadline time.Time
	// AfterRequest is called after each request the run completes.
	AfterRequest func()
}

func cmdRun(ctx context.Context, io IO, args []string) error {
	opts := runOptions{IO: io, Tick: time.Second}
	fs := newFlags("run", "[flags]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	fs.StringVar(&opts.Only, "only", "", "limit the run to one source `ID` or one JURISDICTION")
	fs.DurationVar(&opts.MaxDuration, "max-duration", 50*time.Minute, "stop dispatching after this long; hosts that would wait past it are deferred")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "plan and print what would be requested, without a request or a write")
	fs.StringVar(&opts.RunID, "run-id", io.getenv("GITHUB_RUN_ID"), "identifier written into ledger lines")
	if err := parse(fs, args); err != nil {
		return err
	}
	return runRun(ctx, opts)
}

// runRun is one fetch run: load, lock, fetch, then save the index, the state
// and the reports — also after an interruption, so nothing fetched is lost.
func runRun(ctx context.Context, opts runOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	if opts.Only != "" {
		if _, ok := set.Source(opts.Only); !ok && !hasJurisdiction(set.Manifests, opts.Only) {
			return usageError("--only %q names no source id and no jurisdiction%s", opts.Only, onlyHint(set, opts.Only))
		}
	}
	st, err := state.Load(opts.State)
	if err != nil {
		return cannotRun("%w", err)
	}
	s := store.ReadOnly(opts.Snapshots)
	if !opts.DryRun {
		if s, err = store.Open(opts.Snapshots); err != nil {
			return cannotRun("%w", err)
		}
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	var led *ledger.Ledger
	if !opts.DryRun {
		unlock, err := lockState(opts.lockPath())
		if err != nil {
			return err
		}
		defer unlock()
		if led, err = ledger.Open(opts.ledgerDir()); err != nil {
			return cannotRun("%w", err)
		}
		defer led.Close()
		// A run killed between storing a blob and saving the index left
		// blobs no index names: adopt what the ledger or the state proves,
		// remove the rest, before anything new is stored.
		rec, err := pipeline.Recover(ctx, s, ix, opts.ledgerDir(), st, set)
		if err != nil {
			return cannotRun("recovering the store after an interrupted run: %w", err)
		}
		// And the temp files that killed writes of the state and the
		// reports left: nothing reads them, nothing else would remove them.
		for _, dir := range []string{opts.State, filepath.Join(opts.State, "robots"), opts.Reports} {
			sweep := atomicfile.Sweep
			if dir == opts.Reports { // its parts, feeds and .well-known too
				sweep = atomicfile.SweepTree
			}
			swept, err := sweep(dir)
			if err != nil {
				return cannotRun("removing temp files of an interrupted run from %s: %w", dir, err)
			}
			rec.Removed = append(rec.Removed, swept...)
		}
		if n, m := len(rec.Adopted), len(rec.Removed); n+m > 0 {
			fmt.Fprintf(opts.IO.Err, "run: after an interrupted run, %d blob(s) put back into the index, %d unproven blob(s) or temp file(s) removed\n", n, m)
		}
	}
	if opts.DryRun {
		return printPlan(ctx, opts, set, st, s)
	}
	p := set.Policy
	signer, err := requestSigner(opts.IO, p, opts.Clock.Now)
	if err != nil {
		return err
	}
	client := fetch.New(fetch.Config{
		UserAgent: p.UserAgent, From: p.From, Timeout: p.Timeout, MaxBody: p.MaxBody,
		AllowPrivate: p.AllowPrivateNetworks, Sign: signer,
	})
	prog := newProgress(opts.IO.Err, opts.Clock, opts.Terminal || isTerminal(opts.IO.Err), opts.Tick)
	stopTicks := prog.start(ctx)
	res, runErr := pipeline.Run(ctx, pipeline.Options{
		Set: set, Store: s, Index: ix, Ledger: led, State: st, HTTP: client,
		Clock: opts.Clock, Only: opts.Only, RunID: opts.RunID,
		Deadline:  deadline(opts),
		Hosts:     opts.Hosts,
		Spent:     opts.Spent,
		Log:       prog.event,
		HostEvent: prog.hostEvent,
		Progress: func(r pipeline.Result) {
			prog.update(r)
			if opts.AfterRequest != nil {
				opts.AfterRequest()
			}
		},
	})
	stopTicks()
	prog.done()
	// Save even after an interruption or a fatal error: what was fetched and
	// dispatched must not be lost. The files are independent and written
	// at once; closing the ledger makes its result lines (never fsynced on
	// their own) durable, and a failure there is reported like any other.
	rep := report.Build(set, st)
	saved := all(
		led.Close, // the result lines, written without an fsync of their own
		func() error { return ix.Save(opts.indexPath()) },
		func() error { return st.Save(opts.State) },
		func() error { _, err := rep.Write(opts.Reports); return err },
		func() error {
			return writePublicPages(opts.paths, opts.IO, set, st, rep, ix, opts.Clock.Now())
		},
	)
	if saved != nil {
		return cannotRun("%w", saved)
	}
	prog.finish("run: %d request(s), %d source(s) checked, %d failing, %d deferred",
		res.Dispatches, res.Checked, res.Failed, res.Deferred)
	md := filepath.Join(opts.Reports, "coverage.md")
	prog.finish("run: report in %s (and coverage.json beside it)", md)
	// The error is printed after, as the last line: it says where too.
	switch {
	case errors.Is(runErr, pipeline.ErrFatal):
		return withCode(ExitCannot, runErr)
	case runErr != nil:
		return withCode(ExitFailures, fmt.Errorf("interrupted (%w): state, index and reports saved; the report is %s", runErr, md))
	case res.Failed > 0:
		return withCode(ExitFailures, fmt.Errorf("%w; the report is %s", errFailuresRecorded, md))
	}
	return nil
}

func deadline(opts runOptions) time.Time {
	d := opts.Clock.Now().Add(opts.MaxDuration)
	if !opts.Deadline.IsZero() && opts.Deadline.Before(d) {
		return opts.Deadline
	}
	return d
}

// printPlan prints, host by host, what a run now would request (robots.txt
// included) and how long the politeness rules make it take, and what it
// would leave and why: the run's own gates decide, on a clock that does
// not wait, so the plan is what the run does when every server answers
// as usual.
func printPlan(ctx context.Context, opts runOptions, set *manifest.Set, st *state.State, s *store.Store) error {
	spent := opts.Spent
	if spent == nil {
		spent = ledgerSpent(opts.ledgerDir())
	}
	plans, err := pipeline.Simulate(ctx, pipeline.Options{
		Set: set, Store: s, State: st, Clock: opts.Clock, Only: opts.Only,
		Deadline: deadline(opts), Hosts: opts.Hosts, Spent: spent,
	})
	if err != nil {
		return cannotRun("plan: %w", err)
	}
	w := bufio.NewWriter(opts.IO.Out) // a line per request, written in large pieces
	requests, deferred, excluded := 0, 0, 0
	for _, p := range plans {
		requests += len(p.Requests)
		deferred += len(p.Deferred)
		excluded += len(p.Excluded)
	}
	fmt.Fprintf(w, "dry run: %d request(s) to %d host(s), %d source(s) deferred, %d excluded; nothing sent, nothing written\n", requests, len(plans), deferred, excluded)
	for _, p := range plans {
		if len(p.Requests)+len(p.Deferred)+len(p.Excluded) == 0 && opts.Only == "" {
			continue // nothing due: listed with --only
		}
		fmt.Fprintf(w, "\n%s: %d request(s), about %s of politeness\n", p.Host, len(p.Requests), roughly(p.Took()))
		for _, r := range p.Requests {
			what := r.Source
			if r.Purpose == ledger.PurposeRobots {
				what = "robots.txt"
			}
			fmt.Fprintf(w, "  +%-8s %-10s %s  %s\n", roughly(r.At), r.Purpose, what, terminal.Text(r.URL))
		}
		for _, d := range p.Deferred {
			fmt.Fprintf(w, "  deferred  %s: %s\n", d.ID, terminal.Text(d.Why))
		}
		for _, d := range p.Excluded {
			fmt.Fprintf(w, "  excluded  %s: %s\n", d.ID, d.Why)
		}
		for _, d := range p.Skipped {
			fmt.Fprintf(w, "  skipped   %s: %s\n", d.ID, terminal.Text(d.Why))
		}
	}
	if err := w.Flush(); err != nil {
		return cannotRun("plan: %w", err)
	}
	return nil
}

// roughly rounds d for reading: to the second, or to the millisecond
// under a second (the demo's and the tests' policies).
func roughly(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// ledgerSpent counts a host's dispatch lines on a day in the ledgers
// under dir, without opening them for writing. Each day's directory is
// listed once, so that the many hosts without a file that day cost no
// open each.
func ledgerSpent(dir string) func(host, day string) (int, error) {
	var mu sync.Mutex
	days := map[string]map[string]bool{} // day → its files
	return func(host, day string) (int, error) {
		mu.Lock()
		files, ok := days[day]
		if !ok {
			entries, err := os.ReadDir(filepath.Join(dir, day))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				mu.Unlock()
				return 0, err
			}
			files = map[string]bool{}
			for _, e := range entries {
				files[e.Name()] = true
			}
			days[day] = files
		}
		mu.Unlock()
		if !files[ledger.FileName(host)] {
			return 0, nil
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ledger.Path(day, host))))
		if err != nil {
			return 0, err
		}
		u, err := ledger.Count(data, host)
		return u.Total, err
	}
}

func hasJurisdiction(ms []manifest.Manifest, j string) bool {
	for _, m := range ms {
		if m.Jurisdiction == j {
			return true
		}
	}
	return false
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
