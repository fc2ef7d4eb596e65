package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// seedMain commits n commits of `per` new files each to main, like a
// repository whose snapshots/ grows on every merge, and returns the tip.
func seedMain(t testing.TB, f *fixture, n, per int) string {
	t.Helper()
	var tip string
	for c := range n {
		files := map[string][]byte{"reports/coverage.json": fmt.Appendf(nil, `{"commit":%d}`, c)}
		for i := range per {
			files[fmt.Sprintf("snapshots/sha256/%02x/blob-%d-%d", (c*per+i)%256, c, i)] = bytesOf(4096, c*per+i)
		}
		tip = f.srv.Commit(t, repoNm, "main", fmt.Sprintf("commit %d", c), files)
	}
	return tip
}

func bytesOf(n, seed int) []byte {
	b := make([]byte, n)
	x := uint32(seed*2654435761 + 1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func TestPartialReadDownloadsOnlyWhatIsRead(t *testing.T) {
	f := newFixture(t)
	seedMain(t, f, 30, 20) // 600 files of 4 KiB: about 2.4 MB of contents
	r, err := OpenPartial(f.remote())
	if err != nil {
		t.Fatal(err)
	}
	before := f.srv.FetchedBytes(repoNm)
	tip, tree, err := r.Read(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	data, err := fs.ReadFile(tree, "reports/coverage.json")
	if err != nil || string(data) != `{"commit":29}` {
		t.Fatalf("coverage.json = %q, %v", data, err)
	}
	got := f.srv.FetchedBytes(repoNm) - before
	if got > 400_000 {
		t.Errorf("a partial read of main downloaded %d bytes; the files alone are 2.4 MB and only one was read", got)
	}
	// The listing is whole even though no content came with it.
	ents, err := fs.ReadDir(tree, "snapshots/sha256/00")
	if err != nil || len(ents) == 0 {
		t.Fatalf("ReadDir on a partial tree: %d entries, %v", len(ents), err)
	}
	// Fetch brings several contents in one request, and they read back whole.
	names := []string{"snapshots/sha256/00/" + ents[0].Name(), "snapshots/sha256/01/blob-0-1", "no/such/file"}
	fetches := f.srv.Fetches(repoNm)
	if err := tree.Fetch(context.Background(), names...); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.Fetches(repoNm) - fetches; n != 1 {
		t.Errorf("Fetch of 2 files made %d requests, want 1", n)
	}
	if data, err := fs.ReadFile(tree, "snapshots/sha256/01/blob-0-1"); err != nil || string(data) != string(bytesOf(4096, 1)) {
		t.Errorf("fetched file reads back wrong: %v", err)
	}
	if f.srv.Fetches(repoNm)-fetches != 1 {
		t.Error("reading a fetched file downloaded it again")
	}
	// Recent history is there to read, and no more.
	log, err := r.Log(tip, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != PartialDepth || log[0].Hash != tip || !strings.HasPrefix(log[0].Message, "commit 29") {
		t.Errorf("Log of a partial read: %d commits (want %d), first %+v", len(log), PartialDepth, log[0])
	}
}

func TestRebuildPutsTheBranchOnBaseWithExpectedOldValue(t *testing.T) {
	f := newFixture(t)
	f.srv.Commit(t, repoNm, "main", "start", map[string][]byte{"README.md": []byte("v1\n")})
	r, err := OpenPartial(f.remote())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	edit := changes(Change{Path: "reports/coverage.json", Data: []byte("report\n")})
	first, err := r.Rebuild(ctx, "bot", "main", "", "bot commit", sig(1), edit)
	if err != nil || first == "" {
		t.Fatalf("create: %q, %v", first, err)
	}
	// main moves; the branch is rebuilt on the new main, not on itself.
	mainTip := f.srv.Commit(t, repoNm, "main", "readme", map[string][]byte{"README.md": []byte("v2\n")})
	second, err := r.Rebuild(ctx, "bot", "main", first, "bot commit", sig(2), edit)
	if err != nil {
		t.Fatal(err)
	}
	if parent := f.git(t, "rev-parse", second+"^"); parent != mainTip {
		t.Errorf("rebuilt branch's parent is %s, want main's tip %s", parent, mainTip)
	}
	if got := f.git(t, "show", "refs/heads/bot:README.md"); got != "v2" {
		t.Errorf("rebuilt branch carries a stale README: %q", got)
	}
	if diff := f.git(t, "diff", "--name-only", "main", "bot"); diff != "reports/coverage.json" {
		t.Errorf("the branch differs from main in %q, want only the bot's file", diff)
	}
	// Someone else pushed: the expected old value no longer holds.
	theirs := f.srv.Commit(t, repoNm, "bot", "a human fix", map[string][]byte{"reports/coverage.json": []byte("fixed by hand\n")})
	if _, err := r.Rebuild(ctx, "bot", "main", second, "bot commit", sig(3), edit); !errors.Is(err, ErrMoved) {
		t.Fatalf("rebuild over someone else's commit: %v, want ErrMoved", err)
	}
	if got := f.git(t, "rev-parse", "refs/heads/bot"); got != theirs {
		t.Errorf("the branch moved to %s; someone else's commit %s was dropped", got, theirs)
	}
	// A rebuild that changes nothing against main pushes nothing.
	if tip, err := r.Rebuild(ctx, "bot", "main", theirs, "bot commit", sig(4), changes()); err != nil || tip != "" {
		t.Errorf("empty rebuild: %q, %v", tip, err)
	}
}

func TestCompactBoundsPacks(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	for i := range 3 * MaxPacks {
		r, err := Open(dir, f.remote())
		if err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, r, i, appendLines(ledger, line(i)))
		if err := r.Compact(); err != nil {
			t.Fatal(err)
		}
		if n := r.Packs(); n > MaxPacks {
			t.Fatalf("after %d runs: %d packs, want at most %d", i+1, n, MaxPacks)
		}
		r.Close()
	}
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	if len(packs) > MaxPacks || len(packs) == 0 {
		t.Errorf("%d pack files on disk, want 1..%d", len(packs), MaxPacks)
	}
	// The compacted store still reads the branch without downloading it again.
	r, err := Open(dir, f.remote())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before := f.srv.FetchedBytes(repoNm)
	_, tree, err := r.Read(context.Background(), branch)
	if err != nil {
		t.Fatal(err)
	}
	data, err := fs.ReadFile(tree, ledger)
	if err != nil || strings.Count(string(data), "\n") != 3*MaxPacks {
		t.Fatalf("ledger after compaction: %d lines, %v", strings.Count(string(data), "\n"), err)
	}
	if got := f.srv.FetchedBytes(repoNm) - before; got > 0 {
		t.Errorf("reading after compaction downloaded %d bytes", got)
	}
}

// TestPartialReadWithoutFilteredFetches: against a server that offers no
// filtered fetches, or will not send single objects, a partial read still
// reads every file right, and says once that it downloads them whole.
func TestPartialReadWithoutFilteredFetches(t *testing.T) {
	for _, off := range [][]string{{"uploadpack.allowFilter"}, {"uploadpack.allowReachableSHA1InWant"}, {"uploadpack.allowFilter", "uploadpack.allowReachableSHA1InWant"}} {
		t.Run(strings.Join(off, "+"), func(t *testing.T) {
			f := newFixture(t)
			seedMain(t, f, 3, 4)
			for _, key := range off {
				f.srv.Git(t, repoNm, "config", key, "false")
			}
			var notices []string
			rem := f.remote()
			rem.Notify = func(msg string) { notices = append(notices, msg) }
			r, err := OpenPartial(rem)
			if err != nil {
				t.Fatal(err)
			}
			_, tree, err := r.Read(context.Background(), "main")
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if err := tree.Fetch(context.Background(), "snapshots/sha256/01/blob-0-1", "reports/coverage.json"); err != nil {
				t.Fatalf("fetch: %v", err)
			}
			if data, err := fs.ReadFile(tree, "snapshots/sha256/01/blob-0-1"); err != nil || string(data) != string(bytesOf(4096, 1)) {
				t.Errorf("a file reads back wrong: %v", err)
			}
			if data, err := fs.ReadFile(tree, "reports/coverage.json"); err != nil || string(data) != `{"commit":2}` {
				t.Errorf("coverage.json = %q, %v", data, err)
			}
			if _, _, err = r.Read(context.Background(), "main"); err != nil {
				t.Fatal(err)
			}
			// git's upload-pack over smart HTTP sends a reachable object
			// whatever allowReachableSHA1InWant says; without filters the
			// files come whole, and that is said once.
			if slices.Contains(off, "uploadpack.allowFilter") && (len(notices) != 1 || !strings.Contains(notices[0], "downloaded whole")) {
				t.Errorf("notices %q, want one saying the files are downloaded whole", notices)
			}
		})
	}
}

// TestRebuildStepsMakesACommitPerStep: each step is a commit on the one
// before, the first on main, pushed at once; a step reads the files the
// step before wrote; a step that changes nothing makes no commit.
func TestRebuildStepsMakesACommitPerStep(t *testing.T) {
	f := newFixture(t)
	mainTip := f.srv.Commit(t, repoNm, "main", "start", map[string][]byte{"manifests/uk.yaml": []byte("sources:\n")})
	r, err := OpenPartial(f.remote())
	if err != nil {
		t.Fatal(err)
	}
	appendLine := func(line string) Edit {
		return func(tip fs.FS) ([]Change, error) {
			data, err := fs.ReadFile(tip, "manifests/uk.yaml")
			if err != nil {
				return nil, err
			}
			return []Change{{Path: "manifests/uk.yaml", Data: append(data, line+"\n"...)}}, nil
		}
	}
	tip, err := r.RebuildSteps(context.Background(), "bot", "main", "", sig(1), []Step{
		{Message: "snapshots", Edit: changes(Change{Path: "reports/coverage.json", Data: []byte("report\n")})},
		{Message: "edition a", Edit: appendLine("  - a")},
		{Message: "nothing", Edit: changes()},
		{Message: "edition b", Edit: appendLine("  - b")},
	})
	if err != nil || tip == "" {
		t.Fatalf("RebuildSteps: %q, %v", tip, err)
	}
	if got := f.git(t, "log", "--format=%s", "main..bot"); got != "edition b\nedition a\nsnapshots" {
		t.Errorf("commits on the branch:\n%s\nwant edition b, edition a, snapshots", got)
	}
	if parent := f.git(t, "rev-parse", "bot~3"); parent != mainTip {
		t.Errorf("the first commit's parent is %s, want main's tip %s", parent, mainTip)
	}
	if got := f.git(t, "show", "bot:manifests/uk.yaml"); got != "sources:\n  - a\n  - b" {
		t.Errorf("the manifest at the tip: %q", got)
	}
	if got := f.git(t, "show", "--format=", "--name-only", "bot~1"); got != "manifests/uk.yaml" {
		t.Errorf("the commit of edition a changes %q, want the manifest only", got)
	}
}
