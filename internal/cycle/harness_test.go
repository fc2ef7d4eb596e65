package cycle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/gitstore/gittest"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/publish"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

const repoName = "acme/tax.git"

// repo is a repository on a real git server with a GitHub-like API in
// front of it, and the world its sources live in: what each one serves
// (a document's text; "" for a 404).
type repo struct {
	t    testing.TB
	git  *gittest.Server
	gh   *githubtest.Fake
	cfg  github.Config
	docs map[string]string
	ids  []string
	now  time.Time
	run  int
	// gitCache, when set, is the Actions cache of the runners' git store
	// (the state directory's .gitstore): restored into each runner by
	// options and saved back after each cycle.
	gitCache string
	// dailyCap, when set, is every host's daily cap in the manifest.
	dailyCap int
	// hosts, when set, is the host of each source (by the order of ids);
	// else source i is on tax<i>.example.gov.
	hosts []string
	// sent counts the requests the world received, by "day host".
	sent map[string]int
	// coded are the sources served gzipped: as the pipeline does, the run
	// keeps the bytes as sent beside the document and its entry names them.
	coded map[string]bool
	// stores, when set, makes the stores each runner keeps the bytes
	// in (Options.Stores), new per runner as a new job's would be.
	stores func(clock.Clock) blobs.Stores
	// types, when set, is the Content-Type each source serves, by id
	// (default text/html).
	types map[string]string
}

func newRepo(t testing.TB, ids ...string) *repo {
	t.Helper()
	git := gittest.New(t, "x-access-token", "tok")
	git.NewRepo(t, repoName)
	git.Commit(t, repoName, "main", "start", map[string][]byte{"README.md": []byte("tax\n")})
	gh := githubtest.New(t, "acme", "tax", "tok")
	r := &repo{t: t, git: git, gh: gh, ids: ids, docs: map[string]string{},
		now: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC),
		cfg: github.Config{Owner: "acme", Repo: "tax", ServerURL: git.URL, APIURL: gh.URL, Token: "tok", RunID: "1"}}
	for _, id := range ids {
		r.docs[id] = id + " rates, edition 1"
	}
	return r
}

// manifests writes a manifest of the repo's sources, each on a host of
// its own so that shards split them.
func (r *repo) manifests(dir string) *manifest.Set {
	r.t.Helper()
	var b strings.Builder
	b.WriteString("jurisdiction: test\nname: Test\ntimezone: UTC\n")
	if r.dailyCap > 0 {
		b.WriteString("hosts:\n")
		for i := range r.ids {
			fmt.Fprintf(&b, "  %s:\n    daily_cap: %d\n", r.host(i), r.dailyCap)
		}
	}
	b.WriteString("sources:\n")
	for i, id := range r.ids {
		fmt.Fprintf(&b, "  - id: %s\n    url: https://%s/%s\n    kind: rates-page\n    title: %s\n    recheck: 1h\n", id, r.host(i), id, id)
	}
	must(r.t, os.MkdirAll(dir, 0o755))
	must(r.t, os.WriteFile(filepath.Join(dir, "test.yaml"), []byte(b.String()), 0o644))
	set, diags := manifest.Load(dir)
	if diags.HasErrors() {
		r.t.Fatal(diags)
	}
	return set
}

// host is the host of the repo's source i.
func (r *repo) host(i int) string {
	if r.hosts != nil {
		return r.hosts[i]
	}
	return fmt.Sprintf("tax%d.example.gov", i)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// runner is a fetch run in the repo's world: one dispatch per source of
// its shard, each document stored and indexed, as the real run does it.
func (r *repo) runner(o *Options) Runner {
	return func(ctx context.Context, lim pipeline.Limits) error {
		if lim.DryRun {
			return nil
		}
		st, err := state.Load(o.State)
		must(r.t, err)
		s, err := store.Open(o.Snapshots)
		must(r.t, err)
		ix, err := store.LoadIndex(filepath.Join(o.Snapshots, "index.json"))
		must(r.t, err)
		led, err := ledger.Open(filepath.Join(o.State, "ledgers"))
		must(r.t, err)
		defer led.Close()
		clk := o.Clock.(*clock.Fake)
		for _, src := range o.Set.Sources {
			if lim.Hosts != nil && !lim.Hosts(src.Host) {
				continue
			}
			now := clk.Now()
			if lim.Spent != nil { // the gate: deferred at the cap
				spent, err := lim.Spent(src.Host, ledger.Day(now))
				must(r.t, err)
				if spent >= o.Set.Host(src.Host).DailyCap {
					continue
				}
			}
			must(r.t, led.Append(ledger.Line{Event: ledger.Dispatch, Time: now, Host: src.Host, URL: src.URL, Purpose: "document", Source: src.ID, RunID: o.RunID}))
			if r.sent != nil {
				r.sent[ledger.Day(now)+" "+src.Host]++
			}
			ss := st.Source(src.ID)
			ss.LastCheck = now
			if doc := r.docs[src.ID]; doc == "" {
				ss.SetStatus(state.Gone, now)
				ss.HTTPStatus, ss.Detail = 404, "404: the document is gone"
			} else {
				ct := "text/html"
				if t := r.types[src.ID]; t != "" {
					ct = t
				}
				sum, size, err := s.Put(ctx, strings.NewReader(doc))
				must(r.t, err)
				// As the pipeline does, the text of an indexed blob is kept
				// beside it.
				_, _, err = textview.DeriveDoc(ctx, o.Snapshots, string(sum), textview.Doc{Raw: []byte(doc), ContentType: ct}, textview.Limits{})
				must(r.t, err)
				e := store.Entry{SHA256: sum, Size: size, ContentType: ct, FinalURL: src.URL, FirstSeen: ledger.Day(now)}
				if r.coded[src.ID] {
					var gz bytes.Buffer
					zw := gzip.NewWriter(&gz)
					zw.Write([]byte(doc))
					must(r.t, zw.Close())
					sent, n, err := s.Put(ctx, &gz)
					must(r.t, err)
					e.Sent = &store.Sent{SHA256: sent, Size: n, Encoding: "gzip"}
				}
				ix.Add(src.ID, e, ss.SHA256) // a return to earlier bytes is one
				ss.SetStatus(state.Fresh, now)
				ss.HTTPStatus, ss.Detail, ss.SHA256, ss.Size, ss.ContentType, ss.FinalURL, ss.LastGood = 200, "", sum, size, ct, src.URL, now
			}
			st.PutSource(src.ID, ss)
			must(r.t, led.Append(ledger.Line{Event: ledger.Result, Time: now, Host: src.Host, URL: src.URL, Source: src.ID, RunID: o.RunID, Status: ss.HTTPStatus}))
			clk.Advance(time.Second)
			if lim.Progress != nil {
				lim.Progress(pipeline.Result{})
			}
		}
		must(r.t, st.Save(o.State))
		must(r.t, ix.Save(filepath.Join(o.Snapshots, "index.json")))
		_, err = report.Build(o.Set, st).Write(o.Reports)
		return err
	}
}

// options is a fresh runner's checkout of main for run number n: its own
// temporary directories, as on a GitHub-hosted runner.
func (r *repo) options(shard string) (Options, *bytes.Buffer) {
	r.t.Helper()
	r.run++
	dir := r.t.TempDir()
	sh, err := lease.ParseShard(shard)
	must(r.t, err)
	var log bytes.Buffer
	o := Options{
		Set:       r.manifests(filepath.Join(dir, "manifests")),
		Snapshots: filepath.Join(dir, "snapshots"), Reports: filepath.Join(dir, "reports"), State: filepath.Join(dir, "state"),
		Limits: pipeline.Limits{RunID: fmt.Sprintf("%d-1", 100+r.run), MaxDuration: 30 * time.Minute, Clock: clock.NewFake(r.now)},
		Shard:  sh, Holder: fmt.Sprintf("runner/%d", r.run),
		Margin: time.Minute, PushEvery: 5 * time.Minute,
		Remote: gitstore.Remote{URL: r.git.URL + "/" + repoName, Username: "x-access-token", Password: "tok"},
		Links:  r.cfg,
		Log:    &log,
	}
	gh, err := github.NewClient(r.cfg, nil, github.WithClock(o.Clock))
	must(r.t, err)
	o.GitHub = gh
	if r.stores != nil {
		o.Stores = r.stores(o.Clock)
	}
	r.checkout(o)
	if r.gitCache != "" {
		must(r.t, os.CopyFS(filepath.Join(o.State, ".gitstore"), os.DirFS(r.gitCache)))
	}
	return o, &log
}

// checkout copies main's snapshots/ into a fresh runner's directories,
// as actions/checkout does.
func (r *repo) checkout(o Options) { r.archive("main", "snapshots", o.Snapshots) }

// archive writes the files under prefix ("" for all) of a branch into dir,
// the prefix cut off, with git itself; nothing when the branch has none.
func (r *repo) archive(branch, prefix, dir string) {
	r.t.Helper()
	args := []string{"--git-dir", r.git.Dir(repoName), "archive", "--format=tar", branch}
	if prefix != "" {
		args = append(args, prefix)
	}
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return
	}
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		must(r.t, err)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := h.Name
		if prefix != "" {
			name = strings.TrimPrefix(name, prefix+"/")
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(r.t, os.MkdirAll(filepath.Dir(p), 0o755))
		data, err := io.ReadAll(tr)
		must(r.t, err)
		must(r.t, os.WriteFile(p, data, 0o644))
	}
}

// shardCycle runs one whole cycle of shard, its GitHub client wrapped by
// wrap when given.
func (r *repo) shardCycle(shard string, wrap func(publish.PullRequests) publish.PullRequests) {
	r.t.Helper()
	o, log := r.options(shard)
	o.Run = r.runner(&o)
	if wrap != nil {
		o.GitHub = wrap(o.GitHub)
	}
	if _, err := Run(context.Background(), o); err != nil {
		r.t.Fatalf("shard %s: %v\n%s", shard, err, log)
	}
}

// cycle runs one whole cycle on shard "1/1" as the scheduled job would.
func (r *repo) cycle() (Outcome, string) {
	r.t.Helper()
	o, log := r.options("1/1")
	o.Run = r.runner(&o)
	out, err := Run(context.Background(), o)
	if err != nil {
		r.t.Fatalf("cycle %d: %v\n%s", r.run, err, log)
	}
	r.saveGitCache(o)
	r.now = r.now.Add(24 * time.Hour)
	return out, log.String()
}

func (r *repo) show(rev, path string) string {
	out, err := r.git.Run(repoName, "show", rev+":"+path)
	if err != nil {
		return ""
	}
	return out
}

// files is the set of paths of a branch's files (none when it does not
// exist), read with git ls-tree.
func (r *repo) files(branch string) map[string]bool {
	out, err := r.git.Run(repoName, "ls-tree", "-r", "--name-only", "refs/heads/"+branch)
	set := map[string]bool{}
	if err != nil {
		return set
	}
	for _, p := range strings.Split(out, "\n") {
		set[p] = true
	}
	return set
}

func (r *repo) tip(branch string) string {
	out, _ := r.git.Run(repoName, "rev-parse", "--verify", "-q", "refs/heads/"+branch)
	return out
}

// squashMerge merges pull request n as GitHub's "Squash and merge" does:
// one new commit on main with the bot branch's changes, authored by the
// reviewer; then GitHub deletes the head branch.
func (r *repo) squashMerge(n int) {
	r.t.Helper()
	tree := r.git.Git(r.t, repoName, "merge-tree", "--write-tree", "main", botrepo.BotBranch)
	commit := r.git.Git(r.t, repoName, "commit-tree", tree, "-p", "main", "-m", fmt.Sprintf("TaxKernelBot coverage update (#%d)", n))
	r.git.Git(r.t, repoName, "update-ref", "refs/heads/main", commit)
	r.git.Git(r.t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.BotBranch)
	r.gh.Merge(n)
}

// mergeable reports whether the bot branch merges into main cleanly.
func (r *repo) mergeable() bool {
	_, err := r.git.Run(repoName, "merge-tree", "--write-tree", "main", botrepo.BotBranch)
	return err == nil
}

// changedPaths lists the paths in which the bot branch differs from main.
func (r *repo) changedPaths() []string {
	out := r.git.Git(r.t, repoName, "diff", "--name-only", "main", botrepo.BotBranch)
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func onlyBotPaths(paths []string) bool {
	return !slices.ContainsFunc(paths, func(p string) bool {
		return !strings.HasPrefix(p, "reports/") && !strings.HasPrefix(p, "snapshots/")
	})
}

// saveGitCache saves a runner's git store as the Actions cache does after
// its job.
func (r *repo) saveGitCache(o Options) {
	if r.gitCache == "" {
		return
	}
	must(r.t, os.RemoveAll(r.gitCache))
	must(r.t, os.CopyFS(r.gitCache, os.DirFS(filepath.Join(o.State, ".gitstore"))))
}
