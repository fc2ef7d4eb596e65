package cli

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRun runs git in dir, as a contributor would, with a fixed identity.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestValidateBase commits manifests to a real repository on disk, adds
// sources in the work tree (one a duplicate of a committed URL in a file
// that sorts first, one that the kept robots.txt disallows), and checks
// what validate --base says, in a linked work tree too.
func TestValidateBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nDisallow: /drafts/\n"), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"test-old", a.url("/old"), ""})
	w.run(ctx) // keeps the robots.txt copy in the state
	repo := filepath.Dir(w.Manifests)
	gitRun(t, repo, "init", "-q", "-b", "main")
	gitRun(t, repo, "add", "manifests")
	gitRun(t, repo, "commit", "-q", "-m", "base")

	manifest := filepath.Join(w.Manifests, "test.yaml")
	data, err := os.ReadFile(manifest)
	must(t, err)
	data = append(data, []byte("  - {id: test-draft, url: "+a.url("/drafts/x")+", kind: rates-page, title: Draft}\n  - {id: test-new, url: "+a.url("/new")+", kind: rates-page, title: New}\n")...)
	must(t, os.WriteFile(manifest, data, 0o644))

	code, stdout, stderr := runMain(t, nil, "validate", "--manifests", w.Manifests, "--state", w.State, "--base", "main")
	if code != ExitOK {
		t.Fatalf("validate --base main: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"2 source(s) added or changed against main",
		"test-draft (",
		"robots.txt: disallows this URL: it will be blocked-robots, never fetched",
		"test-new (",
		"robots.txt: allows this URL",
		"host " + a.host() + ": not excluded, not paused, not in backoff",
		"budget: daily cap 100",
		"first fetched within 1 day(s)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("validate --base lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "test-old (") {
		t.Errorf("the unchanged source is listed as added:\n%s", stdout)
	}

	// The pull request's checks page says the same in words: what each
	// new source costs its host, its place in the host's budget and when
	// it is first fetched; a blocked one costs nothing.
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}
	if code, stdout, stderr := runMain(t, env, "validate", "--manifests", w.Manifests, "--state", w.State, "--base", "main"); code != ExitOK {
		t.Fatalf("validate --base main under Actions: exit %d\n%s%s", code, stdout, stderr)
	}
	md, err := os.ReadFile(summary)
	must(t, err)
	_, newPart, _ := strings.Cut(string(md), "#### `test-new`")
	newPart, _, _ = strings.Cut(newPart, "####")
	_, draftPart, _ := strings.Cut(string(md), "#### `test-draft`")
	draftPart, _, _ = strings.Cut(draftPart, "####")
	for _, want := range []string{
		"**Host:** `" + a.host() + "`",
		"**robots.txt:** allows this URL",
		"**Cost to the host:** 1 request(s) a day (recheck 24h)",
		"**Its place in the host's daily budget:** daily cap 100, 24.0 a day for re-checks of the host's other sources, 1 new on this host so far",
		"**First fetched:** first fetched within 1 day(s), at any hour",
	} {
		if !strings.Contains(newPart, want) {
			t.Errorf("the step summary of test-new lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(draftPart, "blocked-robots") || !strings.Contains(draftPart, "**Cost:** none") || strings.Contains(draftPart, "First fetched") {
		t.Errorf("the step summary of the disallowed test-draft:\n%s", draftPart)
	}

	// A duplicate added in a file that sorts before the base's is reported
	// on the added line.
	dup := "jurisdiction: aa\nname: AA\ntimezone: UTC\nsources:\n  - {id: aa-copy, url: " + a.url("/old") + ", kind: rates-page, title: Copy}\n"
	must(t, os.WriteFile(filepath.Join(w.Manifests, "aa.yaml"), []byte(dup), 0o644))
	code, _, stderr = runMain(t, nil, "validate", "--manifests", w.Manifests, "--state", w.State, "--base", "main")
	if code != ExitUsage || !strings.Contains(stderr, filepath.Join(w.Manifests, "aa.yaml")+":5:") || strings.Contains(stderr, "test.yaml:6:") {
		t.Errorf("the duplicate is not reported on the added line aa.yaml:5 only: exit %d\n%s", code, stderr)
	}
	must(t, os.Remove(filepath.Join(w.Manifests, "aa.yaml")))

	// The same from a linked work tree (git worktree add), where .git is a
	// file and the branches live in the main repository.
	linked := filepath.Join(t.TempDir(), "linked")
	gitRun(t, repo, "worktree", "add", "-q", "-b", "pr", linked)
	must(t, os.WriteFile(filepath.Join(linked, "manifests", "test.yaml"), data, 0o644))
	code, stdout, stderr = runMain(t, nil, "validate", "--manifests", filepath.Join(linked, "manifests"), "--state", w.State, "--base", "main")
	if code != ExitOK || !strings.Contains(stdout, "2 source(s) added or changed against main") {
		t.Errorf("from a linked work tree: exit %d\n%s%s", code, stdout, stderr)
	}

	if code, _, stderr := runMain(t, nil, "validate", "--manifests", w.Manifests, "--base", "no-such-branch"); code != ExitUsage || !strings.Contains(stderr, `no branch, remote branch or tag named "no-such-branch"`) {
		t.Errorf("unknown base: exit %d, %s", code, stderr)
	}
}
