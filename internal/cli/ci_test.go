package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/gitstore/gittest"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// pipelineRepo is a repository on a real git server plus a fake GitHub API
// in front of it: what `taxkernelbot ci` sees in GitHub Actions.
type pipelineRepo struct {
	git *gittest.Server
	gh  *githubtest.Fake
	env map[string]string
}

func newPipelineRepo(t *testing.T) *pipelineRepo {
	git := gittest.New(t, "x-access-token", "tok")
	git.NewRepo(t, "acme/tax.git")
	git.Commit(t, "acme/tax.git", "main", "start", map[string][]byte{"README.md": []byte("tax\n")})
	gh := githubtest.New(t, "acme", "tax", "tok")
	return &pipelineRepo{git: git, gh: gh, env: map[string]string{
		"GITHUB_REPOSITORY": "acme/tax", "GITHUB_SERVER_URL": git.URL, "GITHUB_API_URL": gh.URL,
		"GITHUB_TOKEN": "tok", "GITHUB_RUN_ID": "100", "GITHUB_RUN_ATTEMPT": "1",
	}}
}

// ci runs `taxkernelbot ci` in w as run runID.
func (p *pipelineRepo) ci(w *workspace, runID string, extra ...func(*ciOptions)) int {
	w.t.Helper()
	opts := ciOptions{
		paths: w.paths, Shard: "1/1", Limits: pipeline.Limits{MaxDuration: time.Minute, RunID: runID}, Holder: "test/" + runID,
		PushEvery: time.Hour, Margin: 5 * time.Second,
		IO: IO{Out: &w.out, Err: &w.out, Getenv: func(k string) string { return p.env[k] }},
	}
	for _, f := range extra {
		f(&opts)
	}
	err := runCI(ctx, opts)
	if err != nil {
		fmt.Fprintf(&w.out, "ci: %v\n", err)
	}
	return exitCode(err)
}

func (p *pipelineRepo) file(t *testing.T, branch, path string) string {
	t.Helper()
	out, err := p.git.Run("acme/tax.git", "show", branch+":"+path)
	if err != nil {
		return ""
	}
	return out
}

// seedMainReport commits to main the report a repository starts with:
// every source of w's manifests pending.
func (p *pipelineRepo) seedMainReport(t *testing.T, w *workspace) {
	set, diags := manifest.Load(w.Manifests)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	js, err := report.Build(set, state.New()).JSON()
	must(t, err)
	p.git.Commit(t, "acme/tax.git", "main", "reports", map[string][]byte{"reports/coverage.json": js})
}

func TestCIFullLoop(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	version := "v1"
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates": func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			v := version
			mu.Unlock()
			etag := `"` + v + `"`
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, "income tax rates 2026 "+v)
		},
		"/gone": status(404),
	})
	const etag = `"v1"`
	p := newPipelineRepo(t)
	sources := []src{{"t-rates", a.url("/rates"), ""}, {"t-gone", a.url("/gone"), ""}}
	p.seedMainReport(t, newWorkspace(t, testPolicy, "", sources...))

	w1 := newWorkspace(t, testPolicy, "", sources...)
	summary := filepath.Join(t.TempDir(), "summary.md")
	p.env["GITHUB_STEP_SUMMARY"] = summary
	if code := p.ci(w1, "100-1"); code != ExitOK {
		t.Fatalf("first ci: exit %d\n%s", code, w1.out.String())
	}
	delete(p.env, "GITHUB_STEP_SUMMARY")
	sum, _ := os.ReadFile(summary)
	for _, want := range []string{"shard 1/1", "3 request(s) to 1 host(s)", "pull request: " + p.gh.URL + "/acme/tax/pull/1", "| test |"} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("step summary lacks %q:\n%s", want, sum)
		}
	}
	// The cache branch holds the ledger, the state and the released lease.
	day := ledger.Day(time.Now())
	led := p.file(t, botrepo.CacheBranch, "ledgers/"+day+"/"+ledger.FileName(a.host()))
	if strings.Count(led, `"event":"dispatch"`) != 3 {
		t.Errorf("cache branch ledger has %d dispatch lines, want 3:\n%s", strings.Count(led, `"event":"dispatch"`), led)
	}
	if !strings.Contains(p.file(t, botrepo.CacheBranch, "state.json"), `"t-rates"`) {
		t.Error("cache branch has no state for t-rates")
	}
	l, err := lease.Decode([]byte(p.file(t, botrepo.CacheBranch, lease.Path("1-of-1"))))
	if err != nil || !l.Released || l.Dispatched[a.host()] != 3 {
		t.Errorf("lease after the run: %+v, %v; want released with 3 dispatched", l, err)
	}
	// The rolling branch holds the index and the report; the blob is a
	// release asset of the repository, uploaded before the branch cites
	// it; one PR.
	e := w1.report()["t-rates"]
	if p.file(t, botrepo.BotBranch, "snapshots/sha256/"+e.SHA256[:2]+"/"+e.SHA256) != "" {
		t.Error("the rolling branch carries the blob: it belongs in the release assets")
	}
	if rels := p.gh.Releases(); len(rels) != 1 || len(rels[0].Assets) != 1 || rels[0].Assets[0].Name != e.SHA256 || string(rels[0].Assets[0].Data) != "income tax rates 2026 v1" {
		t.Errorf("release assets %+v, want the new blob as the one asset of one release", rels)
	}
	if !strings.Contains(p.file(t, botrepo.BotBranch, "snapshots/index.json"), e.SHA256) {
		t.Error("the rolling branch's index lacks the new hash")
	}
	if !strings.Contains(p.file(t, botrepo.BotBranch, "reports/coverage.json"), `"t-gone"`) {
		t.Error("the rolling branch lacks the report")
	}
	// The releases are listed once, when the cycle asks whether the stores
	// hold the new bytes before it pushes them to the cache branch.
	want := []string{"GET /repos/acme/tax/releases", "GET /repos/acme/tax/pulls", "POST /repos/acme/tax/releases", "GET /repos/acme/tax/releases/1/assets", "POST /repos/acme/tax/releases/1/assets",
		"GET /repos/acme/tax/pulls", "POST /repos/acme/tax/pulls", "POST /repos/acme/tax/issues/1/labels", "GET /repos/acme/tax/issues"}
	if got := p.gh.Calls(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("GitHub calls %v, want %v", got, want)
	}
	body := p.gh.PRs()[0].Body
	for _, s := range []string{"t-rates", "t-gone"} {
		if !strings.Contains(body, s) {
			t.Errorf("PR body does not mention %s", s)
		}
	}
	t.Logf("pull request body:\n%s", body)
	prTip, _ := p.git.Run("acme/tax.git", "rev-parse", botrepo.BotBranch)

	// A second run on a fresh checkout of main: the blob waiting in the PR is
	// carried, its validator sent, the server answers 304, nothing changes.
	w2 := newWorkspace(t, testPolicy, "", sources...)
	if code := p.ci(w2, "101-1"); code != ExitOK {
		t.Fatalf("second ci: exit %d\n%s", code, w2.out.String())
	}
	var cond int
	for _, s := range a.seen() {
		if s.Path == "/rates" && s.Header.Get("If-None-Match") == etag {
			cond++
		}
	}
	if cond != 1 {
		t.Errorf("second run sent %d conditional requests for /rates, want 1", cond)
	}
	if tip, _ := p.git.Run("acme/tax.git", "rev-parse", botrepo.BotBranch); tip != prTip {
		t.Errorf("a quiet run moved the rolling branch")
	}
	first := len(want)
	if got := p.gh.Calls()[first:]; strings.Join(got, ",") != "GET /repos/acme/tax/releases,GET /repos/acme/tax/releases/1/assets,GET /repos/acme/tax/pulls,GET /repos/acme/tax/issues" {
		t.Errorf("second run's GitHub calls: %v, want only reads (no new PR, no edit)", got)
	}
	second := len(p.gh.Calls())
	led = p.file(t, botrepo.CacheBranch, "ledgers/"+day+"/"+ledger.FileName(a.host()))
	if strings.Count(led, `"event":"dispatch"`) != 5 {
		t.Errorf("the ledger has %d dispatch lines after two runs, want 5 (the robots.txt copy is kept)", strings.Count(led, `"event":"dispatch"`))
	}
	// A reviewer merges the pull request (a fast-forward; GitHub deletes the
	// branch). Then the document changes: the next run opens a new pull
	// request that shows the change against main.
	p.git.Git(t, "acme/tax.git", "update-ref", "refs/heads/main", prTip)
	p.git.Git(t, "acme/tax.git", "update-ref", "-d", "refs/heads/"+botrepo.BotBranch)
	p.gh.Merge(1)
	mu.Lock()
	version = "v2"
	mu.Unlock()
	w3 := newWorkspace(t, testPolicy, "", sources...)
	if code := p.ci(w3, "102-1"); code != ExitOK {
		t.Fatalf("third ci: exit %d\n%s", code, w3.out.String())
	}
	if got := p.gh.Calls()[second:]; strings.Join(got, ",") != strings.Join([]string{"GET /repos/acme/tax/releases", "GET /repos/acme/tax/releases/1/assets",
		"GET /repos/acme/tax/pulls", "POST /repos/acme/tax/releases/1/assets",
		"GET /repos/acme/tax/pulls", "POST /repos/acme/tax/pulls", "POST /repos/acme/tax/issues/2/labels", "GET /repos/acme/tax/issues"}, ",") {
		t.Errorf("third run's GitHub calls: %v, want two lists, the new blob uploaded to the month's release, a create, labels and the issues list", got)
	}
	e3 := w3.report()["t-rates"]
	last := p.gh.PRs()[1].Body
	if !strings.Contains(last, "Documents that changed (1)") || !strings.Contains(last, e.SHA256[:12]) || !strings.Contains(last, e3.SHA256[:12]) {
		t.Errorf("the new body does not show the change %s → %s", e.SHA256[:12], e3.SHA256[:12])
	}
	if rels := p.gh.Releases(); len(rels) != 1 || len(rels[0].Assets) != 2 || rels[0].Assets[1].Name != e3.SHA256 {
		t.Errorf("the release assets lack the new blob %s: %+v", e3.SHA256[:12], rels)
	}
	t.Logf("pull request body after the document changed:\n%s", last)

	// The branch only moved forward.
	for _, u := range p.git.RefLog(t, "acme/tax.git", "refs/heads/"+botrepo.CacheBranch) {
		if u.Old != strings.Repeat("0", 40) {
			if _, err := p.git.Run("acme/tax.git", "merge-base", "--is-ancestor", u.Old, u.New); err != nil {
				t.Errorf("cache branch moved from %s to %s, not a descendant: a forced update", u.Old, u.New)
			}
		}
	}
}

func TestCILeaseHeldExit3WithoutRequest(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/": text("x")})
	p := newPipelineRepo(t)
	now := time.Now()
	held, err := lease.Acquire(nil, lease.Request{RunID: "99-1", Holder: "elsewhere", Shard: "1-of-1", TTL: time.Hour,
		Want: map[string]int{a.host(): 5}, Remaining: map[string]int{a.host(): 5}}, now)
	must(t, err)
	p.git.Commit(t, "acme/tax.git", botrepo.CacheBranch, "lease", map[string][]byte{lease.Path("1-of-1"): held.Encode()})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	if code := p.ci(w, "100-1"); code != ExitCannot {
		t.Fatalf("exit %d, want 3 while another run holds the lease\n%s", code, w.out.String())
	}
	if len(a.seen()) != 0 {
		t.Fatalf("a request was made while another run held the lease: %v", a.paths())
	}
	if !strings.Contains(w.out.String(), "elsewhere") {
		t.Errorf("the message does not say who holds the lease:\n%s", w.out.String())
	}
}

func TestCITwoRunsRaceForOneLease(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			<-release // hold the first run inside its lease until the other has tried
			http.NotFound(w, r)
		},
		"/doc": text("x"),
	})
	p := newPipelineRepo(t)
	w1 := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	w2 := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	codes := make(chan int, 2)
	for i, w := range []*workspace{w1, w2} {
		go func() {
			code := p.ci(w, fmt.Sprintf("10%d-1", i), func(o *ciOptions) { o.NoPublish = true })
			if code == ExitCannot {
				once.Do(func() { close(release) })
			}
			codes <- code
		}()
	}
	got := []int{<-codes, <-codes}
	if !(got[0] == ExitOK && got[1] == ExitCannot || got[0] == ExitCannot && got[1] == ExitOK) {
		t.Fatalf("exit codes %v, want one 0 and one 3\n--- run 1:\n%s\n--- run 2:\n%s", got, w1.out.String(), w2.out.String())
	}
	if n := a.count("/robots.txt") + a.count("/doc"); n != 2 {
		t.Fatalf("server saw %v: exactly one run may dispatch", a.paths())
	}
}

func TestCIKilledRunKeepsItsReservationSpent(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	p := newPipelineRepo(t)
	pol := strings.Replace(testPolicy, "daily_cap: 100", "daily_cap: 10", 1)
	// A run reserved 6 requests, sent 2 (pushed), then its runner died. A
	// fixed noon on the injected clock keeps all of it on one UTC day.
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	dead, err := lease.Acquire(nil, lease.Request{RunID: "98-1", Holder: "dead", Shard: "1-of-1", TTL: time.Minute,
		Want: map[string]int{a.host(): 6}, Remaining: map[string]int{a.host(): 10}}, now.Add(-2*time.Minute))
	must(t, err)
	var led strings.Builder
	for i := range 2 {
		b, _ := json.Marshal(ledger.Line{Event: ledger.Dispatch, Time: now.Add(-time.Minute).UTC(), Host: a.host(), URL: a.url(fmt.Sprintf("/x%d", i)), Purpose: "document", RunID: "98-1"})
		led.Write(append(b, '\n'))
	}
	p.git.Commit(t, "acme/tax.git", botrepo.CacheBranch, "dead run", map[string][]byte{
		lease.Path("1-of-1"): dead.Encode(),
		"ledgers/" + ledger.Day(now) + "/" + ledger.FileName(a.host()): []byte(led.String()),
	})
	var srcs []src
	for i := range 8 {
		srcs = append(srcs, src{fmt.Sprintf("t-%d", i), a.url(fmt.Sprintf("/doc%d", i)), ""})
	}
	w := newWorkspace(t, pol, "", srcs...)
	p.ci(w, "100-1", func(o *ciOptions) { o.NoPublish = true; o.Clock = clock.NewFake(now) })
	if n := len(a.seen()); n != 4 {
		t.Fatalf("server saw %d requests, want 4: cap 10 minus the dead run's reservation of 6", n)
	}
}

func TestCIShardsTouchEveryHostOnce(t *testing.T) {
	p := newPipelineRepo(t)
	var auths []*authority
	var srcs []src
	for i := range 6 {
		a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
		auths = append(auths, a)
		srcs = append(srcs, src{fmt.Sprintf("t-%d", i), a.url("/doc"), ""})
	}
	w1 := newWorkspace(t, testPolicy, "", srcs...)
	w2 := newWorkspace(t, testPolicy, "", srcs...)
	p.ci(w1, "100-1", func(o *ciOptions) { o.Shard = "1/2" })
	p.ci(w2, "100-1", func(o *ciOptions) { o.Shard = "2/2" })
	for _, a := range auths {
		if got := a.count("/doc"); got != 1 {
			t.Errorf("%s: document requested %d times by shards 1/2 and 2/2, want once", a.host(), got)
		}
	}
	// The last shard to publish reports what every shard fetched.
	cov := p.file(t, botrepo.BotBranch, "reports/coverage.json")
	if n := strings.Count(cov, `"status":"fresh"`); n != len(auths) {
		t.Errorf("the rolling branch's report has %d fresh sources, want %d:\n%s", n, len(auths), cov)
	}
}

func TestRunThenPublish(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/doc": text("x")})
	p := newPipelineRepo(t)
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d", code)
	}
	err := runPublish(ctx, publishOptions{paths: w.paths, Clock: clock.Real{}, IO: IO{Out: &w.out, Err: &w.out, Getenv: func(k string) string { return p.env[k] }}})
	if err != nil {
		t.Fatalf("publish: %v\n%s", err, w.out.String())
	}
	if !strings.Contains(p.file(t, botrepo.CacheBranch, "state.json"), `"t-doc"`) {
		t.Error("publish did not push the state")
	}
	if got := p.gh.Writes(); !slices.Contains(got, "POST /repos/acme/tax/pulls") || slices.Index(got, "POST /repos/acme/tax/releases/1/assets") > slices.Index(got, "POST /repos/acme/tax/pulls") {
		t.Errorf("GitHub calls %v, want the blob uploaded, then a pull request created", got)
	}
}

func TestCIDeliversLinesAnEarlierPushLost(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	p := newPipelineRepo(t)
	now := time.Now()
	line := func(run, path string) []byte {
		b, _ := json.Marshal(ledger.Line{Event: ledger.Dispatch, Time: now.Add(-time.Hour).UTC(), Host: a.host(), URL: a.url(path), Purpose: "document", RunID: run})
		return append(b, '\n')
	}
	rel := "ledgers/" + ledger.Day(now) + "/" + ledger.FileName(a.host())
	p.git.Commit(t, "acme/tax.git", botrepo.CacheBranch, "another run", map[string][]byte{rel: line("96-1", "/on-branch")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	// A line this machine recorded but never managed to push.
	must(t, os.MkdirAll(filepath.Join(w.State, filepath.Dir(rel)), 0o755))
	must(t, os.WriteFile(filepath.Join(w.State, rel), line("97-1", "/only-local"), 0o644))
	if code := p.ci(w, "100-1", func(o *ciOptions) { o.NoPublish = true }); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, w.out.String())
	}
	led := p.file(t, botrepo.CacheBranch, rel)
	for _, want := range []string{"/on-branch", "/only-local", "/doc"} {
		if !strings.Contains(led, want) {
			t.Errorf("the branch's ledger lacks the line for %s:\n%s", want, led)
		}
	}
}

// TestCIPrintsTheManifestsDiagnosticsOnce: ci reads the manifests once, for
// the cycle and its run alike, so each warning is printed (or annotated)
// once, not once more when the run starts.
func TestCIPrintsTheManifestsDiagnosticsOnce(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	p := newPipelineRepo(t)
	// A hosts entry no source uses: a warning, not an error.
	hosts := "hosts:\n  unused.example:\n    daily_cap: 5\n"
	w := newWorkspace(t, testPolicy, hosts, src{"test-doc", a.url("/doc"), ""})
	if code := p.ci(w, "100-1", func(o *ciOptions) { o.NoPublish = true }); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, w.out.String())
	}
	if n := strings.Count(w.out.String(), "hosts entry unused.example is not the host of any source"); n != 1 {
		t.Errorf("the warning printed %d times, want once:\n%s", n, w.out.String())
	}
}
