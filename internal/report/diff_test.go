package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

func TestDiff(t *testing.T) {
	base := Entry{Jurisdiction: "uk", ID: "uk-a", URL: "https://x.example/a", Kind: "rates-page", Title: "A",
		Status: state.Fresh, Since: "2026-11-01", HTTPStatus: 200, SHA256: shaA, Size: 10, Encodes: []string{}}
	with := func(f func(*Entry)) Entry {
		e := base
		f(&e)
		return e
	}
	status := func(s state.Status) func(*Entry) { return func(e *Entry) { e.Status = s } }

	tests := []struct {
		name     string
		old, new Entry
		want     string // "" = no change
	}{
		{"identical, nil and empty lists alike", base, with(func(e *Entry) { e.Encodes = nil }), ""},
		{"changed", base, with(func(e *Entry) { e.SHA256, e.Size = shaB, 11 }), KindChanged},
		{"fresh to failing", base, with(status(state.Failing)), KindNewFailure},
		{"fresh to gone", base, with(status(state.Gone)), KindNewFailure},
		{"fresh to too-large", base, with(status(state.TooLarge)), KindNewFailure},
		{"fresh to robots-unavailable", base, with(status(state.RobotsUnavailable)), KindNewFailure},
		{"fresh to paused", base, with(status(state.Paused)), KindNewFailure},
		{"pending to moved", with(status(state.Pending)), with(status(state.Moved)), KindNewFailure},
		{"failing to fresh, new bytes", with(status(state.Failing)), with(func(e *Entry) { e.SHA256 = shaB }), KindRecovered},
		{"pending to fresh", with(status(state.Pending)), base, KindRecovered},
		{"fresh to blocked-robots", base, with(status(state.BlockedRobots)), KindNewGap},
		{"failing to excluded", with(status(state.Failing)), with(status(state.Excluded)), KindNewGap},
		{"failing to gone", with(status(state.Failing)), with(status(state.Gone)), KindStatus},
		{"fresh to pending", base, with(status(state.Pending)), KindStatus},
		{"final_url only", base, with(func(e *Entry) { e.FinalURL = "https://x.example/a2" }), KindURL},
		{"url only", base, with(func(e *Entry) { e.URL = "https://x.example/b" }), KindURL},
		{"failing with other bytes held is not changed", with(status(state.Failing)), with(func(e *Entry) { e.Status, e.SHA256 = state.Failing, shaB }), KindOther},
		{"detail only", with(status(state.Failing)), with(func(e *Entry) { e.Status, e.Detail = state.Failing, "HTTP 502" }), KindOther},
		{"gaps only", base, with(func(e *Entry) { e.Gaps = []string{"Scotland"} }), KindOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []Change
			if tt.want != "" {
				want = []Change{{ID: "uk-a", Jurisdiction: "uk", Old: tt.old, New: tt.new, Kind: tt.want}}
			}
			got := Diff(&Report{Sources: []Entry{tt.old}}, &Report{Sources: []Entry{tt.new}})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffAddsRemovesAndSorts(t *testing.T) {
	keep := Entry{Jurisdiction: "nz", ID: "nz-keep", Status: state.Fresh, SHA256: shaA}
	gone := Entry{Jurisdiction: "uk", ID: "uk-old", Status: state.Fresh}
	gone2 := Entry{Jurisdiction: "au", ID: "au-old", Status: state.Pending}
	added := Entry{Jurisdiction: "nz", ID: "nz-added", Status: state.Pending}
	added2 := Entry{Jurisdiction: "uk", ID: "uk-added", Status: state.Fresh}
	bumped := keep
	bumped.SHA256 = shaB

	old := &Report{Sources: []Entry{gone, keep, gone2}}
	new := &Report{Sources: []Entry{added2, bumped, added}}
	want := []Change{
		{ID: "au-old", Jurisdiction: "au", Old: gone2, Kind: KindRemovedSource},
		{ID: "nz-added", Jurisdiction: "nz", New: added, Kind: KindNewSource},
		{ID: "nz-keep", Jurisdiction: "nz", Old: keep, New: bumped, Kind: KindChanged},
		{ID: "uk-added", Jurisdiction: "uk", New: added2, Kind: KindNewSource},
		{ID: "uk-old", Jurisdiction: "uk", Old: gone, Kind: KindRemovedSource},
	}
	if diff := cmp.Diff(want, Diff(old, new)); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}

	// No previous report: everything is new.
	got := Diff(nil, &Report{Sources: []Entry{added}})
	if diff := cmp.Diff([]Change{{ID: "nz-added", Jurisdiction: "nz", New: added, Kind: KindNewSource}}, got); diff != "" {
		t.Errorf("Diff(nil, r) (-want +got):\n%s", diff)
	}
}
