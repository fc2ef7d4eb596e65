package cli

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// cacheRepos makes, on disk, the repository a pull request's checkout
// sees: an "origin" with main (the workspace's manifests) and an orphan
// fetch-cache laid out as the cycle pushes it (state.json, robots/,
// ledgers/ at the root, copied from the workspace's state), and a clone
// of it, which has both as origin/main and origin/fetch-cache. It returns
// the clone.
func cacheRepos(t *testing.T, w *workspace) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	origin := filepath.Join(t.TempDir(), "origin")
	must(t, os.MkdirAll(origin, 0o755))
	gitRun(t, origin, "init", "-q", "-b", "main")
	must(t, os.CopyFS(filepath.Join(origin, "manifests"), os.DirFS(w.Manifests)))
	gitRun(t, origin, "add", "manifests")
	gitRun(t, origin, "commit", "-q", "-m", "manifests")
	gitRun(t, origin, "checkout", "-q", "--orphan", "fetch-cache")
	gitRun(t, origin, "rm", "-q", "-r", "--cached", ".")
	must(t, os.RemoveAll(filepath.Join(origin, "manifests")))
	for _, name := range []string{"state.json", "robots", "ledgers"} {
		src := filepath.Join(w.State, name)
		if fi, err := os.Stat(src); err != nil {
			t.Fatalf("the workspace's state has no %s: %v", name, err)
		} else if fi.IsDir() {
			must(t, os.CopyFS(filepath.Join(origin, name), os.DirFS(src)))
		} else {
			data, err := os.ReadFile(src)
			must(t, err)
			must(t, os.WriteFile(filepath.Join(origin, name), data, 0o644))
		}
	}
	gitRun(t, origin, "add", "state.json", "robots", "ledgers")
	gitRun(t, origin, "commit", "-q", "-m", "cache")
	gitRun(t, origin, "checkout", "-q", "main")
	clone := filepath.Join(t.TempDir(), "clone")
	gitRun(t, filepath.Dir(clone), "clone", "-q", origin, clone)
	return clone
}

// `ledger HOST` with no local ledgers (a fresh checkout) reads the cache
// branch of the local repository and prints what it prints from the
// state's own ledgers; --from-branch asks for the branch outright.
func TestLedgerFromCacheBranch(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nAllow: /\n"), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"test-a", a.url("/a"), ""}, src{"test-b", a.url("/b"), ""})
	if code := w.run(ctx); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	clone := cacheRepos(t, w)

	code, local, stderr := runMain(t, nil, "ledger", a.host(), "--state", w.State)
	if code != ExitOK || !strings.Contains(local, "3 request(s) to "+a.host()) {
		t.Fatalf("ledger from the state: exit %d\n%s%s", code, local, stderr)
	}
	table := func(out string) string {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return strings.Join(lines[:len(lines)-1], "\n")
	}
	empty := filepath.Join(t.TempDir(), "state")
	for _, args := range [][]string{
		{"ledger", a.host(), "--state", empty, "--repo", clone},
		{"ledger", a.host(), "--state", w.State, "--repo", clone, "--from-branch"},
	} {
		code, out, stderr := runMain(t, nil, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
		if table(out) != table(local) {
			t.Errorf("%v prints\n%s\nwant the state's table\n%s", args, out, local)
		}
		if !strings.Contains(out, "from the ledgers under ledgers/ of the cache branch origin/fetch-cache at ") {
			t.Errorf("%v does not say where it read:\n%s", args, out)
		}
	}
	// The same as JSON.
	_, jl, _ := runMain(t, nil, "ledger", a.host(), "--state", w.State, "--json")
	_, jb, _ := runMain(t, nil, "ledger", a.host(), "--state", empty, "--repo", clone, "--json")
	if jl != jb || strings.Count(jb, "\n") != 3 {
		t.Errorf("--json from the branch\n%s\nwant\n%s", jb, jl)
	}
	// --from-branch where there is none is an error that says what to do.
	bare := t.TempDir()
	gitRun(t, bare, "init", "-q")
	code, out, stderr := runMain(t, nil, "ledger", a.host(), "--repo", bare, "--from-branch")
	if code != ExitCannot || !strings.Contains(stderr, "has no origin/fetch-cache or fetch-cache; fetch it first (git fetch origin fetch-cache)") {
		t.Errorf("--from-branch without a branch: exit %d\n%s%s", code, out, stderr)
	}
}

// The cache branch's files read through go-git behave as a file system.
func TestCacheBranchFS(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nAllow: /\n"), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"test-a", a.url("/a"), ""})
	if code := w.run(ctx); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	clone := cacheRepos(t, w)
	fsys, _, done, err := cacheBranch(clone, "")
	must(t, err)
	defer done()
	if err := fstest.TestFS(fsys, "state.json", "robots", "ledgers"); err != nil {
		t.Fatal(err)
	}
}
