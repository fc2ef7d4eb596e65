package cli

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/session"
)

type runOptions struct {
	paths
	// Limits is handed to the session as it is: Only, MaxDuration,
	// DryRun, RunID and Clock come from the flags (and tests).
	pipeline.Limits
	// JSON prints a dry run's plan as one dryRunPlan on stdout.
	JSON bool
	// Terminal shows the live view even when IO.Err is not a terminal.
	Terminal bool
	// Tick is how often the progress is refreshed while every host waits
	// (a second, on the wall clock); 0: only as the run's events come.
	Tick time.Duration
	IO   IO
	// Resolver looks up the hosts' names; nil is the system's.
	Resolver *net.Resolver
}

func cmdRun(ctx context.Context, io IO, args []string) error {
	opts := runOptions{IO: io, Tick: time.Second}
	fs := newFlags("run", "[flags]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	fs.StringVar(&opts.Only, "only", "", "limit the run to one source `ID` or one JURISDICTION")
	fs.DurationVar(&opts.MaxDuration, "max-duration", 50*time.Minute, "stop dispatching after this long; hosts that would wait past it are deferred")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "plan and print what would be requested, without a request or a write")
	fs.StringVar(&opts.RunID, "run-id", io.getenv("GITHUB_RUN_ID"), "identifier written into ledger lines")
	fs.BoolVar(&opts.JSON, "json", false, "with --dry-run: print the plan as one JSON document (see below)")
	if err := parse(fs, args); err != nil {
		return err
	}
	return runRun(ctx, opts)
}

// runRun is one fetch run (see session.Run), its error mapped to the
// command's exit codes.
func runRun(ctx context.Context, opts runOptions) error {
	if opts.JSON && !opts.DryRun {
		return usageError("--json prints a plan: give --dry-run too (a run's own answer is the report it writes, reports/coverage.json)")
	}
	_, err := session.Run(ctx, opts.session())
	return sessionError(err)
}

// session is what opts asks of a run. The manifests are loaded in the
// run, beside its opening of the directories.
func (opts runOptions) session() session.Options {
	o := session.Options{
		Dirs:   opts.dirs(),
		Output: runOutput(opts.IO, opts.Terminal, opts.Tick),
		Load:   func() (*manifest.Set, error) { return loadManifests(opts.Manifests, opts.IO) },
		Limits: opts.Limits, Resolver: opts.Resolver,
		Outputs: opts.outputs(opts.IO.Getenv),
	}
	if opts.JSON {
		// Stdout is the plan's alone: the manifests' annotations go to
		// stderr, which the Actions runner reads as well.
		diag := opts.IO
		diag.Out = diag.Err
		o.Load = func() (*manifest.Set, error) { return loadManifests(opts.Manifests, diag) }
		o.Plan = func(set *manifest.Set, plans []pipeline.HostPlan) error {
			return writeJSON(opts.IO.Out, planJSON(set, plans, opts.Only != ""))
		}
	}
	return o
}

// planJSON is a dry run's plan as dryRunPlan: the hosts with something
// due (every host of the selection, with --only).
func planJSON(set *manifest.Set, plans []pipeline.HostPlan, only bool) dryRunPlan {
	out := dryRunPlan{Hosts: []hostPlan{}}
	url := func(id string) string {
		src, _ := set.Source(id)
		return src.URL
	}
	for _, p := range plans {
		out.Requests += len(p.Requests)
		out.Deferred += len(p.Deferred)
		out.Excluded += len(p.Excluded)
		if len(p.Requests)+len(p.Deferred)+len(p.Excluded) == 0 && !only {
			continue
		}
		h := hostPlan{Host: p.Host, WaitMS: p.Took().Milliseconds(), Requests: []plannedRequest{}, Sources: []plannedSource{}}
		requested := map[string]bool{}
		for _, r := range p.Requests {
			at := r.At.Milliseconds()
			source := r.Source
			if r.Purpose == ledger.PurposeRobots {
				source = ""
			}
			h.Requests = append(h.Requests, plannedRequest{AtMS: at, Purpose: r.Purpose, Source: source, URL: r.URL})
			if r.Purpose == ledger.PurposeDocument && !requested[r.Source] {
				requested[r.Source] = true
				h.Sources = append(h.Sources, plannedSource{ID: r.Source, URL: url(r.Source), Action: "request", AtMS: &at})
			}
		}
		for _, group := range []struct {
			action string
			notes  []pipeline.SourceNote
		}{{"deferred", p.Deferred}, {"skipped", p.Skipped}, {"excluded", p.Excluded}} {
			for _, n := range group.notes {
				h.Sources = append(h.Sources, plannedSource{ID: n.ID, URL: url(n.ID), Action: group.action, Why: n.Why})
			}
		}
		out.Hosts = append(out.Hosts, h)
	}
	return out
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
