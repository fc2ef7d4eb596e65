package cli

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// TestDryRunListsExcludedSources: the plan names each excluded source with
// the exclusion's reason, also at a host where nothing else is due.
func TestDryRunListsExcludedSources(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	b := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	pol := testPolicy + fmt.Sprintf("exclude:\n  - {host: %q, path: /private/, reason: \"owner request 2026-11-01\"}\n", b.host())
	w := newWorkspace(t, pol, "", src{"t-ok", a.url("/ok"), ""}, src{"t-ex", b.url("/private/doc"), ""})
	if code := w.run(ctx, func(o *runOptions) { o.DryRun = true }); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, w.out.String())
	}
	plan := w.out.String()
	if !strings.Contains(plan, "excluded  t-ex: excluded at the owner's request: owner request 2026-11-01") {
		t.Fatalf("the plan does not name the excluded source and why:\n%s", plan)
	}
	if !strings.Contains(plan, "1 excluded") {
		t.Errorf("the plan's first line does not count the exclusion:\n%s", plan)
	}
}

// TestLedgerSpentCountsTheDaysDispatches: the dry run's count of what a
// host already spent reads its ledger of the day, and finds nothing for a
// host or a day without one.
func TestLedgerSpentCountsTheDaysDispatches(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-a", a.url("/a"), ""}, src{"t-b", a.url("/b"), ""})
	w.clock = clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	w.run(ctx)
	spent := ledgerSpent(w.ledgerDir())
	for _, c := range []struct {
		host, day string
		want      int
	}{{a.host(), "2026-11-30", 3}, {"other.example", "2026-11-30", 0}, {a.host(), "2026-11-29", 0}} {
		if got, err := spent(c.host, c.day); err != nil || got != c.want {
			t.Errorf("%s on %s: %d, %v; want %d", c.host, c.day, got, err, c.want)
		}
	}
}
