package cycle

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/publish"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

var (
	chaosSeed  = flag.Uint64("chaos.seed", 0, "run TestMonthOfChaos with this seed only")
	chaosSeeds = flag.Int("chaos.seeds", 1, "run TestMonthOfChaos with seeds 1 to N")
	// The default run lives a week and a day, which crosses a week's
	// UTC days and every kind of step many times over in about a minute;
	// .ci/run lives the whole month in a step of its own.
	chaosDays = flag.Int("chaos.days", 8, "the days TestMonthOfChaos lives (30: the whole month)")
)

// TestMonthOfChaos lives a month of a repository with 2 to 4 shards, one of
// which owns no host (it only publishes what the others pushed), on a real
// git server and the GitHub fake, driven by a seeded random schedule:
// shards that interleave at every point of their cycles, merges of every
// kind, reviewers closing pull requests, both branches deleted, failed
// pushes and their re-runs, and runners killed after the lease, mid-fetch,
// between the cache push and the pull request, and between the branch push
// and the pull request's edit. After every step it asserts: every hash a
// branch's index, report or state names is held; no ledger line the cache
// branch had is lost; no host got more requests in a UTC day than its cap;
// no pull request proposes less than main holds; the cache branch's record
// of the open pull request names it, the bot branch's real head and what
// that head proposes (once a cycle has published since a runner was killed
// after its branch push, or since the cache branch was lost). A failure
// prints the seed
// (go test -run TestMonthOfChaos -chaos.seed N ./internal/cycle; more
// seeds with -chaos.seeds N). By default it lives 8 days; the whole month
// is -chaos.days 30, which .ci/run runs as a step of its own.
func TestMonthOfChaos(t *testing.T) {
	t.Parallel()
	for _, seed := range chaosSeedList() {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			w := newChaos(t, seed)
			w.month(*chaosDays)
			t.Logf("seed %d: %d shards (%d/%d owns no host), %d steps, %d cycles (%d nested in another's, %d killed, %d re-runs, %d could not run), "+
				"%d merges, %d closes, %d branch deletions, %d invariant checks",
				seed, w.shards, w.empty, w.shards, w.steps, w.cycles, w.nested, w.killed, w.reruns, w.refused, w.merges, w.closes, w.deletions, w.checks)
		})
	}
}

// TestMonthOfChaosWithStores lives the month of TestMonthOfChaos with the
// bytes kept in stores (the repository's release assets and a bucket)
// rather than in main, the bucket refusing saves in a random tenth of the
// cycles: besides the invariants above, no branch ever carries a blob, and
// every hash a branch cites is in every store (or main) after every step.
func TestMonthOfChaosWithStores(t *testing.T) {
	t.Parallel()
	for _, seed := range chaosSeedList() {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			w := newChaos(t, seed)
			w.stores = true
			withStores(t, w.r, func() bool { return w.outage })
			w.month(*chaosDays)
			t.Logf("seed %d: %d steps, %d cycles (%d killed, %d in a store's outage), %d merges, %d invariant checks",
				seed, w.steps, w.cycles, w.killed, w.outages, w.merges, w.checks)
		})
	}
}

// chaosSeedList is the seeds the flags ask for: -chaos.seed alone, else 1
// to -chaos.seeds.
func chaosSeedList() []uint64 {
	if *chaosSeed != 0 {
		return []uint64{*chaosSeed}
	}
	var seeds []uint64
	for s := range *chaosSeeds {
		seeds = append(seeds, uint64(s+1))
	}
	return seeds
}

type chaos struct {
	t *testing.T
	// stores: the bytes are kept in stores (the release assets and a
	// bucket), not main; outage: the bucket refuses saves this cycle.
	stores, outage bool
	outages        int
	r              *repo
	rng            *rand.Rand
	seed           uint64
	shards         int
	// seen: every ledger line the cache branch has held since it was last
	// recreated from nothing.
	seen    map[string]bool
	reruns_ []rerun
	// empty is the shard that owns no host.
	empty int
	// unsettled: a runner was killed between its push of the bot branch
	// and its pull request, or the cache branch was lost, and no cycle has
	// published since: the record of the pull request may not be true yet.
	unsettled bool

	steps, cycles, nested, killed, reruns, refused, merges, closes, deletions, checks int
}

// rerun is a workflow run whose final push failed: a maintainer re-runs
// it, and the re-run gets the state directory back.
type rerun struct {
	shard, run string
	state      string
}

type killed struct{ where string }

func newChaos(t *testing.T, seed uint64) *chaos {
	ids := []string{"t-a", "t-b", "t-c", "t-d", "t-e", "t-f", "t-g", "t-h"}
	r := newRepo(t, ids...)
	r.dailyCap = 4
	r.sent = map[string]int{}
	r.gitCache = t.TempDir()
	// The hosts avoid one shard, which then has nothing to fetch.
	shards := 2 + int(seed%3)
	empty := lease.Shard{K: 1 + int(seed/3%uint64(shards)), N: shards}
	for j := 0; len(r.hosts) < len(ids); j++ {
		if host := fmt.Sprintf("tax%d.example.gov", j); !empty.Owns(host) {
			r.hosts = append(r.hosts, host)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed*7919))
	return &chaos{t: t, r: r, rng: rng, seed: seed, shards: shards, empty: empty.K, seen: map[string]bool{}}
}

func (w *chaos) fatalf(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf("seed %d, step %d: %s", w.seed, w.steps, fmt.Sprintf(format, args...))
}

func (w *chaos) month(days int) {
	start := w.r.now
	for w.r.now.Before(start.Add(time.Duration(days) * 24 * time.Hour)) {
		w.steps++
		w.world()
		w.people()
		for len(w.reruns_) > 0 {
			rr := w.reruns_[0]
			w.reruns_ = w.reruns_[1:]
			w.cycle(rr.shard, &rr, 0)
		}
		for _, i := range w.rng.Perm(w.shards) {
			w.cycle(fmt.Sprintf("%d/%d", i+1, w.shards), nil, 0)
		}
		w.check()
		step := 9 * time.Hour
		if raceEnabled { // the same month in fewer, longer steps
			step = 16 * time.Hour
		}
		w.r.now = w.r.now.Add(step + time.Duration(w.rng.IntN(240))*time.Minute)
	}
}

// world: the authorities publish new editions, and pages go and come back.
func (w *chaos) world() {
	for _, id := range w.r.ids {
		switch x := w.rng.IntN(100); {
		case x < 12:
			w.r.docs[id] = fmt.Sprintf("%s rates, edition %d", id, w.steps)
		case x < 14:
			w.r.docs[id] = ""
		}
	}
}

// people: reviewers, maintainers and contributors.
func (w *chaos) people() {
	r, t := w.r, w.t
	prs := r.gh.PRs()
	var open *githubPR
	for i := range prs {
		if prs[i].State == "open" {
			open = &githubPR{prs[i].Number}
		}
	}
	switch x := w.rng.IntN(100); {
	case x < 30 && open != nil && r.tip(botrepo.BotBranch) != "":
		w.merges++
		w.merge(open.n, []string{"squash", "merge", "rebase"}[w.rng.IntN(3)])
	case x < 38 && open != nil:
		w.closes++
		r.gh.Close(open.n)
	case x < 42:
		if last := len(prs); last > 0 && prs[last-1].State == "closed" && !prs[last-1].Merged {
			r.gh.AddLabel(prs[last-1].Number, publish.ReproposeLabel)
		}
	case x < 47 && r.tip(botrepo.BotBranch) != "":
		w.deletions++
		r.git.Git(t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.BotBranch)
		r.gh.HeadDeletedFor(botrepo.BotBranch)
	case x < 50 && r.tip(botrepo.CacheBranch) != "":
		w.deletions++
		r.git.Git(t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.CacheBranch)
		if w.rng.IntN(2) == 0 {
			must(t, os.RemoveAll(r.gitCache)) // and the Actions cache expired
			must(t, os.MkdirAll(r.gitCache, 0o755))
		}
		w.seen = map[string]bool{} // what it held is known only as far as it is recovered
		w.unsettled = true
	case x < 56:
		r.git.Commit(t, repoName, "main", "README: a contributor's edit", map[string][]byte{"README.md": []byte(fmt.Sprintf("tax %d\n", w.steps))})
	}
}

type githubPR struct{ n int }

// merge merges pull request n as GitHub's three buttons do, then (mostly)
// deletes the head branch as GitHub's setting does.
func (w *chaos) merge(n int, how string) {
	r, t := w.r, w.t
	tree, err := r.git.Run(repoName, "merge-tree", "--write-tree", "main", botrepo.BotBranch)
	if err != nil {
		w.fatalf("pull request #%d does not merge cleanly into main: %v", n, err)
	}
	var commit string
	switch how {
	case "merge":
		commit = r.git.Git(t, repoName, "commit-tree", tree, "-p", "main", "-p", botrepo.BotBranch, "-m", fmt.Sprintf("Merge pull request #%d", n))
	case "rebase": // the bot's commit replayed on main, the bot its author
		commit = r.git.Git(t, repoName, "-c", "user.name="+botrepo.BotName, "-c", "user.email="+botrepo.BotEmail, "commit-tree", tree, "-p", "main", "-m", "snapshots and coverage")
	default:
		commit = r.git.Git(t, repoName, "commit-tree", tree, "-p", "main", "-m", fmt.Sprintf("TaxKernelBot coverage update (#%d)", n))
	}
	r.git.Git(t, repoName, "update-ref", "refs/heads/main", commit)
	r.gh.Merge(n)
	if w.rng.IntN(4) > 0 {
		r.git.Git(t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.BotBranch)
	}
}

// hooked runs do at one point of a cycle's talk with GitHub: "latest"
// (after the cache push, before the pull request is looked at), "ensure"
// or "edit" (after the bot branch was pushed, before the pull request is
// opened or edited).
type hooked struct {
	publish.PullRequests
	at   string
	do   func()
	done bool
}

func (h *hooked) fire(at string) {
	if !h.done && h.at == at {
		h.done = true
		h.do()
	}
}

func (h *hooked) LatestPR(ctx context.Context, head string) (*github.PRState, error) {
	h.fire("latest")
	return h.PullRequests.LatestPR(ctx, head)
}

func (h *hooked) EnsurePR(ctx context.Context, pr github.PR) (int, string, bool, error) {
	h.fire("ensure")
	return h.PullRequests.EnsurePR(ctx, pr)
}

func (h *hooked) EditPR(ctx context.Context, number int, title, body string) error {
	h.fire("edit")
	return h.PullRequests.EditPR(ctx, number, title, body)
}

var hookPoints = []string{"latest", "ensure", "edit"}

// cycle runs one cycle of shard, or the re-run rr; with some chance it
// runs another shard's whole cycle inside it, or kills its runner.
func (w *chaos) cycle(shard string, rr *rerun, depth int) {
	r := w.r
	w.cycles++
	o, log := r.options(shard)
	if rr != nil {
		w.reruns++
		must(w.t, os.RemoveAll(o.State))
		must(w.t, os.CopyFS(o.State, os.DirFS(rr.state)))
		o.RunID = rr.run + "-2"
	}
	o.PushAttempts = 2
	if w.stores {
		if w.outage = w.rng.IntN(10) == 0; w.outage {
			w.outages++
		}
		defer func() { w.outage = false }()
	}
	run := r.runner(&o)
	o.Run = run
	fail := false
	killedAt := ""
	switch x := w.rng.IntN(100); {
	case x < 3: // killed just after taking the lease
		o.Run = func(context.Context, pipeline.Limits) error { panic(killed{"after the lease"}) }
	case x < 6: // killed mid-fetch, after some requests
		after := 1 + w.rng.IntN(3)
		o.Run = func(ctx context.Context, lim pipeline.Limits) error {
			n, progress := 0, lim.Progress
			lim.Progress = func(r pipeline.Result) {
				if n++; n == after {
					panic(killed{"mid-fetch"})
				}
				progress(r)
			}
			return run(ctx, lim)
		}
	case x < 10: // killed at a point of publishing
		killedAt = hookPoints[w.rng.IntN(len(hookPoints))]
		o.GitHub = &hooked{PullRequests: o.GitHub, at: killedAt, do: func() { panic(killed{"publishing"}) }}
	case x < 13 && rr == nil: // the final push fails
		fail = true
		o.Run = func(ctx context.Context, lim pipeline.Limits) error {
			err := run(ctx, lim)
			r.git.FailPushes(o.PushAttempts)
			return err
		}
	case x < 40 && depth == 0: // another shard runs inside this one
		w.nested++
		other := fmt.Sprintf("%d/%d", 1+w.rng.IntN(w.shards), w.shards)
		at := hookPoints[w.rng.IntN(len(hookPoints))]
		o.GitHub = &hooked{PullRequests: o.GitHub, at: at, do: func() {
			if at != "latest" {
				w.unsettled = true // this one's branch push waits for its pull request
			}
			w.cycle(other, nil, depth+1)
		}}
	}
	err := w.runOne(o)
	var k killed
	switch {
	case errors.As(err, &k):
		w.killed++ // the runner and its directories are gone
		if k.where == "publishing" && killedAt != "latest" {
			w.unsettled = true // the branch may be pushed, the pull request not told
		}
	case fail && errors.Is(err, ErrCannotRun):
		keep := w.t.TempDir()
		must(w.t, os.RemoveAll(keep))
		must(w.t, os.CopyFS(keep, os.DirFS(o.State)))
		must(w.t, os.RemoveAll(filepath.Join(keep, ".gitstore"))) // the artifact leaves it out
		w.reruns_ = append(w.reruns_, rerun{shard: shard, run: strings.TrimSuffix(o.RunID, "-1"), state: keep})
		r.git.FailPushes(0)
	case errors.Is(err, publish.ErrBrokenRecord):
		w.fatalf("shard %s refused to publish a broken record: %v\n%s", shard, err, log)
	case errors.Is(err, lease.ErrHeld):
		w.refused++ // a killed runner's lease has not expired yet
	case err != nil && w.outage && strings.Contains(err.Error(), "503 Service Unavailable"):
		// The store refused: nothing was pushed to the bot branch; the
		// bytes wait on the cache branch for the next cycle.
	case err != nil && !errors.Is(err, ErrCannotRun):
		w.fatalf("shard %s: %v\n%s", shard, err, log)
	case err != nil:
		w.refused++
		if !strings.Contains(err.Error(), "held") && !strings.Contains(err.Error(), "vanished") && !strings.Contains(err.Error(), "moved") {
			w.fatalf("shard %s could not run: %v\n%s", shard, err, log)
		}
	default:
		r.saveGitCache(o)
		w.unsettled = false // it published
	}
	w.check()
}

// runOne runs a cycle and turns a killed runner's panic into an error.
func (w *chaos) runOne(o Options) (err error) {
	defer func() {
		if v := recover(); v != nil {
			k, ok := v.(killed)
			if !ok {
				panic(v)
			}
			err = k
		}
	}()
	_, err = Run(context.Background(), o)
	return err
}

func (k killed) Error() string { return "killed " + k.where }

// check asserts the invariants.
func (w *chaos) check() {
	w.t.Helper()
	r := w.r
	w.checks++
	before := w.t.Failed()
	assertHeld(w.t, r)
	if w.stores {
		for _, branch := range []string{botrepo.BotBranch, botrepo.BaseBranch} {
			if files := blobFiles(r, branch); len(files) > 0 {
				w.fatalf("%s carries blobs: %v", branch, files)
			}
		}
	}
	w.cacheHeld()
	// Every source's current bytes have their text on each branch, at the
	// source's path, or a reason naming them.
	for _, branch := range []string{botrepo.BotBranch, botrepo.BaseBranch} {
		if r.tip(branch) != "" {
			textsCurrent(w.t, r, branch, true)
		}
	}
	w.noLineLost()
	for key, n := range r.sent {
		if n > r.dailyCap {
			w.fatalf("%s got %d requests, over its daily cap of %d", key, n, r.dailyCap)
		}
	}
	w.noRegression()
	if !w.unsettled {
		if msg := recordFalse(w.t, r); msg != "" {
			w.fatalf("%s", msg)
		}
	}
	if !before && w.t.Failed() {
		w.fatalf("an invariant broke")
	}
}

// cacheHeld: every hash the cache branch's state names is held on it
// (pending/), on the bot branch or on main.
func (w *chaos) cacheHeld() {
	r := w.r
	data := r.show(botrepo.CacheBranch, "state.json")
	if data == "" {
		return
	}
	st, err := state.Decode(os.DirFS(exportBranch(w.t, r, botrepo.CacheBranch)))
	must(w.t, err)
	onCache, onMain, onBot := r.files(botrepo.CacheBranch), r.files(botrepo.BaseBranch), r.files(botrepo.BotBranch)
	for _, id := range st.SourceIDs() {
		sum := st.Source(id).SHA256
		if sum == "" {
			continue
		}
		p := "snapshots/" + sum.Path()
		if !onCache[botrepo.PendingPath(p)] && !onMain[p] && !onBot[p] && !(w.stores && heldByAll(w.t, r.stores(clock.NewFake(r.now)), sum)) {
			w.fatalf("%s's state names %s's %.12s, which no branch holds", botrepo.CacheBranch, id, sum)
		}
	}
}

// noLineLost: the cache branch still has every ledger line it had.
func (w *chaos) noLineLost() {
	lines := map[string]bool{}
	out, err := exec.Command("git", "--git-dir", w.r.git.Dir(repoName), "archive", "--format=tar", botrepo.CacheBranch, "ledgers").Output()
	if err == nil {
		tr := tar.NewReader(bytes.NewReader(out))
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			must(w.t, err)
			data, err := io.ReadAll(tr)
			must(w.t, err)
			for _, l := range strings.Split(string(data), "\n") {
				if l != "" {
					lines[h.Name+" "+l] = true
				}
			}
		}
	}
	for l := range w.seen {
		if !lines[l] {
			w.fatalf("%s lost a ledger line: %s", botrepo.CacheBranch, l)
		}
	}
	w.seen = lines
}

// noRegression: an open pull request proposes nothing less than main holds.
func (w *chaos) noRegression() {
	r := w.r
	open := slices.ContainsFunc(r.gh.PRs(), func(p githubtest.PR) bool { return p.State == "open" })
	if !open || r.tip(botrepo.BotBranch) == "" {
		return
	}
	mainIx, botIx := w.index(botrepo.BaseBranch), w.index(botrepo.BotBranch)
	for _, id := range mainIx.IDs() {
		for _, e := range mainIx.Entries(id) {
			if _, ok := botIx.Lookup(id, e.SHA256); !ok {
				w.fatalf("the pull request drops %s's %.12s, which main records", id, e.SHA256)
			}
		}
	}
	onMain, onBot := w.report(botrepo.BaseBranch), w.report(botrepo.BotBranch)
	if onMain == nil || onBot == nil {
		return
	}
	proposed := map[string]report.Entry{}
	for _, e := range onBot.Sources {
		proposed[e.ID] = e
	}
	for _, m := range onMain.Sources {
		if p := proposed[m.ID]; m.Status != state.Pending && p.Status == state.Pending {
			w.fatalf("the pull request sets %s back from %s to pending", m.ID, m.Status)
		}
	}
}

func (w *chaos) index(branch string) *store.Index {
	data := w.r.show(branch, botrepo.IndexJSON)
	if data == "" {
		return store.NewIndex()
	}
	ix, err := store.ParseIndex([]byte(data))
	must(w.t, err)
	return ix
}

func (w *chaos) report(branch string) *report.Report {
	data := w.r.show(branch, botrepo.CoverageJSON)
	if data == "" {
		return nil
	}
	rep, err := report.Parse([]byte(data))
	must(w.t, err)
	return rep
}
