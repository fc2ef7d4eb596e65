package warc

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Item is one thing to write: a Capture or a Revisit.
type Item struct {
	Capture *Capture
	Revisit *Revisit
}

// Time is when the item's exchange took place.
func (it Item) Time() time.Time {
	if it.Capture != nil {
		return it.Capture.Time
	}
	return it.Revisit.Time
}

// Source is the source id of the item.
func (it Item) Source() string {
	if it.Capture != nil {
		return it.Capture.Source
	}
	return it.Revisit.Source
}

// Input is where Plan reads from.
type Input struct {
	Index     *store.Index
	Store     *store.Store
	LedgerDir string // <state>/ledgers; missing means no revisits and index times only
	// Since, when set, leaves out exchanges before it.
	Since time.Time
	// Only, when set, limits the export to the sources it accepts.
	Only func(id string) bool
}

// Plan lists, oldest first, a Capture for each version in the index and a
// Revisit for each later ledger result that confirmed a version: a 304, or
// a 200 whose bytes hashed to one already held.
//
// A capture's time is that of its ledger result line when the ledgers have
// it, else the index's fetch time, else midnight of its first-seen date.
func Plan(in Input) ([]Item, error) {
	results, err := readResults(in.LedgerDir)
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, id := range in.Index.IDs() {
		if in.Only != nil && !in.Only(id) {
			continue
		}
		lines := results[id]
		var caps []*Capture
		captureLine := map[int]bool{}
		for _, e := range in.Index.Entries(id) {
			c, lineIdx, err := capture(in.Store, id, e, lines)
			if err != nil {
				return nil, err
			}
			if lineIdx >= 0 {
				captureLine[lineIdx] = true
			}
			caps = append(caps, c)
			items = append(items, Item{Capture: c})
		}
		// Walk the checks in time order, knowing which bytes were held.
		var held *Capture
		for i, l := range lines {
			switch {
			case l.Status == 304:
				ref := held
				if ref == nil {
					ref = heldAt(caps, l.Time)
				}
				if ref != nil {
					items = append(items, Item{Revisit: &Revisit{Source: id, URL: l.URL, Time: l.Time, Status: 304, RefersTo: *ref, NotChanged: true}})
				}
			case l.Status/100 == 2 && l.SHA256 != "":
				c := bySum(caps, l.SHA256)
				if c == nil {
					continue // bytes not in the index (not saved): nothing to refer to
				}
				held = c
				if !captureLine[i] && l.Time.After(c.Time) {
					items = append(items, Item{Revisit: &Revisit{Source: id, URL: l.URL, Time: l.Time, Status: l.Status, RefersTo: *c}})
				}
			}
		}
	}
	if !in.Since.IsZero() {
		items = slices.DeleteFunc(items, func(it Item) bool { return it.Time().Before(in.Since) })
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := a.Time().Compare(b.Time()); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Source(), b.Source()); c != 0 {
			return c
		}
		return cmp.Compare(boolInt(a.Capture == nil), boolInt(b.Capture == nil))
	})
	return items, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// capture describes entry e of source id, and the index in lines of the
// ledger result that served it (-1 when the ledgers do not have it).
func capture(st *store.Store, id string, e store.Entry, lines []ledger.Line) (*Capture, int, error) {
	c := &Capture{
		Source: id, URL: e.FinalURL, Status: e.Status, Header: e.Header, SHA256: string(e.SHA256), Size: e.Size,
		Payload: func() (io.ReadCloser, error) { return st.Open(e.SHA256) },
		Usage:   e.Usage,
	}
	if c.Header == nil && e.ContentType != "" {
		// Entries from before the index kept headers still know this one.
		c.Header = map[string]string{"Content-Type": e.ContentType}
	}
	switch {
	case e.Sent == nil:
		// The bytes as served. (An entry from before documents were
		// decoded holds the coded stream itself, which its
		// Content-Encoding header rightly describes.)
	case st.Has(e.Sent.SHA256):
		sent := e.Sent.SHA256
		c.Sent = &Sent{SHA256: string(sent), Size: e.Sent.Size, Payload: func() (io.ReadCloser, error) { return st.Open(sent) }}
	default:
		// The bytes as sent are not at hand (a store restored without
		// them): the response carries the document, and says no coding
		// it does not have.
		c.Header = maps.Clone(c.Header)
		delete(c.Header, "Content-Encoding")
		delete(c.Header, "Content-Length")
	}
	var fetched time.Time
	if e.Fetched != "" {
		t, err := time.Parse(time.RFC3339, e.Fetched)
		if err != nil {
			return nil, -1, fmt.Errorf("warc: index entry %s of %s: fetched %q is not an RFC 3339 time", e.SHA256, id, e.Fetched)
		}
		fetched = t
	}
	// The first ledger result with these bytes is the capture, unless the
	// index's fetch time (the response's time, rounded down to the second)
	// is earlier: then that fetch's ledger is not at hand.
	for i, l := range lines {
		if l.SHA256 != string(e.SHA256) || l.Status/100 != 2 {
			continue
		}
		if !fetched.IsZero() && l.Time.Truncate(time.Second).After(fetched) {
			break
		}
		c.Time = l.Time
		if c.URL == "" {
			c.URL = l.URL
		}
		return c, i, nil
	}
	if !fetched.IsZero() {
		c.Time = fetched
		return c, -1, nil
	}
	t, err := time.Parse(time.DateOnly, e.FirstSeen)
	if err != nil {
		return nil, -1, fmt.Errorf("warc: index entry %s of %s: first_seen %q is not a date", e.SHA256, id, e.FirstSeen)
	}
	c.Time = t
	return c, -1, nil
}

func bySum(caps []*Capture, sum string) *Capture {
	for _, c := range caps {
		if c.SHA256 == sum {
			return c
		}
	}
	return nil
}

// heldAt is the newest capture made at or before t.
func heldAt(caps []*Capture, t time.Time) *Capture {
	var held *Capture
	for _, c := range caps {
		if !c.Time.After(t) && (held == nil || c.Time.After(held.Time)) {
			held = c
		}
	}
	return held
}

// readResults returns the document and redirect result lines of every
// ledger day, by source id, oldest first.
func readResults(dir string) (map[string][]ledger.Line, error) {
	out := map[string][]ledger.Line{}
	if dir == "" {
		return out, nil
	}
	days, err := ledger.Days(dir)
	if err != nil {
		return nil, err
	}
	for _, day := range days {
		lines, err := ledger.ReadDay(dir, day)
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			if l.Event == ledger.Result && l.Source != "" && l.Purpose != ledger.PurposeRobots {
				out[l.Source] = append(out[l.Source], l)
			}
		}
	}
	for id := range out {
		slices.SortStableFunc(out[id], func(a, b ledger.Line) int { return a.Time.Compare(b.Time) })
	}
	return out, nil
}
