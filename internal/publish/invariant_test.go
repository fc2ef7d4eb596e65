package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestCheckRecordRefuses: a bot commit that cites bytes nobody holds,
// drops an entry of main's index or sets a checked source back to pending
// is refused, naming what is wrong; a whole one passes.
func TestCheckRecordRefuses(t *testing.T) {
	t.Parallel()
	a, b := sumOf("a"), sumOf("b")
	mainIx := store.NewIndex()
	mainIx.Add("s1", store.Entry{SHA256: a, FirstSeen: "2026-11-01"}, "")
	ix := store.NewIndex()
	ix.Unite(mainIx)
	ix.Add("s1", store.Entry{SHA256: b, FirstSeen: "2026-11-02"}, a)
	onMain := &report.Report{Sources: []report.Entry{{ID: "s1", URL: "https://x.gov/1", Status: state.Fresh, SHA256: string(a)}}}
	rep := &report.Report{Sources: []report.Entry{{ID: "s1", URL: "https://x.gov/1", Status: state.Fresh, SHA256: string(b)}}}
	holds := func(sums ...store.Sum) func(string) bool {
		return func(p string) bool {
			for _, s := range sums {
				if p == "snapshots/"+s.Path() {
					return true
				}
			}
			return false
		}
	}
	if err := checkRecord(mainIx, ix, onMain, rep, holds(a, b)); err != nil {
		t.Errorf("a whole record: %v", err)
	}
	for _, c := range []struct {
		name string
		ix   *store.Index
		rep  *report.Report
		held func(string) bool
		want string
	}{
		{"blob missing", ix, rep, holds(a), "names " + string(b)[:12]},
		{"bytes as sent missing", withSent(ix, "s1", b, sumOf("b, gzipped")), rep, holds(a, b), "names " + string(sumOf("b, gzipped"))[:12]},
		{"main's entry dropped", single("s1", store.Entry{SHA256: b, FirstSeen: "2026-11-02"}), rep, holds(a, b), "would drop s1's " + string(a)[:12]},
		{"back to pending", ix, &report.Report{Sources: []report.Entry{{ID: "s1", URL: "https://x.gov/1", Status: state.Pending}}}, holds(a, b), "back from fresh to pending"},
	} {
		err := checkRecord(mainIx, c.ix, onMain, c.rep, c.held)
		if !errors.Is(err, ErrBrokenRecord) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrBrokenRecord saying %q", c.name, err, c.want)
		}
	}
}

func sumOf(s string) store.Sum {
	h := sha256.Sum256([]byte(s))
	return store.Sum(hex.EncodeToString(h[:]))
}

// withSent is a copy of ix in which id's entry for sum came gzipped, as
// the bytes sent.
func withSent(ix *store.Index, id string, sum, sent store.Sum) *store.Index {
	out := store.NewIndex()
	for _, i := range ix.IDs() {
		for _, e := range ix.Entries(i) {
			if i == id && e.SHA256 == sum {
				e.Sent = &store.Sent{SHA256: sent, Size: 1, Encoding: "gzip"}
			}
			out.Unite(single(i, e))
		}
	}
	return out
}

// single is an index of one entry.
func single(id string, e store.Entry) *store.Index {
	ix := store.NewIndex()
	ix.Add(id, e, "")
	return ix
}

// TestCheckTextsRefuses: a bot commit whose source would keep the text
// of other bytes than those it serves now, or no text and no reason, is
// refused, naming the source; one whose every source has its current
// text (or a reason naming its bytes) passes.
func TestCheckTextsRefuses(t *testing.T) {
	t.Parallel()
	a, b := sumOf("a"), sumOf("b")
	ix := store.NewIndex()
	ix.Add("s1", store.Entry{SHA256: a, FirstSeen: "2026-11-01"}, "")
	ix.Add("s1", store.Entry{SHA256: b, FirstSeen: "2026-11-02"}, a)
	ix.Add("s2", store.Entry{SHA256: a, FirstSeen: "2026-11-01"}, "")
	texts := func(of map[string]store.Sum) func(string) (store.Sum, bool) {
		return func(id string) (store.Sum, bool) {
			sum, ok := of[id]
			return sum, ok
		}
	}
	if err := checkTexts(ix, texts(map[string]store.Sum{"s1": b, "s2": a})); err != nil {
		t.Errorf("every source's current text: %v", err)
	}
	for _, c := range []struct {
		name string
		of   map[string]store.Sum
		want string
	}{
		{"an earlier version's text", map[string]store.Sum{"s1": a, "s2": a}, "s1's text at snapshots/text/"},
		{"no text", map[string]store.Sum{"s1": b}, "s2 would have no text and no reason"},
	} {
		err := checkTexts(ix, texts(c.of))
		if !errors.Is(err, ErrBrokenRecord) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrBrokenRecord saying %q", c.name, err, c.want)
		}
	}
}
