package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
)

// runMain runs the command line as a user would and returns exit code and output.
func runMain(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(ctx, args, IO{Out: &out, Err: &errb, Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errb.String()
}

func TestUsageAndUnknownCommand(t *testing.T) {
	if code, _, stderr := runMain(t, nil); code != ExitUsage || !strings.Contains(stderr, "Commands:") {
		t.Errorf("no command: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runMain(t, nil, "fetch"); code != ExitUsage || !strings.Contains(stderr, `unknown command "fetch"`) {
		t.Errorf("unknown command: exit %d, stderr %q", code, stderr)
	}
	for name := range commands {
		if code, stdout, _ := runMain(t, nil, name, "--help"); code != ExitOK || !strings.Contains(stdout, "Usage: taxkernelbot "+name) {
			t.Errorf("%s --help: exit %d, stdout %q", name, code, stdout)
		}
	}
	if code, _, _ := runMain(t, nil, "run", "--no-such-flag"); code != ExitUsage {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
}

func TestValidateAnnotatesUnderGitHubActions(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-doc", "http://127.0.0.1:1/doc", "    colour: blue\n"})
	code, stdout, stderr := runMain(t, map[string]string{"GITHUB_ACTIONS": "true"}, "validate", "--manifests", w.Manifests)
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	file := filepath.Join(w.Manifests, "test.yaml")
	if !strings.Contains(stdout, "::error file="+file+",line=10,col=5::") {
		t.Errorf("stdout lacks the ::error annotation with its column\n%s", stdout)
	}
	// Each problem is printed once: in Actions, not again on stderr.
	if strings.Contains(stderr, "colour") {
		t.Errorf("the problem is printed twice, also on stderr:\n%s", stderr)
	}
	// Without GITHUB_ACTIONS no annotation is printed, and stderr has
	// file:line:column.
	_, stdout, stderr = runMain(t, nil, "validate", "--manifests", w.Manifests)
	if strings.Contains(stdout, "::error") {
		t.Errorf("annotation printed outside GitHub Actions: %s", stdout)
	}
	if !strings.Contains(stderr, file+":10:5: ") {
		t.Errorf("stderr lacks %s:10:5: …\n%s", file, stderr)
	}
}

func TestValidateTheRealManifests(t *testing.T) {
	code, stdout, stderr := runMain(t, nil, "validate", "--manifests", "../../manifests", "--state", t.TempDir())
	if code != ExitOK {
		t.Fatalf("the repository's manifests do not validate (exit %d):\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "valid") {
		t.Errorf("stdout %q", stdout)
	}
}

func TestValidateWarnsAboutURLsTheKeptRobotsDisallow(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nDisallow: /new\n"), "/ok": text("ok")})
	w := newWorkspace(t, testPolicy, "", src{"t-ok", a.url("/ok"), ""})
	w.run(ctx) // keeps the robots.txt copy in the state
	w2 := newWorkspace(t, testPolicy, "", src{"t-ok", a.url("/ok"), ""}, src{"t-new", a.url("/new"), ""})
	code, _, stderr := runMain(t, nil, "validate", "--manifests", w2.Manifests, "--state", w.State)
	if code != ExitOK || !strings.Contains(stderr, "warning: t-new: robots.txt of "+a.host()) {
		t.Fatalf("exit %d, want 0 with a warning about t-new:\n%s", code, stderr)
	}
}

func TestCiteVerifyRobotsReport(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.01\n"),
		"/rates": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("rates"))
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	w.run(ctx)
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}

	code, stdout, stderr := runMain(t, nil, append([]string{"cite"}, append(flags, "t-rates")...)...)
	e := w.report()["t-rates"]
	for _, want := range []string{a.url("/rates"), "sha256:" + e.SHA256, "size:         5", "content_type: text/html"} {
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("cite: exit %d, output lacks %q:\n%s%s", code, want, stdout, stderr)
		}
	}
	if code, _, _ := runMain(t, nil, append([]string{"cite"}, append(flags, "no-such-id")...)...); code != ExitUsage {
		t.Errorf("cite of an unknown id: exit %d, want 2", code)
	}

	if code, stdout, _ := runMain(t, nil, "verify", "--snapshots", w.Snapshots); code != ExitOK || !strings.Contains(stdout, "every blob matches") {
		t.Errorf("verify on a good store: exit %d\n%s", code, stdout)
	}
	blob := filepath.Join(w.Snapshots, "sha256", e.SHA256[:2], e.SHA256)
	must(t, os.Chmod(blob, 0o644))
	must(t, os.WriteFile(blob, []byte("tampered"), 0o644))
	if code, stdout, _ := runMain(t, nil, "verify", "--snapshots", w.Snapshots); code != ExitFailures || !strings.Contains(stdout, e.SHA256) {
		t.Errorf("verify on a tampered blob: exit %d, want 1 naming the blob\n%s", code, stdout)
	}

	code, stdout, _ = runMain(t, nil, "robots", "--manifests", w.Manifests, "--state", w.State, a.url("/private/x"))
	if code != ExitOK || !strings.Contains(stdout, "disallowed") || !strings.Contains(stdout, "crawl-delay: 10ms") {
		t.Errorf("robots explain: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := runMain(t, nil, "robots", "--manifests", w.Manifests, "--state", w.State, a.url("/rates")); code != ExitOK || !strings.Contains(stdout, "allowed") || strings.Contains(stdout, "disallowed") {
		t.Errorf("robots explain of an allowed URL: exit %d\n%s", code, stdout)
	}
	if code, _, _ := runMain(t, nil, "robots", "--state", w.State, "https://unknown.example/"); code != ExitCannot {
		t.Errorf("robots without a kept copy: exit %d, want 3", code)
	}

	must(t, os.RemoveAll(w.Reports))
	if code, _, _ := runMain(t, nil, "report", "--manifests", w.Manifests, "--reports", w.Reports, "--state", w.State); code != ExitOK {
		t.Fatalf("report: exit %d", code)
	}
	if got := w.status("t-rates"); got != "fresh" {
		t.Errorf("regenerated report says %s, want fresh", got)
	}
}

func TestRunStoreUnwritableExit3(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	must(t, os.WriteFile(w.Snapshots, []byte("a file where the store should be"), 0o644))
	if code := w.run(ctx); code != ExitCannot {
		t.Fatalf("exit %d, want 3 when the store cannot be written", code)
	}
	if len(a.seen()) != 0 {
		t.Fatal("a request was made although the store is unwritable")
	}
}

func TestRunOnly(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-a", a.url("/a"), ""}, src{"t-b", a.url("/b"), ""})
	w.run(ctx, func(o *runOptions) { o.Only = "t-b" })
	if a.count("/a") != 0 || a.count("/b") != 1 {
		t.Fatalf("--only t-b requested %v", a.paths())
	}
	if got := w.status("t-a"); got != "pending" {
		t.Errorf("t-a: %s, want pending", got)
	}
	if code := w.run(ctx, func(o *runOptions) { o.Only = "nope" }); code != ExitUsage {
		t.Errorf("--only naming nothing: exit %d, want 2", code)
	}
	w.run(ctx, func(o *runOptions) { o.Only = "test" }) // the jurisdiction
	if a.count("/a") != 1 {
		t.Errorf("--only <jurisdiction> did not run its sources: %v", a.paths())
	}
}

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs real millisecond delays")
	}
	var out bytes.Buffer
	dir := t.TempDir()
	if err := runDemo(ctx, demoOptions{Dir: dir, IO: IO{Out: &out, Err: &out}}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"→ 304 unchanged",                              // the second run revalidates
		"changed only for demo-budget-rates (changed)", // the only real change; the blinking page none
		"robots.txt unavailable",                       // the 503 robots host
		"blocked-robots",                               // the disallowed draft
		"HTTP 429 (Retry-After: 1)",                    // rate limiting
		"paused",                                       // the 403 portal
		"gone",                                         // the 404
		"update the manifest to",                       // the redirect
		"What the servers saw",
		filepath.Join(dir, "reports", "coverage.md"),
		"run: signing every request with key",              // the demo's own key
		"Web Bot Auth signature that the servers verified", // checked on arrival
		"; 0 unsigned, 0 refused.",                         // every one of them
		"7 capture(s) (request and response), 4 revisit(s), 6 source(s)", // the WARC: both budget editions, the forms page once
		filepath.Join(dir, "demo.warc.gz"),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(got)
	}
}

func TestValidateCollapsesRepeatedProblems(t *testing.T) {
	var srcs []src
	for i := range 12 {
		srcs = append(srcs, src{fmt.Sprintf("test-%d", i), fmt.Sprintf("http://127.0.0.1:1/%d", i), "    colour: blue\n"})
	}
	w := newWorkspace(t, testPolicy, "", srcs...)
	code, stdout, _ := runMain(t, map[string]string{"GITHUB_ACTIONS": "true"}, "validate", "--manifests", w.Manifests)
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	if n := strings.Count(stdout, "::error "); n != 1 {
		t.Fatalf("%d annotations for one repeated problem, want 1:\n%s", n, stdout)
	}
	if !strings.Contains(stdout, `(12 times; also at `) || !strings.Contains(stdout, " and 6 more)") {
		t.Errorf("the annotation does not count the repeats:\n%s", stdout)
	}
}

func TestValidateListsOverridesInTheStepSummary(t *testing.T) {
	hosts := "hosts:\n  127.0.0.1:1:\n    robots_override:\n      permission: \"email from the webmaster, 2026-10-01, ref 4411\"\n"
	w := newWorkspace(t, testPolicy, hosts, src{"test-a", "http://127.0.0.1:1/a", ""})
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}
	if code, stdout, stderr := runMain(t, env, "validate", "--manifests", w.Manifests, "--state", t.TempDir()); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := os.ReadFile(summary)
	must(t, err)
	if !strings.Contains(string(got), "| `127.0.0.1:1` | email from the webmaster, 2026-10-01, ref 4411 |") {
		t.Errorf("the step summary does not list the override:\n%s", got)
	}
}

// TestValidateOverridesSummaryInert: a permission is a contributor's
// text; in the step summary it keeps its cell and forms no mention, image,
// link or comment.
func TestValidateOverridesSummaryInert(t *testing.T) {
	perm := `email from the webmaster, 2026-10-01, a\\|b @octocat ![t](https://evil.example/t.png) [x](https://evil.example/) <!-- c`
	hosts := "hosts:\n  127.0.0.1:1:\n    robots_override:\n      permission: \"" + perm + "\"\n"
	w := newWorkspace(t, testPolicy, hosts, src{"test-a", "http://127.0.0.1:1/a", ""})
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}
	if code, stdout, stderr := runMain(t, env, "validate", "--manifests", w.Manifests, "--state", t.TempDir()); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := os.ReadFile(summary)
	must(t, err)
	if live := escapetest.Live(string(got), escapetest.Options{}); len(live) > 0 {
		t.Errorf("live Markdown %q in the step summary:\n%s", live, got)
	}
	if !strings.Contains(string(got), ` a\\\|b `) {
		t.Errorf("the permission's backslash is not escaped:\n%s", got)
	}
}

func TestACopyNeverFetchesUnderOurIdentity(t *testing.T) {
	var out bytes.Buffer
	env := map[string]string{"GITHUB_REPOSITORY": "someone/taxkernelbot"}
	io := IO{Out: &out, Err: &out, Getenv: func(k string) string { return env[k] }}
	if code := Main(ctx, []string{"validate", "--manifests", "../../manifests"}, io); code != ExitUsage {
		t.Fatalf("validate in a copy that keeps our identity: exit %d, want %d\n%s", code, ExitUsage, &out)
	}
	if !strings.Contains(out.String(), "user_agent") || !strings.Contains(out.String(), "someone/taxkernelbot") {
		t.Errorf("the error does not say what to set:\n%s", &out)
	}
	out.Reset()
	env["GITHUB_REPOSITORY"] = "taxkernel/taxkernelbot"
	if code := Main(ctx, []string{"validate", "--manifests", "../../manifests"}, io); code != ExitOK {
		t.Fatalf("validate in our own repository: exit %d\n%s", code, &out)
	}
}
