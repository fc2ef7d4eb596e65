package ledger_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
)

func TestRequestsJoinsDispatchAndResultAcrossDays(t *testing.T) {
	l, err := ledger.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const h = "www.example.gov"
	day1 := time.Date(2026, 11, 28, 23, 59, 58, 0, time.UTC)
	lines := []ledger.Line{
		{Event: ledger.Dispatch, Time: day1, Host: h, URL: "https://www.example.gov/robots.txt", Purpose: ledger.PurposeRobots, RunID: "r1"},
		// The answer comes after midnight: it is filed under the next day.
		{Event: ledger.Result, Time: day1.Add(3 * time.Second), Host: h, URL: "https://www.example.gov/robots.txt", Purpose: ledger.PurposeRobots, RunID: "r1", Status: 200, Bytes: 40, DurationMS: 3000},
		{Event: ledger.Dispatch, Time: day1.Add(8 * time.Second), Host: h, URL: "https://www.example.gov/a", Purpose: ledger.PurposeDocument, Source: "x-a", RunID: "r1"},
		{Event: ledger.Result, Time: day1.Add(9 * time.Second), Host: h, URL: "https://www.example.gov/a", Purpose: ledger.PurposeDocument, Source: "x-a", RunID: "r1", Status: 503, Error: ""},
		// Killed in flight: no result line.
		{Event: ledger.Dispatch, Time: day1.Add(48 * time.Hour), Host: h, URL: "https://www.example.gov/a", Purpose: ledger.PurposeDocument, Source: "x-a", RunID: "r2"},
		// Another host in its own file is not listed.
		{Event: ledger.Dispatch, Time: day1, Host: "other.example.gov", URL: "https://other.example.gov/", Purpose: ledger.PurposeDocument, RunID: "r1"},
	}
	for _, line := range lines {
		if err := l.Append(line); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.Requests(h, "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []ledger.Request{
		{Time: day1, Method: "GET", URL: "https://www.example.gov/robots.txt", Purpose: "robots", RunID: "r1", Result: true, Status: 200, Bytes: 40, DurationMS: 3000},
		{Time: day1.Add(8 * time.Second), Method: "GET", URL: "https://www.example.gov/a", Purpose: "document", Source: "x-a", RunID: "r1", Result: true, Status: 503},
		{Time: day1.Add(48 * time.Hour), Method: "GET", URL: "https://www.example.gov/a", Purpose: "document", Source: "x-a", RunID: "r2"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Requests (-want +got):\n%s", d)
	}

	// A range that starts after the first day drops its dispatch, and the
	// orphan result of the next day with it.
	got, err = l.Requests(h, "2026-11-29", "2026-11-29")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].URL != "https://www.example.gov/a" || got[0].RunID != "r1" {
		t.Errorf("2026-11-29 only: %+v", got)
	}
	if _, err := l.Requests(h, "29/11/2026", ""); err == nil {
		t.Error("a malformed --since was accepted")
	}

	counts, err := l.CountDispatches(h, "2026-11-28", "2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"2026-11-28": 1, "2026-11-29": 1, "2026-11-30": 1}, counts); d != "" {
		t.Errorf("CountDispatches (-want +got):\n%s", d)
	}
}
