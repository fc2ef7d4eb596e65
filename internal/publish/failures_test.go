package publish

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

func TestFailingSources(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ledgers")
	led, err := ledger.Open(dir)
	must(t, err)
	day := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for i := range 4 {
		at := day.Add(time.Duration(i) * 24 * time.Hour)
		must(t, led.Append(ledger.Line{Event: ledger.Dispatch, Time: at, Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Source: "uk-rates"}))
		must(t, led.Append(ledger.Line{Event: ledger.Result, Time: at.Add(time.Second), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Source: "uk-rates", Status: 503}))
		must(t, led.Append(ledger.Line{Event: ledger.Result, Time: at.Add(2 * time.Second), Host: "www.gov.uk", URL: "https://www.gov.uk/ok", Source: "uk-ok", Status: 200}))
	}
	must(t, led.Append(ledger.Line{Event: ledger.Result, Time: day.Add(3*24*time.Hour + time.Minute), Host: "x.example", URL: "https://x.example/", Source: "x-down", Error: "connection refused"}))
	led.Close()
	rep := &report.Report{Sources: []report.Entry{
		{Jurisdiction: "uk", ID: "uk-ok", Status: "fresh", Since: "2026-11-01"},
		{Jurisdiction: "uk", ID: "uk-rates", Title: "Rates", URL: "https://www.gov.uk/rates", Status: "failing", Since: "2026-11-27", Detail: "HTTP 503"},
		{Jurisdiction: "uk", ID: "uk-draft", Status: "blocked-robots", Since: "2026-11-01"},
		{Jurisdiction: "xx", ID: "x-down", Status: "failing", Since: "2026-11-30", Detail: "connection refused"},
	}}
	got, err := failingSources(rep, dir, 3)
	must(t, err)
	if len(got) != 2 || got[0].ID != "uk-rates" || got[1].ID != "x-down" {
		t.Fatalf("got %+v", got)
	}
	r := got[0]
	if !r.Since.Equal(day.Truncate(24*time.Hour)) || !strings.HasPrefix(r.Advice, "The server answered with an error") || r.Detail != "HTTP 503" {
		t.Errorf("uk-rates: %+v", r)
	}
	want := []string{
		"2026-11-28T09:00:01Z GET https://www.gov.uk/rates → 503",
		"2026-11-29T09:00:01Z GET https://www.gov.uk/rates → 503",
		"2026-11-30T09:00:01Z GET https://www.gov.uk/rates → 503",
	}
	if strings.Join(r.Checks, "\n") != strings.Join(want, "\n") {
		t.Errorf("checks:\n%s\nwant\n%s", strings.Join(r.Checks, "\n"), strings.Join(want, "\n"))
	}
	if c := got[1].Checks; len(c) != 1 || c[0] != "2026-11-30T09:01:00Z GET https://x.example/ → no answer (connection refused)" {
		t.Errorf("x-down checks: %q", c)
	}
}

// TestFailingSourcesAreTheFailures: the sources that open an issue are
// those in a status state.Status.Failure counts a failure, whether or not
// there is advice written for it, and only those.
func TestFailingSourcesAreTheFailures(t *testing.T) {
	t.Parallel()
	var rep report.Report
	statuses := []state.Status{state.Pending, state.Fresh, state.Failing, state.Gone, state.BlockedRobots, state.RobotsUnavailable,
		state.Unreachable, state.Excluded, state.Paused, state.Moved, state.TooLarge, "a-status-with-no-advice"}
	for _, s := range statuses {
		rep.Sources = append(rep.Sources, report.Entry{Jurisdiction: "uk", ID: "uk-" + string(s), Status: s, Since: "2026-11-01"})
	}
	got, err := failingSources(&rep, filepath.Join(t.TempDir(), "ledgers"), 0)
	must(t, err)
	opened := map[string]bool{}
	for _, f := range got {
		opened[f.Status] = true
		if f.Advice == "" {
			t.Errorf("%s opens an issue with no advice", f.Status)
		}
	}
	for _, s := range statuses {
		if opened[string(s)] != s.Failure() {
			t.Errorf("status %s: opens an issue %v, Failure() %v", s, opened[string(s)], s.Failure())
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
