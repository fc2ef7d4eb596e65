package decade

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/cli"
	"github.com/taxkernel/taxkernelbot/internal/gitstore/gittest"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// repoRoot is the repository this package is in: its manifests are the
// simulation's sources.
const repoRoot = "../.."

// start is the first simulated run: any date will do, a fixed one keeps
// the runs repeatable.
var start = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

func todaysSources(tb testing.TB) []manifest.Source {
	tb.Helper()
	set, diags := manifest.Load(filepath.Join(repoRoot, "manifests"))
	if set == nil {
		tb.Fatalf("manifests: %v", diags)
		return nil
	}
	return set.Sources
}

// served is main, simulated, in a bare repository a real git server on
// loopback serves.
type served struct {
	srv  *gittest.Server
	repo string
	url  string // with the credentials
}

// simulateServed runs the plan in mode into a repository of a git
// http-backend on loopback, then repacks it whole with deltas computed
// afresh (git repack -a -d -f): fast-import's own pack deltas each blob
// only against the one written before it, which no pushed history is.
func simulateServed(tb testing.TB, plan *Plan, mode Mode) (*Result, served) {
	tb.Helper()
	project, err := ProjectFiles(repoRoot)
	if err != nil {
		tb.Fatal(err)
	}
	srv := gittest.New(tb, "reader", "secret")
	repo := mode.Name + ".git"
	u := srv.NewRepo(tb, repo)
	res, err := Simulate(context.Background(), plan, mode, srv.Dir(repo), project)
	if err != nil {
		tb.Fatal(err)
	}
	srv.Git(tb, repo, "repack", "-a", "-d", "-f", "-q")
	return res, served{srv, repo, strings.Replace(u, "http://", "http://reader:secret@", 1)}
}

// cloneMain clones main alone, as a contributor does, and returns the
// clone's directory and its packed size.
func cloneMain(tb testing.TB, s served) (dir string, packed int64) {
	tb.Helper()
	dir = filepath.Join(tb.TempDir(), "clone")
	cmd := exec.Command("git", "clone", "--quiet", "--single-branch", "--branch", "main", "--no-tags", s.url, dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+tb.TempDir(), "GIT_TERMINAL_PROMPT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git clone: %v\n%s", err, out)
	}
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) == 0 {
		tb.Fatalf("the clone of main holds no pack")
	}
	for _, p := range packs {
		fi, err := os.Stat(p)
		if err != nil {
			tb.Fatal(err)
		}
		packed += fi.Size()
	}
	return dir, packed
}

// validateClone runs the command's validate on the clone's manifests, as a
// contributor does after cloning.
func validateClone(tb testing.TB, dir string) {
	tb.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), []string{"validate", "--manifests", filepath.Join(dir, "manifests"), "--state", filepath.Join(tb.TempDir(), "state")}, cli.IO{Out: &out, Err: &errOut})
	if code != 0 {
		tb.Fatalf("validate on the clone: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// fiveConsolidations is the measured case: a 0.9 MiB legislation
// PDF, first held, then consolidated (a few lines of its text changed)
// the given number of times, each pull request squash-merged into main.
func fiveConsolidations(consolidations int) *Plan {
	src := manifest.Source{Jurisdiction: "ca", ID: "ca-income-tax-act-pdf", URL: "https://laws-lois.justice.gc.ca/PDF/I-3.3.pdf", Kind: manifest.Legislation, Title: "Income Tax Act", Recheck: 168 * time.Hour}
	prof := Profiles[manifest.Legislation][FormPDF]
	d := &Doc{Source: src, Form: FormPDF, Profile: prof, Size: legislationPDF, seed: 5}
	for i := range consolidations + 1 {
		d.Versions = append(d.Versions, i*168) // a consolidation a week, each merged
	}
	return &Plan{Config: Config{Start: start, Hours: len(d.Versions) * 168, SizeScale: 1}, Docs: []*Doc{d}}
}

// growth is what main cloned alone grows by over the five consolidations,
// and the bytes they served.
func growth(t *testing.T, mode Mode) (grew, servedBytes int64) {
	base, baseRepo := simulateServed(t, fiveConsolidations(0), mode)
	_, before := cloneMain(t, baseRepo)
	after, afterRepo := simulateServed(t, fiveConsolidations(5), mode)
	_, packed := cloneMain(t, afterRepo)
	if after.Merges != 6 {
		t.Fatalf("%d merges into main, want the first fetch and five consolidations, each merged", after.Merges)
	}
	return packed - before, after.Served - base.Served
}

// The case: five consolidations of a 0.9 MiB incompressible
// legislation PDF, each merged. With the bytes in main, main grows by what
// was served; with the record only, by at most a tenth of it.
func TestFiveConsolidationsGrowMain(t *testing.T) {
	grew, served := growth(t, BytesInMain)
	t.Logf("bytes in main: main grew %.2f MiB for %.2f MiB served (%.0f %%)", inMiB(grew), inMiB(served), 100*float64(grew)/float64(served))
	if grew < served*9/10 {
		t.Errorf("bytes in main: main grew %d bytes for %d served: incompressible bytes in history cost their size, so less means the blobs were not carried", grew, served)
	}
	grew, served = growth(t, RecordOnly)
	t.Logf("record only: main grew %.2f MiB for %.2f MiB served (%.1f %%)", inMiB(grew), inMiB(served), 100*float64(grew)/float64(served))
	if grew*10 > served {
		t.Errorf("record only: main grew %d bytes for %d served (%.1f %%), want at most 10 %%", grew, served, 100*float64(grew)/float64(served))
	}
}

func inMiB(n int64) float64 { return float64(n) / (1 << 20) }

// A quarter of hourly runs over today's manifests, at a tenth of the real
// sizes: in RecordOnly no GitHub limit is crossed, main carries no blob,
// every fetched version is in the stores, and a clone of main validates.
func TestQuarterAtReducedScaleCrossesNoLimit(t *testing.T) {
	plan, err := NewPlan(Config{Start: start, Hours: 24 * 91, Seed: 1, SizeScale: 0.1}, todaysSources(t))
	if err != nil {
		t.Fatal(err)
	}
	res, s := simulateServed(t, plan, RecordOnly)
	for _, c := range res.Crossings {
		t.Errorf("record only crossed a limit: %s", c)
	}
	if res.Fetched <= len(plan.Docs) {
		t.Fatalf("%d versions fetched for %d sources over a quarter: the publishers changed nothing", res.Fetched, len(plan.Docs))
	}
	if res.StoreBytes != res.Served {
		t.Errorf("the stores hold %d bytes of the %d served", res.StoreBytes, res.Served)
	}
	if blobs := s.srv.Git(t, s.repo, "ls-tree", "-r", "--name-only", "main", "snapshots/sha256"); blobs != "" {
		t.Errorf("main carries blobs in record-only mode:\n%s", firstLines(blobs, 3))
	}
	ix, err := store.ParseIndex([]byte(s.srv.Git(t, s.repo, "show", "main:snapshots/index.json") + "\n"))
	if err != nil {
		t.Fatalf("main's index.json: %v", err)
	}
	if ix.Len() != res.Fetched {
		t.Errorf("main's index has %d entries for %d versions fetched", ix.Len(), res.Fetched)
	}
	// One text per source, of the bytes it serves now: the tree holds no
	// other version's.
	texts := strings.Count(s.srv.Git(t, s.repo, "ls-tree", "-r", "--name-only", "main", "snapshots/text"), ".txt")
	if texts != len(ix.IDs()) {
		t.Errorf("main holds %d derived texts for %d sources", texts, len(ix.IDs()))
	}
	for _, id := range ix.IDs()[:min(5, len(ix.IDs()))] {
		e, _ := ix.Current(id)
		if engine := s.srv.Git(t, s.repo, "show", "main:"+textview.EnginePath(botrepo.TextPath(id))); !strings.Contains(engine, "sha256 "+string(e.SHA256)) {
			t.Errorf("%s's text in main names %q, not its current bytes %.12s", id, engine, e.SHA256)
		}
	}
	dir, packed := cloneMain(t, s)
	validateClone(t, dir)
	t.Logf("a quarter at 1/10 size: %d versions, %d merges, served %.1f MiB, main's clone %.2f MiB, stores %.1f MiB each in %d releases", res.Fetched, res.Merges, inMiB(res.Served), inMiB(packed), inMiB(res.StoreBytes), res.Releases)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// The index the simulation writes is byte for byte what the store writes
// for the same entries, so that main's diff and size are the real ones.
func TestIndexIsTheStoresIndex(t *testing.T) {
	plan, err := NewPlan(Config{Start: start, Hours: 24 * 60, Seed: 2, SizeScale: 0.01}, todaysSources(t)[:12])
	if err != nil {
		t.Fatal(err)
	}
	s := newSim(plan, RecordOnly, &bytes.Buffer{})
	for _, run := range plan.Runs() {
		s.fetchRun(run)
	}
	got := s.indexJSON()
	ix, err := store.ParseIndex(got)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ix.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("index.json differs from store.Index.Marshal of the same entries:\n got %q\nwant %q", firstLines(string(got), 12), firstLines(string(want), 12))
	}
	if ix.Len() != s.res.Fetched {
		t.Errorf("%d entries for %d versions", ix.Len(), s.res.Fetched)
	}
}

// The size a run's push counts for the index is the index's.
func TestIndexLen(t *testing.T) {
	plan, err := NewPlan(Config{Start: start, Hours: 24 * 30, Seed: 3, SizeScale: 0.01}, todaysSources(t)[:20])
	if err != nil {
		t.Fatal(err)
	}
	s := newSim(plan, RecordOnly, &bytes.Buffer{})
	for _, run := range plan.Runs() {
		s.fetchRun(run)
		if got, want := s.indexLen(), int64(len(s.indexJSON())); got != want {
			t.Fatalf("after the run of hour %d: indexLen %d, index.json is %d bytes", run.Hour, got, want)
		}
	}
}
