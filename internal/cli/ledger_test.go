package cli

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
)

// A range of past days with no request in the kept ledgers is an answer:
// nothing was sent then, and no run can change that. It exits 0, says so
// in words (nothing on stdout with --json, a script's empty list), and
// never tells the user to run something that cannot fill a past range.
// Only where no ledger is kept at all is there nothing to answer from.
func TestLedgerEmptyPastRangeIsAnAnswer(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	if code := w.run(ctx); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	days, err := ledger.Days(w.ledgerDir())
	if err != nil || len(days) != 1 {
		t.Fatalf("ledger days %v, %v; want the run's one day", days, err)
	}
	ran, _ := time.Parse(time.DateOnly, days[0])
	before := ran.AddDate(0, 0, -2).Format(time.DateOnly)
	dayBefore := ran.AddDate(0, 0, -1).Format(time.DateOnly)
	later := clock.NewFake(ran.AddDate(0, 0, 2).Add(9 * time.Hour))
	noRepo := t.TempDir()
	if _, err := git.PlainInit(noRepo, false); err != nil {
		t.Fatal(err)
	}
	ledgerAt := func(state, host, since, until string, json bool) (int, string) {
		var out bytes.Buffer
		opts := ledgerOptions{paths: paths{State: state}, Host: host, Since: since, Until: until, JSON: json,
			Repo: noRepo, Clock: later, IO: IO{Out: &out, Err: &out}}
		err := runLedger(ctx, opts)
		if err != nil {
			out.WriteString(err.Error())
		}
		return exitCode(err), out.String()
	}

	for _, host := range []string{a.host(), "www.gov.uk"} { // a host asked before, and one never asked
		code, out := ledgerAt(w.State, host, before, dayBefore, false)
		if code != ExitOK || !strings.Contains(out, "0 requests to "+host+" from "+before+" to "+dayBefore) || strings.Contains(out, "taxkernelbot run") {
			t.Errorf("%s, a past range with no request: exit %d, want %d with 0 requests and no run to make\n%s", host, code, ExitOK, out)
		}
		code, out = ledgerAt(w.State, host, "", dayBefore, true)
		if code != ExitOK || out != "" {
			t.Errorf("%s, --json over a past range with no request: exit %d, printed %q; want exit 0 and no line", host, code, out)
		}
	}
	// The run's own day is not past for this clock's "today" minus two,
	// but is past here: it has requests, listed as ever.
	if code, out := ledgerAt(w.State, a.host(), days[0], days[0], false); code != ExitOK || !strings.Contains(out, "request(s) to "+a.host()) {
		t.Errorf("the run's day: exit %d\n%s", code, out)
	}
	// A range that reaches today may still be filled by a run.
	today := ran.AddDate(0, 0, 2).Format(time.DateOnly)
	if code, out := ledgerAt(w.State, "www.gov.uk", before, today, false); code != ExitCannot || !strings.Contains(out, "taxkernelbot run") {
		t.Errorf("a range up to today with no request: exit %d, want %d naming the run that fills it\n%s", code, ExitCannot, out)
	}
	// No ledger kept at all: nothing to answer from, and the way to get
	// the ledgers is to fetch them, not to run.
	empty := filepath.Join(t.TempDir(), "state")
	code, out := ledgerAt(empty, a.host(), before, dayBefore, false)
	if code != ExitCannot || !strings.Contains(out, "git fetch origin fetch-cache") || strings.Contains(out, "taxkernelbot run") {
		t.Errorf("no ledger kept, a past range: exit %d, want %d telling to fetch the cache branch\n%s", code, ExitCannot, out)
	}
}
