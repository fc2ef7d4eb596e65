package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/taxkernel/taxkernelbot/internal/state"
)

// Change is what happened to one source between two reports.
type Change struct {
	ID, Jurisdiction string
	Old, New         Entry // Old is zero for a new source, New for a removed one
	Kind             string
}

// The kinds of Change, as Diff assigns them.
const (
	KindNewSource     = "new-source"     // in new only
	KindRemovedSource = "removed-source" // in old only
	KindChanged       = "changed"        // fresh in both, with other bytes
	KindNewFailure    = "new-failure"    // fresh or pending → a failure
	KindRecovered     = "recovered"      // anything else → fresh
	KindNewGap        = "new-gap"        // → blocked-robots or excluded
	KindStatus        = "status"         // any other change of status
	KindURL           = "url"            // only the url or final_url changed
	KindOther         = "other"          // status, hash and URLs alike; a detail, title, gap… changed
)

// Diff lists what changed from old to new, one Change per source that
// differs, sorted by jurisdiction then id. old may be nil: there was no
// previous report.
func Diff(old, new *Report) []Change {
	prev := map[string]Entry{}
	if old != nil {
		for _, e := range old.Sources {
			prev[e.ID] = e
		}
	}
	var out []Change
	for _, n := range new.Sources {
		o, ok := prev[n.ID]
		delete(prev, n.ID)
		if !ok {
			out = append(out, Change{ID: n.ID, Jurisdiction: n.Jurisdiction, New: n, Kind: KindNewSource})
			continue
		}
		if k := classify(o, n); k != "" {
			out = append(out, Change{ID: n.ID, Jurisdiction: n.Jurisdiction, Old: o, New: n, Kind: k})
		}
	}
	// What is left in prev was removed; the sort below orders it.
	for _, o := range prev {
		out = append(out, Change{ID: o.ID, Jurisdiction: o.Jurisdiction, Old: o, Kind: KindRemovedSource})
	}
	slices.SortFunc(out, func(a, b Change) int {
		return compareEntry(Entry{Jurisdiction: a.Jurisdiction, ID: a.ID}, Entry{Jurisdiction: b.Jurisdiction, ID: b.ID})
	})
	return out
}

// classify names the change of one source present in both reports, or
// returns "" when nothing changed.
func classify(o, n Entry) string {
	if o.Status != n.Status {
		switch {
		case n.Status == state.Fresh:
			return KindRecovered
		case (o.Status == state.Fresh || o.Status == state.Pending) && n.Status.Failure():
			return KindNewFailure
		case n.Status.Gap():
			return KindNewGap
		}
		return KindStatus
	}
	switch {
	case o.SHA256 != n.SHA256 && n.Status == state.Fresh:
		return KindChanged
	case o.URL != n.URL || o.FinalURL != n.FinalURL:
		return KindURL
	case !equal(o, n):
		return KindOther
	}
	return ""
}

// equal compares entries as the report file shows them, so that a nil
// and an empty list (Build versus a decoded file) count as the same and a
// field added to Entry is never overlooked.
func equal(a, b Entry) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// Key names what a change proposes, the state it brings a source to, in
// the terms a reviewer decides on: status, bytes and URLs; not the wording
// of a detail, which may vary from check to check while the source stays
// where it is. Two proposals with the same keys say the same thing.
func (c Change) Key() string {
	n := c.New
	if c.Kind == KindRemovedSource {
		return c.ID + " removed"
	}
	return fmt.Sprintf("%s %s %s %s %s", c.ID, n.Status, n.SHA256, n.URL, n.FinalURL)
}
