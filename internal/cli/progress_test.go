package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

// slowPolicy spaces requests 12 s apart: each wait is longer than the 10 s
// a log announces, and three of them pass a 30 s summary.
var slowPolicy = strings.Replace(testPolicy, "delay: {min: 5ms, max: 10ms}", "delay: {min: 12s, max: 12s}", 1)

// In a log, a run prints timestamped lines, one per wait longer than 10 s
// (what for, until when), a summary every 30 s, and last where the report
// is — all on the run's clock.
func TestProgressLogOnFakeClock(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nAllow: /\n"),
		"/a":          text("a"), "/b": text("b"), "/c": text("c"),
	})
	w := newWorkspace(t, slowPolicy, "", src{"test-a", a.url("/a"), ""}, src{"test-b", a.url("/b"), ""}, src{"test-c", a.url("/c"), ""})
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	w.clock = clock.NewFake(start)
	if code := w.run(context.Background()); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	out := w.out.String()
	t.Log("\n" + out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "run: requests are not signed") {
			continue // said before the run starts
		}
		if _, err := time.Parse(time.RFC3339, strings.Fields(l)[0]); err != nil {
			t.Errorf("line without a timestamp: %q", l)
		}
	}
	host := a.host()
	for _, want := range []string{
		"2026-11-30T10:00:00Z  " + host + "  waits 12s for the spacing between requests (delay or Crawl-delay), until 10:00:12 UTC",
		"2026-11-30T10:00:12Z  " + host + "  waits 12s for the spacing between requests (delay or Crawl-delay), until 10:00:24 UTC",
		// Printed when the third document's ledger line is written, 20 ms
		// before it is requested at 10:00:36.
		"2026-11-30T10:00:35Z  summary: 2/3 checked, 4 request(s), 0 failing, 0 deferred; hosts: 1 waiting",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no line %q", want)
		}
	}
	if n := strings.Count(out, "summary:"); n != 1 {
		t.Errorf("%d summary lines in 36 s, want 1", n)
	}
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "run: report in "+w.Reports+"/coverage.md (and coverage.json beside it)") {
		t.Errorf("last line %q does not say where the report is", last)
	}
}

// A real run on a terminal: the live view follows the host through its
// turn, shows its budget, and at the end of the turn what holds it back
// (here the backoff after a 503); it is gone when the run ends.
func TestProgressTerminalRun(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nAllow: /\n"),
		"/a":          status(http.StatusServiceUnavailable),
	})
	w := newWorkspace(t, testPolicy, "", src{"test-a", a.url("/a"), ""})
	w.clock = clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	w.run(context.Background(), func(o *runOptions) { o.Terminal = true })
	shown, ever := escapetest.PlayScreen(t, w.out.String())
	host := a.host()
	var sawBudget, sawBackoff bool
	for _, l := range ever {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != host {
			continue
		}
		sawBudget = sawBudget || strings.Contains(l, " 98 left today")
		sawBackoff = sawBackoff || f[1] == "done" && strings.Contains(l, "backoff until 10:00:00 UTC")
	}
	if !sawBudget || !sawBackoff {
		t.Errorf("the live view never showed the budget left (98 of 100) and the backoff at the end of the turn:\n%s", strings.Join(ever, "\n"))
	}
	for _, l := range shown {
		if strings.HasPrefix(l, "──") || strings.HasPrefix(l, "  "+host) {
			t.Errorf("the live view is still on the screen after the run: %q", l)
		}
	}
	if last := shown[len(shown)-1]; !strings.Contains(last, "run: report in ") {
		t.Errorf("last line %q does not say where the report is", last)
	}
	// The run recorded a failure: the error, printed after as the last
	// line, says where the report is too.
	var out bytes.Buffer
	err := runRun(context.Background(), runOptions{paths: w.paths, Limits: pipeline.Limits{MaxDuration: time.Minute, Clock: w.clock}, IO: IO{Out: &out, Err: &out}})
	if exitCode(err) != ExitFailures || !strings.Contains(fmt.Sprint(err), "the report is "+filepath.Join(w.Reports, "coverage.md")) {
		t.Errorf("run with a failure: exit %d, error %q; want 1 and where the report is", exitCode(err), err)
	}
}
