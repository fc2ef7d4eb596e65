package report

import (
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/state"
)

// TestKeep: a source the state never saw keeps the committed entry (same
// URL), with the manifest's current title.
func TestKeep(t *testing.T) {
	onMain := &Report{Sources: []Entry{
		{ID: "s1", URL: "https://x.gov/1", Title: "old", Status: state.Fresh, SHA256: "aa"},
		{ID: "s2", URL: "https://x.gov/old", Status: state.Fresh, SHA256: "bb"},
	}}
	rep := &Report{Sources: []Entry{
		{ID: "s1", URL: "https://x.gov/1", Title: "new", Status: state.Pending},
		{ID: "s2", URL: "https://x.gov/2", Status: state.Pending},
	}}
	got := Keep(rep, onMain).Sources
	if got[0].Status != state.Fresh || got[0].SHA256 != "aa" || got[0].Title != "new" {
		t.Errorf("s1: %+v, want main's fresh entry with the manifest's title", got[0])
	}
	if got[1].Status != state.Pending {
		t.Errorf("s2, whose URL changed: %+v, want pending", got[1])
	}
}

// TestAsOfIsTheMondayAfterTheWeek: the pages of a report are rendered as
// of the Monday after its last complete week, whatever day it is read
// on, and that Monday's last complete week is the report's week again.
func TestAsOfIsTheMondayAfterTheWeek(t *testing.T) {
	for _, c := range []struct {
		week string
		want string
	}{
		{"2026-W48", "2026-11-30"},
		{"2026-W53", "2027-01-04"}, // 2026 has 53 ISO weeks
		{"2027-W01", "2027-01-11"},
		{"2020-W01", "2020-01-06"}, // week 1 of 2020 began on 30 December 2019
	} {
		r := &Report{Week: c.week}
		got, err := r.AsOf(time.Now())
		if err != nil {
			t.Fatalf("%s: %v", c.week, err)
		}
		if got.Format(time.DateOnly) != c.want || got.Weekday() != time.Monday {
			t.Errorf("AsOf(%s) = %s, want Monday %s", c.week, got.Format(time.DateOnly), c.want)
		}
		if back := WeekLabel(got); back != c.week {
			t.Errorf("WeekLabel(AsOf(%s)) = %s", c.week, back)
		}
	}
	for _, bad := range []string{"2026-48", "2025-W53", "2026-W00", "week"} {
		if _, err := (&Report{Week: bad}).AsOf(time.Now()); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("AsOf(%q): %v, want an error naming it", bad, err)
		}
	}
	now := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	if got, _ := (&Report{}).AsOf(now); !got.Equal(now) {
		t.Errorf("a report naming no week: AsOf = %s, want now", got)
	}
}

// TestHostsRoundTrip: what the report says of the hosts comes back from
// its JSON as it was written, and Seen finds each host.
func TestHostsRoundTrip(t *testing.T) {
	r := &Report{Week: "2026-W48", Hosts: []HostSeen{
		{Host: "a.example", Robots: "read, obeyed", Requests: []int{0, 3, 0, 12}, Daily: []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0}},
		{Host: "b.example", Robots: "none (HTTP 404): everything allowed", Pace: []PaceHint{{Signal: "max-crawl-rate", Value: "10/m", Seconds: 6}}},
	}, Sources: []Entry{{Jurisdiction: "x", ID: "s1", URL: "https://a.example/1", Kind: "legislation", Title: "T", Status: state.Fresh}}}
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(js), "{\n  \"week\": \"2026-W48\",\n  \"hosts\": [\n    {\"host\":\"a.example\",\"robots\":\"read, obeyed\",\"requests\":[0,3,0,12],\"daily\":[0,0,0,0,0,0,0,0,1,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,12,0,0]},") {
		t.Errorf("JSON starts:\n%s", js)
	}
	back, err := Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	if back.Week != r.Week || len(back.Hosts) != 2 || back.Seen("a.example").Requests[3] != 12 || back.Seen("a.example").Daily[25] != 12 || back.Seen("b.example").Robots != r.Hosts[1].Robots {
		t.Errorf("parsed back: %+v", back)
	}
	if p := back.Seen("b.example").Pace; len(p) != 1 || p[0] != r.Hosts[1].Pace[0] {
		t.Errorf("b.example's pace parsed back: %+v", p)
	}
	if !strings.Contains(string(js), `{"host":"b.example","robots":"none (HTTP 404): everything allowed","pace":[{"signal":"max-crawl-rate","value":"10/m","seconds":6}]}`) {
		t.Errorf("b.example's JSON:\n%s", js)
	}
	if s := back.Seen("c.example"); s.Host != "c.example" || s.Robots != "" || s.Requests != nil {
		t.Errorf("Seen of an unknown host: %+v", s)
	}
}
