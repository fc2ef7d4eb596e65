package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// offline is the resolver of a runner with no network: Go's own resolver,
// whose every connection to a name server finds no route. The run dials
// through it too, so nothing leaves the machine even if the run went on.
func offline() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: "udp", Err: syscall.ENETUNREACH}
	}}
}

// A runner with no network blames no site: the run stops before its first
// request, writes no ledger line, marks no source and backs off no host,
// and exits 3 saying what is wrong.
func TestNoNetworkBlamesNoSite(t *testing.T) {
	// Public hosts, so a public policy: nothing is sent whatever its pace.
	const public = "user_agent: \"ExampleTaxBot/1.0 (+https://example.org/bot)\"\nfrom: bot@example.org\n"
	w := newWorkspace(t, public, "",
		src{"t-a", "https://www.example.gov/rates", ""},
		src{"t-b", "https://tax.example.org/table.pdf", ""},
		src{"t-c", "https://tax.example.org/schedule.pdf", ""})
	err := runRun(ctx, runOptions{paths: w.paths, Limits: pipeline.Limits{RunID: "test"}, Resolver: offline(),
		IO: IO{Out: &w.out, Err: &w.out, Getenv: func(string) string { return "" }}})
	if code := exitCode(err); code != 3 {
		t.Errorf("exit %d (%v), want 3", code, err)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "this runner has no network") {
		t.Errorf("error %q, want it to begin \"this runner has no network\"", err)
	}
	if strings.Contains(w.out.String(), "request(s)") {
		t.Errorf("a run that sent nothing counts requests:\n%s", w.out.String())
	}
	if lines := w.ledgerLines(); len(lines) != 0 {
		t.Errorf("%d ledger line(s) claim requests that never left the machine: %+v", len(lines), lines)
	}
	st, err := state.Load(w.State)
	must(t, err)
	for _, id := range []string{"t-a", "t-b", "t-c"} {
		if s := st.Source(id); s.Status != "" && s.Status != state.Pending {
			t.Errorf("%s recorded as %s (%s)", id, s.Status, s.Detail)
		}
	}
	for _, h := range []string{"www.example.gov", "tax.example.org"} {
		if hs := st.Host(h); !hs.BackoffUntil.IsZero() || hs.Failures != 0 {
			t.Errorf("host %s put into backoff: %+v", h, hs)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Reports, "coverage.json")); err == nil {
		for id, e := range w.report() {
			if e.Status != "pending" {
				t.Errorf("report: %s %s, want pending", id, e.Status)
			}
		}
	}
}
