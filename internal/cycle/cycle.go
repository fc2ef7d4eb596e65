package cycle

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/publish"
	"github.com/taxkernel/taxkernelbot/internal/session"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// ErrCannotRun wraps every reason a cycle could not run or finish its
// writes (a lease held by another run, a branch that cannot be read or
// pushed): the command maps it to its "could not run" exit code.
var ErrCannotRun = errors.New("could not run")

func cannot(format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrCannotRun, fmt.Errorf(format, args...))
}

// Runner performs one fetch run in the state directory with the limits
// given (the cycle's own, with the hosts of its shard and, unless it is a
// dry run, the budget its lease reserved, the time the lease lets it send
// until and a Progress that pushes the ledgers), and saves the state, the index and the reports, also when
// interrupted. Its error is returned by Run as it is (exit codes of a run
// belong to the run). It is a seam for tests: the cycle's run is
// session.Run.
type Runner func(ctx context.Context, lim pipeline.Limits) error

// Options configures a cycle.
type Options struct {
	Set                       *manifest.Set
	Snapshots, Reports, State string // the local store, reports and state directories

	// Limits bound the fetch run. Hosts, Spent, Deadline and Progress
	// are the cycle's own, set from its shard and its lease.
	pipeline.Limits
	Shard  lease.Shard
	Holder string
	// Margin is how long before its lease expires a run stops sending
	// (the longest request plus clock skew).
	Margin time.Duration
	// PushEvery: the ledgers are pushed during a run this often, so a
	// runner that dies loses at most that much of the record.
	PushEvery time.Duration
	// PushAttempts: how many times the final push is tried (default 4).
	PushAttempts int
	NoPublish    bool

	Remote gitstore.Remote
	GitHub publish.PullRequests
	Links  github.Config // where blobs and the workflow run are linked from
	// Stores keep the archive's bytes instead of main (publish.Options);
	// nil: the bytes ride in main.
	Stores blobs.Stores
	// Output is where the fetch run prints and the environment it reads.
	Output session.Output
	// Run replaces the fetch run (tests); nil: session.Run.
	Run Runner
	Log io.Writer
	// StepSummary is the file the cycle appends its Markdown summary to
	// ($GITHUB_STEP_SUMMARY), "" for none.
	StepSummary string
}

// Cycle is one cycle in progress. Use Run, or Publish for a run made
// without a lease.
type Cycle struct {
	o    Options
	repo *gitstore.Repo // the cache branch, objects kept on disk
	// pulled is the cache branch's tip as pull read it (nil before).
	pulled fs.FS
	// main is main's record as the last push of the state read it.
	main  *mainRecord
	pub   *publish.Publisher // called once the state is pushed
	day   string
	lease lease.Lease
	notes []string // for the step summary: what a maintainer should know
	mu    sync.Mutex
	// storedSums are the blobs every store was found to hold.
	storedMu   sync.Mutex
	storedSums map[store.Sum]bool

	lastPush time.Time
	gap      time.Duration // until the next ledger push
	jitter   *rand.Rand
	pushing  sync.Mutex
}

// ShardPushGap is how much the gap between one shard's ledger pushes grows
// with each other shard: GitHub asks for at most 6 pushes a minute to a
// repository, and every shard of a matrix pushes to the same one, so N
// shards push their ledgers at most about twice a minute in all, leaving
// room for the leases, releases and the pull request branch.
const ShardPushGap = 30 * time.Second

// pushGap is the time until the next ledger push: PushEvery, at least
// ShardPushGap for each other shard. Shards started together spread their
// pushes over the gap: shard K of N first waits K−1 N-ths of a gap more;
// and each gap is drawn up to a quarter of ShardPushGap longer, so that
// no two runs fall into step.
func (c *Cycle) pushGap() time.Duration {
	gap := max(c.o.PushEvery, time.Duration(c.o.Shard.N-1)*ShardPushGap)
	if c.jitter == nil {
		h := fnv.New64a()
		h.Write([]byte(c.o.RunID + "/" + c.o.Shard.Name()))
		c.jitter = rand.New(rand.NewPCG(h.Sum64(), 1))
		if c.o.Shard.N > 1 {
			gap += gap * time.Duration(c.o.Shard.K-1) / time.Duration(c.o.Shard.N)
		}
	}
	return gap + time.Duration(c.jitter.Int64N(int64(min(gap, ShardPushGap)/4)+1))
}

// open prepares a cycle: the on-disk store of the cache branch's objects
// lives in the state directory (never pushed), so a runner that keeps it
// (an Actions cache) downloads only what is new.
func open(o Options) (*Cycle, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Output.Err == nil {
		o.Output.Err = io.Discard
	}
	if o.PushAttempts <= 0 {
		o.PushAttempts = 4
	}
	repo, err := gitstore.Open(filepath.Join(o.State, ".gitstore"), o.Remote)
	if err != nil {
		return nil, cannot("%v", err)
	}
	c := &Cycle{o: o, repo: repo, day: ledger.Day(o.Clock.Now()), storedSums: map[store.Sum]bool{}}
	// Every partial read opens its own Repo: a fallback is said once a cycle.
	var once sync.Once
	c.o.Remote.Notify = func(msg string) { once.Do(func() { c.note("%s", msg) }) }
	c.pub = publish.New(publish.Options{
		Set: o.Set, Snapshots: o.Snapshots, State: o.State,
		Remote: c.o.Remote, Cache: repo, GitHub: o.GitHub, Links: o.Links, Clock: o.Clock,
		Stores: o.Stores,
		By:     c.by(),
		Log:    o.Log, Note: c.keep,
	})
	return c, nil
}

func (c *Cycle) close() {
	if err := c.repo.Compact(); err != nil {
		c.logf("compacting the local git store: %v (harmless: it is only a cache)", err)
	}
	c.repo.Close()
}

func (c *Cycle) logf(format string, args ...any) {
	fmt.Fprintf(c.o.Log, format+"\n", args...)
}

// note logs a line and keeps it for the step summary.
func (c *Cycle) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.logf("%s", msg)
	c.keep(msg)
}

// keep keeps a line for the step summary.
func (c *Cycle) keep(msg string) {
	c.mu.Lock()
	c.notes = append(c.notes, msg)
	c.mu.Unlock()
}

// by names this cycle in the messages of its commits.
func (c *Cycle) by() string { return fmt.Sprintf("shard %s, run %s", c.o.Shard.Name(), c.o.RunID) }

func (c *Cycle) signature(what string) (gitstore.Signature, string) {
	return botrepo.Signature(c.o.Clock.Now()), what + ": " + c.by()
}

// Outcome is what a cycle did, for its caller and the step summary.
type Outcome struct {
	Requests int    // requests this run dispatched
	Hosts    int    // hosts it sent to
	Reserved int    // requests its lease reserved
	PR       string // the pull request opened or updated, "" when none
}

// Run performs one whole cycle. The error of the fetch run is returned as
// it is; a failure of the cycle's own work wraps ErrCannotRun. The final
// push is never cut short by ctx: what was dispatched must reach the branch.
func Run(ctx context.Context, o Options) (Outcome, error) {
	c, err := open(o)
	if err != nil {
		return Outcome{}, err
	}
	defer c.close()
	var out Outcome
	runErr, err := c.fetch(ctx, &out)
	if err != nil {
		c.summarize(out)
		return out, err
	}
	if !o.DryRun && !o.NoPublish {
		url, st, err := c.pub.Publish(context.WithoutCancel(ctx))
		if err != nil {
			c.summarize(out)
			return out, cannot("publish: %v", err)
		}
		out.PR = url
		// Failure issues are best-effort: the pull request is the record.
		if err := c.pub.FailureIssues(context.WithoutCancel(ctx), st); err != nil {
			c.note("issues for sources failing for days: %v; nothing else is affected", err)
		}
	}
	c.summarize(out)
	return out, runErr
}

// Publish is the second half of a cycle for a run made with a plain `run`
// (no lease: use it only where no other run can overlap): push today's
// ledgers and the state to the cache branch, then publish.
func Publish(ctx context.Context, o Options) (string, error) {
	c, err := open(o)
	if err != nil {
		return "", err
	}
	defer c.close()
	if err := c.pushState(ctx, "state", nil); err != nil {
		return "", cannot("push %s: %v", botrepo.CacheBranch, botrepo.ExplainGit(err))
	}
	url, _, err := c.pub.Publish(ctx)
	if err != nil {
		return "", cannot("publish: %v", err)
	}
	return url, nil
}

// fetch is the first half of a cycle: pull, lease, run, push, release.
// runErr is the fetch run's own error; err a failure of the cycle.
func (c *Cycle) fetch(ctx context.Context, out *Outcome) (runErr, err error) {
	halted, err := c.pull(ctx)
	if err != nil {
		return nil, cannot("pull %s: %v", botrepo.CacheBranch, botrepo.ExplainGit(err))
	}
	if err := c.carryPending(ctx); err != nil {
		return nil, cannot("carry the blobs of %s: %v", botrepo.BotBranch, botrepo.ExplainGit(err))
	}
	if c.o.DryRun {
		lim := c.o.Limits
		lim.Hosts = c.o.Shard.Owns
		return c.run(ctx, lim), nil
	}
	if halted != "" {
		c.note("no request this run: %s", halted)
		return nil, nil
	}
	want, err := c.want(ctx)
	if err != nil {
		return nil, cannot("plan: %v", err)
	}
	if err := c.acquire(ctx, want); err != nil {
		return nil, err
	}
	for _, n := range c.lease.Reservations {
		out.Reserved += n
	}
	c.logf("lease %s taken until %s for %d host(s)", c.o.Shard.Name(), c.lease.Expires.UTC().Format(time.RFC3339), len(c.lease.Reservations))
	c.lastPush = c.o.Clock.Now()
	lim := c.o.Limits
	lim.Hosts = c.o.Shard.Owns
	lim.Spent = c.lease.GateSpent(func(host string) int { return c.o.Set.Host(host).DailyCap })
	lim.Deadline = c.lease.StopBy(c.o.Margin)
	lim.Progress = func(pipeline.Result) { c.pushIfDue(ctx) }
	runErr = c.run(ctx, lim)
	c.pushing.Lock()
	//lint:ignore SA2001 taking the lock is how to wait for a push under way
	c.pushing.Unlock()
	if dispatched, err := c.dispatched(); err == nil {
		for _, n := range dispatched {
			out.Requests += n
			out.Hosts++
		}
	}
	if err := c.pushFinal(context.WithoutCancel(ctx)); err != nil {
		return runErr, err
	}
	return runErr, nil
}

// run is the fetch run: o.Run when set, else a session in the cycle's
// directories.
func (c *Cycle) run(ctx context.Context, lim pipeline.Limits) error {
	if c.o.Run != nil {
		return c.o.Run(ctx, lim)
	}
	_, err := session.Run(ctx, session.Options{
		Dirs:   session.Dirs{Snapshots: c.o.Snapshots, Reports: c.o.Reports, State: c.o.State},
		Output: c.o.Output,
		Set:    c.o.Set, Limits: lim,
		Outputs: func(set *manifest.Set, st *state.State, ix *store.Index) session.RunOutputs {
			d := outputs.Dirs{Snapshots: c.o.Snapshots, Reports: c.o.Reports, Ledgers: filepath.Join(c.o.State, "ledgers")}
			return outputs.Start(d, c.o.Output.Getenv, set, st, ix)
		},
	})
	if err != nil && !errors.Is(err, session.ErrFailures) && !errors.Is(err, session.ErrInterrupted) {
		// Said now, not only at the end: the cycle pushes the ledgers
		// anyway, as what was dispatched must reach the branch.
		fmt.Fprintf(c.o.Output.Err, "run: %v\n", err)
	}
	return err
}

// pushIfDue pushes the ledgers when PushEvery has passed since the last
// push. It is called from the run's goroutines after each request; one
// push at a time, and a caller never waits for another's push.
func (c *Cycle) pushIfDue(ctx context.Context) {
	if c.o.PushEvery <= 0 || !c.pushing.TryLock() {
		return
	}
	defer c.pushing.Unlock()
	now := c.o.Clock.Now()
	if c.gap == 0 {
		c.gap = c.pushGap()
	}
	if now.Sub(c.lastPush) < c.gap {
		return
	}
	c.lastPush, c.gap = now, c.pushGap()
	if err := c.pushLedgers(ctx); err != nil && ctx.Err() == nil {
		c.logf("push ledgers: %v (retried at the next push)", err)
	}
}
