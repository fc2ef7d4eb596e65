package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A pull request's validate reads the kept robots.txt copies from the
// cache branch (no state directory at hand, no network) and warns, on
// the added line, about a URL the host's robots.txt disallows.
func TestValidateRobotsFromCacheBranch(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nDisallow: /drafts/\n"), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"test-old", a.url("/old"), ""}, src{"test-old-draft", a.url("/drafts/old"), ""})
	if code := w.run(ctx); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	clone := cacheRepos(t, w)
	manifests := filepath.Join(clone, "manifests")
	data, err := os.ReadFile(filepath.Join(manifests, "test.yaml"))
	must(t, err)
	lines := strings.Count(string(data), "\n")
	data = append(data, []byte("  - {id: test-draft, url: "+a.url("/drafts/x")+", kind: rates-page, title: Draft}\n")...)
	must(t, os.WriteFile(filepath.Join(manifests, "test.yaml"), data, 0o644))

	noState := filepath.Join(t.TempDir(), "none")
	args := []string{"validate", "--manifests", manifests, "--state", noState, "--base", "origin/main"}
	code, stdout, stderr := runMain(t, nil, args...)
	if code != ExitOK || !strings.Contains(stdout, "robots.txt: unknown") || strings.Contains(stderr, "disallows") {
		t.Fatalf("without the cache branch the decision must be unknown: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, nil, append(args, "--cache-branch", "origin/fetch-cache")...)
	if code != ExitOK {
		t.Fatalf("validate --cache-branch: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"robots.txt copies and host state from the cache branch origin/fetch-cache at ",
		filepath.Join(manifests, "test.yaml") + ":" + strconv.Itoa(lines+1) + ":",
		"test-draft: robots.txt of " + a.host() + " (kept copy of ",
		"disallows this URL; it will be reported as blocked-robots",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "test-old-draft") {
		t.Errorf("warned about a source the pull request does not add:\n%s", stderr)
	}
	if !strings.Contains(stdout, "robots.txt: disallows this URL: it will be blocked-robots, never fetched") {
		t.Errorf("the --base report does not use the branch's copy:\n%s", stdout)
	}

	// A cache branch the repository does not have leaves it unknown, and
	// says so (a fork's first pull request).
	code, stdout, stderr = runMain(t, nil, append(args, "--cache-branch", "origin/no-such")...)
	if code != ExitOK || !strings.Contains(stderr, "has no origin/no-such; fetch it first") || !strings.Contains(stdout, "robots.txt: unknown") {
		t.Errorf("missing cache branch: exit %d\n%s%s", code, stdout, stderr)
	}

	// A state that names a parsed copy whose text is absent is unknown,
	// not "allowed".
	gitRun(t, clone, "checkout", "-q", "--", "manifests")
	gitRun(t, clone, "checkout", "-q", "-b", "cache", "origin/fetch-cache")
	gitRun(t, clone, "rm", "-q", "-r", "robots")
	gitRun(t, clone, "commit", "-q", "-m", "drop robots")
	gitRun(t, clone, "checkout", "-q", "main")
	must(t, os.WriteFile(filepath.Join(manifests, "test.yaml"), data, 0o644))
	code, stdout, stderr = runMain(t, nil, append(args, "--cache-branch", "cache")...)
	if code != ExitOK || !strings.Contains(stdout, "robots.txt: unknown: the state records a parsed robots.txt") {
		t.Errorf("copy without its text: exit %d\n%s%s", code, stdout, stderr)
	}
}
