package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

func TestRunWritesPolicyAndHostsPagesAndLedgerListsEveryRequest(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nDisallow: /private\n"),
		"/rates":      text("rates"),
		"/missing":    status(404),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""}, src{"t-missing", a.url("/missing"), ""}, src{"t-private", a.url("/private"), ""})
	if code := w.run(ctx); code != ExitOK && code != ExitFailures {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	policyMD, err := os.ReadFile(filepath.Join(w.Reports, "POLICY.md"))
	must(t, err)
	if !strings.Contains(string(policyMD), "| `"+a.host()+"` | 3 | 5ms–10ms | 100 |") {
		t.Errorf("POLICY.md lacks the host row:\n%s", policyMD)
	}
	hostsMD, err := os.ReadFile(filepath.Join(w.Reports, "hosts.md"))
	must(t, err)
	if !strings.Contains(string(hostsMD), "read, obeyed; 1 source(s) disallowed") {
		t.Errorf("hosts.md lacks the robots.txt state:\n%s", hostsMD)
	}

	// A week later the run's requests are in the last complete week.
	set, _ := manifest.Load(w.Manifests)
	st, err := state.Load(w.State)
	must(t, err)
	l, err := ledger.Open(w.ledgerDir())
	must(t, err)
	defer l.Close()
	rep := report.Build(set, st)
	must(t, public.Observe(rep, set, st, l.CountDispatches, time.Now().AddDate(0, 0, 7)))
	files, err := public.Pages(set, rep, time.Now())
	must(t, err)
	n := w.dispatches(a.host()) // robots.txt, /rates, /missing
	if n != 3 {
		t.Fatalf("%d dispatches, want 3", n)
	}
	if got := string(files[1].Data); !strings.Contains(got, "(any time) | read, obeyed; 1 source(s) disallowed | 0 | 0 | 0 | 3 |") &&
		!strings.Contains(got, "| any time | read, obeyed; 1 source(s) disallowed | 0 | 0 | 0 | 3 |") {
		t.Errorf("hosts.md a week later lacks the count 3 in the last column:\n%s", got)
	}

	// ledger HOST lists the three requests; flags may follow the host.
	code, stdout, stderr := runMain(t, nil, "ledger", a.url("/"), "--state", w.State)
	if code != ExitOK {
		t.Fatalf("ledger: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"robots.txt", "due check (t-rates)", "due check (t-missing)", " 404 ", "3 request(s) to " + a.host()} {
		if !strings.Contains(stdout, want) {
			t.Errorf("ledger output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runMain(t, nil, "ledger", a.host(), "--state", w.State, "--json", "--since", ledger.Day(time.Now()))
	if code != ExitOK {
		t.Fatalf("ledger --json: exit %d", code)
	}
	var reqs []ledger.Request
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r ledger.Request
		must(t, json.Unmarshal([]byte(line), &r))
		reqs = append(reqs, r)
	}
	if len(reqs) != 3 || reqs[0].Purpose != ledger.PurposeRobots || !reqs[2].Result {
		t.Errorf("ledger --json: %+v", reqs)
	}
	if code, _, stderr := runMain(t, nil, "ledger", a.host(), "--state", w.State, "--since", "yesterday"); code != ExitUsage {
		t.Errorf("--since yesterday: exit %d, want 2: %s", code, stderr)
	}
	if code, _, _ := runMain(t, nil, "ledger", "--state", w.State); code != ExitUsage {
		t.Errorf("no host: exit %d, want 2", code)
	}
}
