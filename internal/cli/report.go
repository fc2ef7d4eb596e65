package cli

import (
	"context"
	"fmt"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/session"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

type reportOptions struct {
	paths
	Clock clock.Clock // the public pages' "generated" time; default clock.Real
	IO    IO
}

func cmdReport(ctx context.Context, io IO, args []string) error {
	opts := reportOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("report", "[flags]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	if err := parse(fs, args); err != nil {
		return err
	}
	return runReport(ctx, opts)
}

func runReport(_ context.Context, opts reportOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	st, err := state.Load(opts.State)
	if err != nil {
		return cannotRun("%w", err)
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	rep := report.Build(set, st).AddUsage(ix.Usage)
	changed, err := rep.Write(opts.Reports)
	if err != nil {
		return cannotRun("%w", err)
	}
	if err := session.WritePages(opts.dirs(), opts.IO.Getenv, set, st, rep, nil, opts.Clock.Now()); err != nil {
		return cannotRun("%w", err)
	}
	what := "unchanged"
	if changed {
		what = "written"
	}
	fmt.Fprintf(opts.IO.Out, "%s/coverage.json and coverage.md %s\n", opts.Reports, what)
	return nil
}
