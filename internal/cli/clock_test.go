package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// TestRobotsCopyAgeOnTheInjectedClock: `robots` says whether the kept copy
// is current at the command's clock, not the wall's: a copy fetched by a
// run on a fake clock is current an hour later on that clock, and stale
// two days later.
func TestRobotsCopyAgeOnTheInjectedClock(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nDisallow: /private/\n"), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	fetched := time.Date(2020, 1, 6, 9, 0, 0, 0, time.UTC)
	w.clock = clock.NewFake(fetched)
	w.run(ctx)
	explain := func(now time.Time) string {
		w.out.Reset()
		err := runRobots(ctx, robotsOptions{paths: w.paths, URL: a.url("/private/x"), Clock: clock.NewFake(now), IO: IO{Out: &w.out, Err: &w.out}})
		must(t, err)
		return w.out.String()
	}
	if out := explain(fetched.Add(time.Hour)); strings.Contains(out, "note:") {
		t.Errorf("an hour after the fetch, on the run's clock, the copy is said stale:\n%s", out)
	}
	if out := explain(fetched.Add(48 * time.Hour)); !strings.Contains(out, "note:") {
		t.Errorf("two days after the fetch (robots_ttl 24h), the copy is not said stale:\n%s", out)
	}
}

// TestRunIDFromTheInjectedEnvironment: `run`'s default --run-id is read
// from the command's environment, not the process's.
func TestRunIDFromTheInjectedEnvironment(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	t.Setenv("GITHUB_RUN_ID", "from-the-process")
	env := func(k string) string {
		if k == "GITHUB_RUN_ID" {
			return "from-the-io"
		}
		return ""
	}
	var out strings.Builder
	code := Main(ctx, []string{"run", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State}, IO{Out: &out, Err: &out, Getenv: env})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	for _, l := range w.ledgerLines() {
		if l.RunID != "from-the-io" {
			t.Fatalf("ledger line with run id %q, want the injected environment's", l.RunID)
		}
	}
}

// TestReportPagesOnTheInjectedClock: `report` counts the weeks of the
// public pages up to the command's clock, not the wall's.
func TestReportPagesOnTheInjectedClock(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	w.clock = clock.NewFake(time.Date(2020, 1, 15, 9, 0, 0, 0, time.UTC))
	w.run(ctx)
	must(t, runReport(ctx, reportOptions{paths: w.paths, Clock: w.clock, IO: IO{Out: &w.out, Err: &w.out}}))
	var pages strings.Builder
	for _, name := range []string{"hosts.md", "index.html"} {
		data, err := os.ReadFile(filepath.Join(w.Reports, name))
		if err == nil {
			pages.Write(data)
		}
	}
	if !strings.Contains(pages.String(), "2020-W02") {
		t.Fatalf("the public pages do not count the weeks before the command's clock (2020-W02):\n%.2000s", pages.String())
	}
}
