package cli

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// A contributor who adds a URL changes the manifests only, and report
// --check passes: the pages were rendered for the manifests before the
// change, and they catch up where they are published. A page edited by
// hand is still caught: the coverage Markdown against coverage.json
// always, and with --changed-since every file the change touched.
func TestReportCheckLeavesPagesToThePublisher(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	repo := filepath.Dir(w.Manifests)
	gitRun(t, repo, "init", "-q", "-b", "main")
	if code, out := w.reportCmd(now, false); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	gitRun(t, repo, "add", "manifests", "reports")
	gitRun(t, repo, "commit", "-q", "-m", "rendered")

	check := func(since string) (int, string) {
		t.Helper()
		var out bytes.Buffer
		err := runReport(ctx, reportOptions{paths: w.paths, Check: true, ChangedSince: since, Clock: clock.NewFake(now), IO: IO{Out: &out, Err: &out}})
		if err != nil {
			out.WriteString(err.Error())
		}
		return exitCode(err), out.String()
	}
	edit := func(name, text string) (restore func()) {
		t.Helper()
		p := filepath.Join(w.Reports, name)
		old, err := os.ReadFile(p)
		must(t, err)
		must(t, os.WriteFile(p, append(bytes.Clone(old), text...), 0o644))
		return func() { must(t, os.WriteFile(p, old, 0o644)) }
	}

	// The same manifests: every page is held to what report writes.
	restore := edit("hosts.md", "a line by hand\n")
	if code, out := check(""); code != ExitFailures || !strings.Contains(out, "hosts.md differs") {
		t.Errorf("hosts.md edited by hand, manifests as rendered: exit %d, want %d naming it\n%s", code, ExitFailures, out)
	}
	restore()

	// A contributor's manifest-only change.
	w.writeManifest("", src{"t-rates", "http://127.0.0.1:1/rates", ""}, src{"t-table", "http://127.0.0.1:1/table-2027", ""})
	for _, since := range []string{"", "HEAD"} {
		if code, out := check(since); code != ExitOK || !strings.Contains(out, "rendered for other manifests") {
			t.Errorf("--changed-since %q, manifests changed, pages as rendered: exit %d, want %d\n%s", since, code, ExitOK, out)
		}
	}

	// With it, a page edited by hand.
	restore = edit("coverage.md", "| a row by hand |\n")
	for _, since := range []string{"", "HEAD"} {
		if code, out := check(since); code != ExitFailures || !strings.Contains(out, "coverage.md differs") || !strings.Contains(out, "never edited by hand") {
			t.Errorf("--changed-since %q, coverage.md edited by hand: exit %d, want %d naming it\n%s", since, code, ExitFailures, out)
		}
	}
	restore()
	restore = edit("hosts.md", "a line by hand\n")
	if code, out := check("HEAD"); code != ExitFailures || !strings.Contains(out, "hosts.md differs") {
		t.Errorf("hosts.md edited by hand, --changed-since HEAD: exit %d, want %d naming it\n%s", code, ExitFailures, out)
	}
	restore()
	must(t, os.WriteFile(filepath.Join(w.Reports, "extra.html"), []byte("<p>by hand</p>"), 0o644))
	if code, out := check("HEAD"); code != ExitFailures || !strings.Contains(out, "extra.html is not a file report writes") {
		t.Errorf("a page added by hand, --changed-since HEAD: exit %d, want %d naming it\n%s", code, ExitFailures, out)
	}
	must(t, os.Remove(filepath.Join(w.Reports, "extra.html")))

	// A contributor who did run report: every file it touched is its
	// rendering, and the check is the whole one again.
	if code, out := w.reportCmd(now, false); code != ExitOK {
		t.Fatalf("report after the change: exit %d\n%s", code, out)
	}
	for _, since := range []string{"", "HEAD"} {
		if code, out := check(since); code != ExitOK || !strings.Contains(out, "is what report writes") {
			t.Errorf("--changed-since %q after report: exit %d, want %d\n%s", since, code, ExitOK, out)
		}
	}
	// --changed-since names a commit the repository has, and goes with --check.
	if code, out := check("no-such-ref"); code != ExitCannot || !strings.Contains(out, "fetch it first") {
		t.Errorf("--changed-since no-such-ref: exit %d, want %d\n%s", code, ExitCannot, out)
	}
	if code, _, stderr := runMain(t, nil, "report", "--changed-since", "HEAD", "--manifests", w.Manifests, "--reports", w.Reports, "--snapshots", w.Snapshots, "--state", w.State); code != ExitUsage {
		t.Errorf("--changed-since without --check: exit %d, want %d\n%s", code, ExitUsage, stderr)
	}
}

// The bot's pull request renders its pages for main's manifests, then
// proposes new editions in the manifests, one commit each: on that pull
// request every page it changed is what report writes for the manifests
// before the proposals, and is accepted as such; a page edited by hand
// on top of it is not.
func TestReportCheckAcceptsTheBotsPagesUnderItsProposals(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("Personal Allowance £12,570")})
	w := newWorkspace(t, testPolicy, "", src{"test-rates", a.url("/rates-2026"), ""})
	repo := filepath.Dir(w.Manifests)
	gitRun(t, repo, "init", "-q", "-b", "main")
	if code, out := w.reportCmd(time.Now(), false); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	gitRun(t, repo, "add", "manifests", "reports")
	gitRun(t, repo, "commit", "-q", "-m", "main")

	// The bot: a run, whose pages follow main's manifests…
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	// …and a new edition proposed.
	w.writeManifest("", src{"test-rates", a.url("/rates-2026"), ""}, src{"test-rates-2027", a.url("/rates-2027"), ""})

	check := func() (int, string) {
		t.Helper()
		var out bytes.Buffer
		opts := reportOptions{paths: w.paths, Check: true, ChangedSince: "HEAD", Clock: clock.Real{}, IO: IO{Out: &out, Err: &out}}
		opts.State = filepath.Join(t.TempDir(), "no-state") // a pull request's checkout has none
		err := runReport(ctx, opts)
		if err != nil {
			out.WriteString(err.Error())
		}
		return exitCode(err), out.String()
	}
	if code, out := check(); code != ExitOK {
		t.Errorf("the bot's pages under its proposal: exit %d, want %d\n%s", code, ExitOK, out)
	}
	hosts := filepath.Join(w.Reports, "hosts.md")
	data, err := os.ReadFile(hosts)
	must(t, err)
	must(t, os.WriteFile(hosts, append(data, "a line by hand\n"...), 0o644))
	if code, out := check(); code != ExitFailures || !strings.Contains(out, "hosts.md differs") {
		t.Errorf("hosts.md edited by hand on the bot's pages: exit %d, want %d naming it\n%s", code, ExitFailures, out)
	}
}
