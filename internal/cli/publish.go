package cli

import (
	"context"
	"net/http"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/cycle"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

type publishOptions struct {
	paths
	Clock      clock.Clock
	HTTPClient *http.Client
	IO         IO
}

func cmdPublish(ctx context.Context, io IO, args []string) error {
	opts := publishOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("publish", "[flags]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	preview := fs.Bool("preview", false, "print the pull request title and body publishing would send, built from the local state against the main branch of the checkout; no GitHub, no network")
	repoDir := fs.String("repo", ".", "with --preview: the git checkout whose main branch to compare with")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *preview {
		return runPublishPreview(ctx, opts, *repoDir)
	}
	return runPublish(ctx, opts)
}

// runPublish is the second half of `ci` for a run made with `run`: push
// today's ledgers and the state to the cache branch, then publish the pull
// request. `ci` does both itself, under a lease; use this only for a run
// that no other run can overlap.
func runPublish(ctx context.Context, opts publishOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	co, err := cycleOptions(ctx, ciOptions{paths: opts.paths, Limits: pipeline.Limits{Clock: opts.Clock, RunID: defaultRunID(opts.IO.Getenv, opts.Clock.Now())}, HTTPClient: opts.HTTPClient, IO: opts.IO}, lease.All)
	if err != nil {
		return err
	}
	_, err = cycle.Publish(ctx, co)
	return err // a cycle's own failures carry no code: exit 3
}
