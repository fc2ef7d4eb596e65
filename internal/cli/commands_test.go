package cli

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		if code, _, stderr := runMain(t, nil, name, "--help"); code != ExitOK || !strings.Contains(stderr, "Usage: taxkernelbot "+name) {
			t.Errorf("%s --help: exit %d, stderr %q", name, code, stderr)
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
	if !strings.Contains(stderr, file+":10: ") {
		t.Errorf("stderr lacks %s:10: …\n%s", file, stderr)
	}
	if !strings.Contains(stdout, "::error file="+file+",line=10::") {
		t.Errorf("stdout lacks the ::error annotation\n%s", stdout)
	}
	// Without GITHUB_ACTIONS no annotation is printed.
	if _, stdout, _ := runMain(t, nil, "validate", "--manifests", w.Manifests); strings.Contains(stdout, "::error") {
		t.Errorf("annotation printed outside GitHub Actions: %s", stdout)
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
	if code, _, _ := runMain(t, nil, "robots", "--state", w.State, "https://unknown.example/"); code != ExitFailures {
		t.Errorf("robots without a kept copy: exit %d, want 1", code)
	}

	must(t, os.RemoveAll(w.Reports))
	if code, _, _ := runMain(t, nil, "report", "--manifests", w.Manifests, "--reports", w.Reports, "--state", w.State); code != ExitOK {
		t.Fatalf("report: exit %d", code)
	}
	if got := w.status("t-rates"); got != "fresh" {
		t.Errorf("regenerated report says %s, want fresh", got)
	}
}

func TestRunRefusesWhileAnotherRunHoldsTheState(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	unlock, err := lockState(w.lockPath())
	must(t, err)
	defer unlock()
	if code := w.run(ctx); code != ExitCannot {
		t.Fatalf("exit %d, want 3 while another run holds the state", code)
	}
	if len(a.seen()) != 0 {
		t.Fatal("a request was made while another run held the state")
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
		"→ 304 unchanged",           // the second run revalidates
		"byte-identical to run 1",   // and changes no report
		"robots.txt unavailable",    // the 503 robots host
		"blocked-robots",            // the disallowed draft
		"HTTP 429 (Retry-After: 1)", // rate limiting
		"paused",                    // the 403 portal
		"gone",                      // the 404
		"update the manifest to",    // the redirect
		"What the servers saw",
		filepath.Join(dir, "reports", "coverage.md"),
		"run: signing every request with key",                            // the demo's own key
		"Web Bot Auth signature that the servers verified",               // checked on arrival
		"; 0 unsigned, 0 refused.",                                       // every one of them
		"4 capture(s) (request and response), 4 revisit(s), 4 source(s)", // the WARC
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
