package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/cycle"
	"github.com/taxkernel/taxkernelbot/internal/escape/workflow"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

type ciOptions struct {
	paths
	// Limits is handed to the cycle as it is: Only, DryRun, MaxDuration,
	// RunID and Clock are the command's; the cycle sets the rest.
	pipeline.Limits
	Shard      string
	NoPublish  bool
	Holder     string
	PushEvery  time.Duration // how often ledgers are pushed during a run
	Margin     time.Duration // how long before its lease expires a run stops sending
	Tick       time.Duration // runOptions.Tick
	HTTPClient *http.Client  // for git and the GitHub API; nil: default
	IO         IO
}

func cmdCI(ctx context.Context, io IO, args []string) error {
	opts := ciOptions{IO: io, Limits: pipeline.Limits{Clock: clock.Real{}}, Tick: time.Second, PushEvery: 5 * time.Minute, Margin: 5 * time.Minute}
	fs := newFlags("ci", "[flags]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	fs.StringVar(&opts.Shard, "shard", "1/1", "`K/N`: fetch only the hosts of shard K of N (one lease per shard)")
	fs.StringVar(&opts.Only, "only", "", "limit the run to one source `ID` or one JURISDICTION")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "pull the state and print the plan; no lease, no request, no push")
	fs.BoolVar(&opts.NoPublish, "no-publish", false, "push the cache branch but open no pull request")
	fs.DurationVar(&opts.MaxDuration, "max-duration", 50*time.Minute, "stop dispatching after this long")
	fs.StringVar(&opts.RunID, "run-id", defaultRunID(io.Getenv, opts.Clock.Now()), "unique id of this attempt, written into ledgers and the lease")
	if err := parse(fs, args); err != nil {
		return err
	}
	host, _ := os.Hostname()
	opts.Holder = fmt.Sprintf("%s/%d", host, os.Getpid())
	return runCI(ctx, opts)
}

// defaultRunID is unique per attempt: ledger lines are attributed to runs
// by it, and a re-run of a workflow keeps GITHUB_RUN_ID. A local id has no
// "-<attempt>" suffix, so it is never taken for an earlier attempt of a
// workflow run.
func defaultRunID(getenv func(string) string, now time.Time) string {
	if getenv == nil || getenv("GITHUB_RUN_ID") == "" {
		return fmt.Sprintf("local.%d.%d", now.Unix(), os.Getpid())
	}
	return getenv("GITHUB_RUN_ID") + "-" + getenv("GITHUB_RUN_ATTEMPT")
}

// cycleOptions reads the Actions environment and the manifests and
// prepares what `ci` and `publish` both start from.
func cycleOptions(ctx context.Context, opts ciOptions, shard lease.Shard) (cycle.Options, error) {
	cfg, err := github.ConfigFromEnv(opts.IO.Getenv)
	if err != nil {
		return cycle.Options{}, usageError("%w", err)
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return cycle.Options{}, err
	}
	if err := borrowedIdentity(set, opts.IO); err != nil {
		return cycle.Options{}, err
	}
	gh, err := github.NewClient(cfg, opts.HTTPClient, github.WithClock(opts.Clock))
	if err != nil {
		return cycle.Options{}, usageError("%w", err)
	}
	// The bytes go to the repository's release assets and the buckets
	// policy.yaml lists; main keeps the record.
	stores, err := remoteStores(set, opts.IO, gh, opts.Clock)
	if err != nil {
		return cycle.Options{}, usageError("%w", err)
	}
	remote := gitstore.Remote{URL: cfg.GitURL(), Username: "x-access-token", Password: cfg.Token, HTTPClient: opts.HTTPClient}
	if cfg.AppID != "" {
		remote.Token = gh.Token // the App's installation tokens, renewed as they age
	}
	summary := ""
	if opts.IO.Getenv != nil {
		summary = opts.IO.Getenv("GITHUB_STEP_SUMMARY")
	}
	return cycle.Options{
		Set: set, Snapshots: opts.Snapshots, Reports: opts.Reports, State: opts.State,
		Limits: opts.Limits,
		Shard:  shard, Holder: opts.Holder,
		Margin: opts.Margin, PushEvery: opts.PushEvery, NoPublish: opts.NoPublish,
		Remote: remote,
		GitHub: gh, Links: cfg, Stores: stores,
		// A message may quote halt.json's reason, which may hold newlines.
		Log:         workflow.Messages(opts.IO.Err),
		StepSummary: summary,
	}, nil
}

func runCI(ctx context.Context, opts ciOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	shard, err := lease.ParseShard(opts.Shard)
	if err != nil {
		return usageError("--shard: %w", err)
	}
	co, err := cycleOptions(ctx, opts, shard)
	if err != nil {
		return err
	}
	co.Output = runOutput(opts.IO, false, opts.Tick)
	_, err = cycle.Run(ctx, co)
	return sessionError(err) // a cycle's own failures carry no code: exit 3
}
