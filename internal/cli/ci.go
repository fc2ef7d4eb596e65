package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// The branches the bot writes.
const (
	cacheBranch = "fetch-cache"
	prBranch    = "taxkernelbot/update"
)

type ciOptions struct {
	paths
	Shard       string
	Only        string
	DryRun      bool
	NoPublish   bool
	MaxDuration time.Duration
	RunID       string
	Holder      string
	// PushEvery is how often ledgers are pushed during a run.
	PushEvery time.Duration
	// Margin is how long before its lease expires a run stops sending: the
	// longest request plus clock skew between runners.
	Margin     time.Duration
	Clock      clock.Clock
	HTTPClient *http.Client // for git and the GitHub API; nil: default
	IO         IO
}

func cmdCI(ctx context.Context, io IO, args []string) error {
	opts := ciOptions{IO: io, Clock: clock.Real{}, PushEvery: 5 * time.Minute, Margin: 5 * time.Minute}
	fs := newFlags("ci", "[flags]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	fs.StringVar(&opts.Shard, "shard", "1/1", "`K/N`: fetch only the hosts of shard K of N (one lease per shard)")
	fs.StringVar(&opts.Only, "only", "", "limit the run to one source `ID` or one JURISDICTION")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "pull the state and print the plan; no lease, no request, no push")
	fs.BoolVar(&opts.NoPublish, "no-publish", false, "push the cache branch but open no pull request")
	fs.DurationVar(&opts.MaxDuration, "max-duration", 50*time.Minute, "stop dispatching after this long")
	fs.StringVar(&opts.RunID, "run-id", defaultRunID(io.Getenv), "unique id of this attempt, written into ledgers and the lease")
	if err := parse(fs, args); err != nil {
		return err
	}
	host, _ := os.Hostname()
	opts.Holder = fmt.Sprintf("%s/%d", host, os.Getpid())
	return runCI(ctx, opts)
}

// defaultRunID is unique per attempt: ledger lines are attributed to runs
// by it, and a re-run of a workflow keeps GITHUB_RUN_ID.
func defaultRunID(getenv func(string) string) string {
	if getenv == nil || getenv("GITHUB_RUN_ID") == "" {
		return fmt.Sprintf("local-%d-%d", time.Now().Unix(), os.Getpid())
	}
	return getenv("GITHUB_RUN_ID") + "-" + getenv("GITHUB_RUN_ATTEMPT")
}

// ciRun is one `taxkernelbot ci`: pull the state from the cache branch,
// take the shard's lease, run, push ledgers and state back, release, and
// publish the pull request.
type ciRun struct {
	opts   ciOptions
	cfg    github.Config
	set    *manifest.Set
	shard  lease.Shard
	repo   *gitstore.Repo
	remote gitstore.Remote
	day    string
	lease  lease.Lease
	mu     sync.Mutex // one push at a time
}

// newCIRun reads the Actions environment and the manifests and opens the
// repository named there: what `ci` and `publish` both start from.
func newCIRun(opts ciOptions, shard lease.Shard) (*ciRun, error) {
	cfg, err := github.ConfigFromEnv(opts.IO.Getenv)
	if err != nil {
		return nil, usageError("%v", err)
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return nil, err
	}
	remote := gitstore.Remote{URL: cfg.GitURL(), Username: "x-access-token", Password: cfg.Token, HTTPClient: opts.HTTPClient}
	// Objects are kept on disk in the state directory (never pushed: only
	// ledgers, robots copies and state.json are), not in memory, so a
	// machine that keeps its work tree, or a cache of it, downloads only
	// what is new on the next run.
	repo, err := gitstore.Open(filepath.Join(opts.State, ".gitstore"), remote)
	if err != nil {
		return nil, cannotRun("%v", err)
	}
	return &ciRun{opts: opts, cfg: cfg, set: set, shard: shard, repo: repo, remote: remote, day: ledger.Day(opts.Clock.Now())}, nil
}

func runCI(ctx context.Context, opts ciOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	shard, err := lease.ParseShard(opts.Shard)
	if err != nil {
		return usageError("--shard: %v", err)
	}
	c, err := newCIRun(opts, shard)
	if err != nil {
		return err
	}
	defer c.repo.Close()

	if err := c.pull(ctx); err != nil {
		return cannotRun("pull %s: %v", cacheBranch, err)
	}
	if err := c.carryPending(ctx); err != nil {
		return cannotRun("carry the blobs of %s: %v", prBranch, err)
	}
	run := runOptions{
		paths: opts.paths, Only: opts.Only, MaxDuration: opts.MaxDuration, RunID: opts.RunID,
		Clock: opts.Clock, IO: opts.IO, Hosts: shard.Owns,
	}
	if opts.DryRun {
		run.DryRun = true
		return runRun(ctx, run)
	}
	want, err := c.want(ctx)
	if err != nil {
		return err
	}
	if err := c.acquire(ctx, want); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Err, "lease %s taken until %s for %d host(s)\n", shard.Name(), c.lease.Expires.UTC().Format(time.RFC3339), len(c.lease.Reservations))

	run.Spent = c.lease.GateSpent(func(host string) int { return c.set.Host(host).DailyCap })
	run.Deadline = c.lease.StopBy(opts.Margin)
	stopPushing := c.pushPeriodically(ctx)
	runErr := runRun(ctx, run)
	stopPushing()
	if code := exitCode(runErr); code != ExitOK && code != ExitFailures {
		// The lease is released anyway below: what was dispatched is in the
		// ledgers and must reach the branch.
		fmt.Fprintf(opts.IO.Err, "run: %v\n", runErr)
	}
	// Pushing must not be cut short by the signal that ended the run.
	pushCtx := context.WithoutCancel(ctx)
	if err := c.pushFinal(pushCtx); err != nil {
		return cannotRun("push %s: %v (the local state in %s is intact: run `taxkernelbot ci` again to push it)", cacheBranch, err, opts.State)
	}
	prURL := ""
	if !opts.NoPublish {
		if prURL, err = c.publish(pushCtx); err != nil {
			return cannotRun("publish: %v", err)
		}
	}
	if err := c.summarize(prURL); err != nil {
		fmt.Fprintf(opts.IO.Err, "step summary: %v\n", err)
	}
	return runErr
}

// summarize appends the run's figures to $GITHUB_STEP_SUMMARY, where the
// workflow run's page shows them.
func (c *ciRun) summarize(prURL string) error {
	path := ""
	if c.opts.IO.Getenv != nil {
		path = c.opts.IO.Getenv("GITHUB_STEP_SUMMARY")
	}
	if path == "" {
		return nil
	}
	dispatched, err := c.dispatched()
	if err != nil {
		return err
	}
	requests := 0
	for _, n := range dispatched {
		requests += n
	}
	reserved := 0
	for _, n := range c.lease.Reservations {
		reserved += n
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## TaxKernelBot, shard %s\n\n", c.shard)
	fmt.Fprintf(&b, "- %d request(s) to %d host(s), out of %d reserved under lease `%s`\n", requests, len(dispatched), reserved, c.opts.RunID)
	if prURL != "" {
		fmt.Fprintf(&b, "- pull request: %s\n", prURL)
	} else {
		b.WriteString("- no pull request: nothing meaningful changed (or publishing was off)\n")
	}
	if md, err := os.ReadFile(filepath.Join(c.opts.Reports, "coverage.md")); err == nil {
		// The first lines of the report: its one-line total and summary table.
		lines := strings.SplitN(string(md), "\n## Gaps", 2)[0]
		b.WriteString("\n" + strings.TrimPrefix(lines, "# Coverage\n") + "\n")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// carryPending copies into the local store the held bytes that only the
// unmerged pull request has, so that their validators can be sent (a 304
// instead of the whole document) and the next publish keeps them.
func (c *ciRun) carryPending(ctx context.Context) error {
	st, err := state.Load(c.opts.State)
	if err != nil {
		return err
	}
	s := store.ReadOnly(c.opts.Snapshots)
	var missing []string
	for _, id := range st.SourceIDs() {
		if sum := st.Source(id).SHA256; sum != "" && !s.Has(sum) {
			missing = append(missing, sum)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, tip, err := c.repo.Read(ctx, prBranch)
	if errors.Is(err, gitstore.ErrNoBranch) {
		return nil
	}
	if err != nil {
		return err
	}
	if s, err = store.Open(c.opts.Snapshots); err != nil {
		return err
	}
	for _, sum := range missing {
		data, err := fs.ReadFile(tip, "snapshots/sha256/"+sum[:2]+"/"+sum)
		if errors.Is(err, fs.ErrNotExist) {
			continue // neither here nor there: the next check fetches it whole
		}
		if err != nil {
			return err
		}
		if got, _, err := s.Put(ctx, bytes.NewReader(data)); err != nil {
			return err
		} else if got != sum {
			return fmt.Errorf("%s holds bytes that hash to %s under %s", prBranch, got, sum)
		}
	}
	return nil
}

// want is the number of requests the run would like per host: its due
// sources, robots.txt, and room for redirect hops.
func (c *ciRun) want(ctx context.Context) (map[string]int, error) {
	st, err := state.Load(c.opts.State)
	if err != nil {
		return nil, cannotRun("%v", err)
	}
	res, err := pipeline.Run(ctx, pipeline.Options{
		Set: c.set, Store: store.ReadOnly(c.opts.Snapshots), Index: store.NewIndex(), State: st,
		Clock: c.opts.Clock, Only: c.opts.Only, DryRun: true, Hosts: c.shard.Owns,
	})
	if err != nil {
		return nil, cannotRun("%v", err)
	}
	want := map[string]int{}
	for _, p := range res.Planned {
		if want[p.Host] == 0 {
			want[p.Host] = 1 // robots.txt
		}
		want[p.Host] += 2 // the document and one redirect hop
	}
	return want, nil
}

func (c *ciRun) signature(what string) (gitstore.Signature, string) {
	return gitstore.Signature{Name: "TaxKernelBot", Email: "bot@taxkernel.com", When: c.opts.Clock.Now().UTC().Truncate(time.Second)},
		fmt.Sprintf("%s: shard %s, run %s", what, c.shard.Name(), c.opts.RunID)
}

// acquire takes the shard's lease, reserving out of what today's caps have
// left once every other run's ledger lines and reservations are counted.
func (c *ciRun) acquire(ctx context.Context, want map[string]int) error {
	sig, msg := c.signature("lease")
	now := c.opts.Clock.Now()
	self := lease.ID{RunID: c.opts.RunID, Holder: c.opts.Holder, Shard: c.shard.Name()}
	_, err := c.repo.Update(ctx, cacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		files, err := leaseFiles(tip)
		if err != nil {
			return nil, err
		}
		leases, err := lease.DecodeAll(files)
		if err != nil {
			return nil, err
		}
		caps, usage := map[string]int{}, map[string]lease.Usage{}
		for host := range want {
			caps[host] = c.set.Host(host).DailyCap
			data, err := fs.ReadFile(tip, ledgerPath(c.day, host))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			if usage[host], err = lease.CountLedger(data, host); err != nil {
				return nil, err
			}
		}
		l, err := lease.Acquire(files[lease.Path(c.shard.Name())], lease.Request{
			RunID: self.RunID, Holder: self.Holder, Shard: self.Shard,
			TTL:  c.opts.MaxDuration + 2*c.opts.Margin,
			Want: want, Remaining: lease.Remaining(c.day, caps, usage, leases, self, now),
		}, now)
		if err != nil {
			return nil, err
		}
		c.lease = l
		return []gitstore.Change{{Path: lease.Path(c.shard.Name()), Data: l.Encode()}}, nil
	}, 0)
	if errors.Is(err, lease.ErrHeld) {
		return cannotRun("%v: another run is fetching shard %s; nothing was requested", err, c.shard)
	}
	if err != nil {
		return cannotRun("take the lease of shard %s: %v", c.shard, err)
	}
	return nil
}
