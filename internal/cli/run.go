package cli

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/session"
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
	// Resolver looks up the hosts' names; nil is the system's.
	Resolver *net.Resolver

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

// runRun is one fetch run (see session.Run), its error mapped to the
// command's exit codes.
func runRun(ctx context.Context, opts runOptions) error {
	_, err := session.Run(ctx, opts.session())
	return sessionError(err)
}

// session is what opts asks of a run. The manifests are loaded in the
// run, beside its opening of the directories.
func (opts runOptions) session() session.Options {
	return session.Options{
		Dirs:   opts.dirs(),
		Output: runOutput(opts.IO, opts.Terminal, opts.Tick),
		Load:   func() (*manifest.Set, error) { return loadManifests(opts.Manifests, opts.IO) },
		Only:   opts.Only, MaxDuration: opts.MaxDuration, DryRun: opts.DryRun,
		RunID: opts.RunID, Clock: opts.Clock, Resolver: opts.Resolver,
		Hosts: opts.Hosts, Spent: opts.Spent, Deadline: opts.Deadline, AfterRequest: opts.AfterRequest,
	}
}

// runOutput is where a run prints: the live view when asked to or when
// Err is a terminal that can draw it.
func runOutput(io IO, terminal bool, tick time.Duration) session.Output {
	return session.Output{Out: io.Out, Err: io.Err, Getenv: io.Getenv, Terminal: terminal || drawable(io, io.Err), Tick: tick}
}

// sessionError maps a run's error to its exit code: a wrong option 2, a
// run stopped or completed with failures 1, anything else (the run could
// not start or save; a cycle's own failure) 3.
func sessionError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.As(err, new(*exitError)): // a code of its own already
		return err
	case errors.Is(err, session.ErrUsage):
		return withCode(ExitUsage, err)
	case errors.Is(err, session.ErrInterrupted), errors.Is(err, session.ErrFailures):
		return withCode(ExitFailures, err)
	}
	return withCode(ExitCannot, err)
}
