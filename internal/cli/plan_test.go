package cli

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
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
