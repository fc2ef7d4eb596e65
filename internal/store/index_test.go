package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	sumA = Sum(strings.Repeat("a", 64))
	sumB = Sum(strings.Repeat("b", 64))
	sumC = Sum(strings.Repeat("c", 64))
)

func entry(sum Sum, date string) Entry {
	return Entry{
		SHA256:      sum,
		Size:        42,
		ContentType: "text/html; charset=utf-8",
		FinalURL:    "https://www.gov.uk/rates?a=1&b=<2>",
		FirstSeen:   date,
	}
}

func TestIndexAddDedupesPerID(t *testing.T) {
	ix := NewIndex()
	steps := []struct {
		id    string
		e     Entry
		added bool
	}{
		{"uk-rates", entry(sumB, "2026-01-01"), true},
		{"uk-rates", entry(sumA, "2026-01-02"), true},
		{"uk-rates", entry(sumB, "2026-01-03"), false}, // served again: first sighting stands
		{"uk-mirror", entry(sumB, "2026-01-03"), true}, // same bytes, another source
	}
	for _, st := range steps {
		if got := ix.Add(st.id, st.e, ""); got != st.added {
			t.Errorf("Add(%s, %s…) = %v, want %v", st.id, st.e.SHA256[:4], got, st.added)
		}
	}
	want := map[string][]Entry{
		"uk-mirror": {entry(sumB, "2026-01-03")},
		"uk-rates":  {entry(sumB, "2026-01-01"), entry(sumA, "2026-01-02")},
	}
	got := map[string][]Entry{}
	for _, id := range ix.IDs() {
		got[id] = ix.Entries(id)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"uk-mirror", "uk-rates"}, ix.IDs()); diff != "" {
		t.Errorf("IDs (-want +got):\n%s", diff)
	}

	e, ok := ix.Lookup("uk-rates", sumB)
	if !ok || e.FirstSeen != "2026-01-01" {
		t.Errorf("Lookup(uk-rates, b) = %+v, %v; want the first sighting", e, ok)
	}
	if _, ok := ix.Lookup("uk-mirror", sumA); ok {
		t.Error("Lookup found a hash under an id that never served it")
	}
	if _, ok := ix.Lookup("nobody", sumA); ok {
		t.Error("Lookup found an unknown id")
	}
}

func TestIndexEntriesIsACopy(t *testing.T) {
	ix := NewIndex()
	ix.Add("x", entry(sumA, "2026-01-01"), "")
	es := ix.Entries("x")
	es[0].SHA256 = sumC
	_ = append(es[:1], entry(sumB, "2026-01-02"))
	if diff := cmp.Diff([]Entry{entry(sumA, "2026-01-01")}, ix.Entries("x")); diff != "" {
		t.Errorf("index changed through Entries (-want +got):\n%s", diff)
	}
}

const golden = `{
  "sources": {
    "de-est": [
      {
        "sha256": "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
        "size": 7,
        "final_url": "https://example.de/est",
        "first_seen": "2026-02-01"
      }
    ],
    "uk-rates": [
      {
        "sha256": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        "size": 42,
        "content_type": "text/html; charset=utf-8",
        "final_url": "https://www.gov.uk/rates?a=1&b=<2>",
        "first_seen": "2026-01-01"
      },
      {
        "sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "size": 42,
        "content_type": "text/html; charset=utf-8",
        "final_url": "https://www.gov.uk/rates?a=1&b=<2>",
        "first_seen": "2026-01-02"
      }
    ]
  }
}
`

func goldenIndex(idsReversed bool) *Index {
	add := []func(ix *Index){
		func(ix *Index) {
			ix.Add("uk-rates", entry(sumB, "2026-01-01"), "")
			ix.Add("uk-rates", entry(sumA, "2026-01-02"), "")
		},
		func(ix *Index) {
			ix.Add("de-est", Entry{SHA256: sumC, Size: 7, FinalURL: "https://example.de/est", FirstSeen: "2026-02-01"}, "")
		},
	}
	ix := NewIndex()
	if idsReversed {
		add[0], add[1] = add[1], add[0]
	}
	for _, f := range add {
		f(ix)
	}
	return ix
}

func TestMarshalGolden(t *testing.T) {
	for _, reversed := range []bool{false, true} {
		ix := goldenIndex(reversed)
		for run := range 3 {
			got, err := ix.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(golden, string(got)); diff != "" {
				t.Fatalf("ids reversed %v, run %d (-want +got):\n%s", reversed, run, diff)
			}
		}
	}
}

func TestMarshalEmpty(t *testing.T) {
	got, err := NewIndex().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"sources\": {}\n}\n"; string(got) != want {
		t.Errorf("Marshal of an empty index = %q, want %q", got, want)
	}
}

func TestLoadIndexMissingIsEmpty(t *testing.T) {
	ix, err := LoadIndex(filepath.Join(t.TempDir(), "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ids := ix.IDs(); len(ids) != 0 {
		t.Errorf("IDs = %v, want none", ids)
	}
}

func TestLoadIndexRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.json")
	if err := goldenIndex(false).Save(path); err != nil {
		t.Fatal(err)
	}
	ix, err := LoadIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	want := goldenIndex(false)
	for _, id := range []string{"uk-rates", "de-est"} {
		if diff := cmp.Diff(want.Entries(id), ix.Entries(id)); diff != "" {
			t.Errorf("%s after load (-want +got):\n%s", id, diff)
		}
	}
	got, err := ix.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(golden, string(got)); diff != "" {
		t.Errorf("re-marshalled (-want +got):\n%s", diff)
	}
	// The loaded index keeps deduplicating against what was on disk.
	if ix.Add("uk-rates", entry(sumA, "2027-01-01"), "") {
		t.Error("Add after load accepted a hash the file already had")
	}
}

func TestLoadIndexCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"empty":             "",
		"truncated":         golden[:len(golden)/2],
		"merge conflict":    "<<<<<<< HEAD\n" + golden,
		"unknown key":       `{"sources": {}, "extra": 1}`,
		"unknown entry key": `{"sources": {"x": [{"sha256": "` + string(sumA) + `", "sizes": 1}]}}`,
		"trailing data":     golden + golden,
		"wrong type":        `{"sources": []}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.json")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadIndex(path)
			if err == nil {
				t.Fatal("LoadIndex succeeded")
			}
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "restore it from git") {
				t.Errorf("error %q does not name %s and say to restore it from git", msg, path)
			}
		})
	}
}

func TestSaveUnchangedIsNoOp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshots", "index.json")
	ix := goldenIndex(false)
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}

	ix.Add("uk-rates", entry(sumA, "2027-01-01"), "") // already there: no change
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(old) {
		t.Errorf("unchanged Save rewrote the file (mtime %v, want %v)", after.ModTime(), old)
	}

	ix.Add("uk-rates", entry(sumC, "2027-01-01"), "")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ix.Marshal()
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("changed Save (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"index.json"}, tree(t, filepath.Dir(path))); diff != "" {
		t.Errorf("files beside the index (-want +got):\n%s", diff)
	}
}

func TestIndexConcurrentUse(t *testing.T) {
	ix := NewIndex()
	path := filepath.Join(t.TempDir(), "index.json")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				ix.Add(fmt.Sprint("src-", i%5), Entry{SHA256: Sum(fmt.Sprintf("%064x", g*1000+i))}, "")
				if i%10 == 0 {
					if err := ix.Save(path); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, id := range loaded.IDs() {
		n += len(loaded.Entries(id))
	}
	if n != 200 {
		t.Errorf("saved %d entries, want 200", n)
	}
}

// A source that goes back to bytes it served before (A, then B, then A)
// has that return on record, so its history says what it served on each
// date; serving the same bytes again, or a return already noted that day,
// changes nothing.
func TestIndexRecordsReturns(t *testing.T) {
	ix := NewIndex()
	steps := []struct {
		e     Entry
		prior Sum
		added bool
	}{
		{entry(sumA, "2026-01-01"), "", true},
		{entry(sumB, "2026-01-05"), sumA, true},
		{entry(sumA, "2026-01-09"), sumB, true}, // back to A
		{entry(sumA, "2026-01-10"), sumA, false},
		{entry(sumB, "2026-01-12"), sumA, true},
		{entry(sumB, "2026-01-12"), sumA, false}, // noted already that day
	}
	for i, st := range steps {
		if got := ix.Add("uk-rates", st.e, st.prior); got != st.added {
			t.Errorf("step %d: Add = %v, want %v", i, got, st.added)
		}
	}
	want := []Change{
		{"2026-01-01", withReturns(entry(sumA, "2026-01-01"), "2026-01-09")},
		{"2026-01-05", withReturns(entry(sumB, "2026-01-05"), "2026-01-12")},
		{"2026-01-09", withReturns(entry(sumA, "2026-01-01"), "2026-01-09")},
		{"2026-01-12", withReturns(entry(sumB, "2026-01-05"), "2026-01-12")},
	}
	if diff := cmp.Diff(want, ix.History("uk-rates")); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	// The returns survive a save and a load.
	data, err := ix.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ix.Entries("uk-rates"), back.Entries("uk-rates")); diff != "" {
		t.Errorf("after a round trip (-want +got):\n%s", diff)
	}
}

// A return on the day the bytes were first seen (A, B, A in one day) ends
// that day's history on A.
func TestIndexReturnOnTheSameDay(t *testing.T) {
	ix := NewIndex()
	ix.Add("x", entry(sumA, "2026-01-01"), "")
	ix.Add("x", entry(sumB, "2026-01-01"), sumA)
	ix.Add("x", entry(sumA, "2026-01-01"), sumB)
	h := ix.History("x")
	if last := h[len(h)-1]; last.Entry.SHA256 != sumA || last.Date != "2026-01-01" {
		t.Errorf("history ends with %s on %s, want A on 2026-01-01", last.Entry.SHA256[:4], last.Date)
	}
}

// Uniting indexes (the base branch's, the bot branch's, a runner's) keeps
// every entry and every return whatever the order, and records no return
// that did not happen.
func TestIndexUnite(t *testing.T) {
	older := NewIndex()
	older.Add("x", entry(sumA, "2026-01-01"), "")
	newer := NewIndex()
	newer.Add("x", entry(sumA, "2026-01-01"), "")
	newer.Add("x", entry(sumB, "2026-01-05"), sumA)
	newer.Add("x", entry(sumA, "2026-01-09"), sumB)
	lagging := NewIndex() // a runner whose index lacks B, told by its state that B came last
	lagging.Add("x", entry(sumA, "2026-01-01"), "")
	lagging.Add("x", entry(sumA, "2026-01-15"), sumB)
	lagging.Add("x", entry(sumC, "2026-01-20"), sumA)

	want := []Change{
		{"2026-01-01", withReturns(entry(sumA, "2026-01-01"), "2026-01-09", "2026-01-15")},
		{"2026-01-05", entry(sumB, "2026-01-05")},
		{"2026-01-09", withReturns(entry(sumA, "2026-01-01"), "2026-01-09", "2026-01-15")},
		{"2026-01-15", withReturns(entry(sumA, "2026-01-01"), "2026-01-09", "2026-01-15")},
		{"2026-01-20", entry(sumC, "2026-01-20")},
	}
	for _, order := range [][]*Index{{older, newer, lagging}, {lagging, newer, older}, {newer, lagging, older}} {
		ix := NewIndex()
		for _, from := range order {
			ix.Unite(from)
		}
		if diff := cmp.Diff(want, ix.History("x")); diff != "" {
			t.Errorf("history (-want +got):\n%s", diff)
		}
	}
}

func withReturns(e Entry, dates ...string) Entry {
	e.Returned = dates
	return e
}

func TestIndexBeyond(t *testing.T) {
	a, b := sumOf([]byte("a")), sumOf([]byte("b"))
	base := NewIndex()
	base.Add("s", Entry{SHA256: a, FirstSeen: "2026-11-01"}, "")
	ix := NewIndex()
	ix.Unite(base)
	if n := ix.Beyond(base).Len(); n != 0 {
		t.Errorf("an index wholly in base: %d entries beyond, want 0", n)
	}
	ix.Add("s", Entry{SHA256: b, FirstSeen: "2026-11-02"}, a)
	ix.Add("s", Entry{SHA256: a, FirstSeen: "2026-11-03"}, b) // a return
	beyond := ix.Beyond(base)
	if beyond.Len() != 2 {
		t.Fatalf("beyond: %d entries, want b and a's return", beyond.Len())
	}
	base.Unite(beyond)
	want, _ := ix.Marshal()
	got, _ := base.Marshal()
	if string(got) != string(want) {
		t.Errorf("base united with what is beyond it:\n%s\nwant\n%s", got, want)
	}
}

// Where an entry's bytes are held is united like its dates: one holding
// per store, in the same order whichever index says it first.
func TestHeldIsUnitedAndSetOnEverySourceOfTheBytes(t *testing.T) {
	sum := sumA
	a, b := NewIndex(), NewIndex()
	e := Entry{SHA256: sum, Size: 5, FirstSeen: "2026-12-01"}
	a.Add("uk-rates", e, "")
	a.Add("uk-rates-copy", e, "")
	b.Add("uk-rates", e, "")
	if !a.SetHeld(sum, []Holding{{Store: "github-releases:o/r", URL: "https://example.test/x"}}) {
		t.Fatal("SetHeld changed nothing")
	}
	if a.SetHeld(sum, []Holding{{Store: "github-releases:o/r"}}) {
		t.Error("SetHeld of a store already recorded (without its URL) changed the entry")
	}
	b.SetHeld(sum, []Holding{{Store: "s3:bucket/"}})
	ab, ba := NewIndex(), NewIndex()
	ab.Unite(a)
	ab.Unite(b)
	ba.Unite(b)
	ba.Unite(a)
	x, _ := ab.Marshal()
	y, _ := ba.Marshal()
	if string(x) != string(y) {
		t.Errorf("the union depends on the order:\n%s\n%s", x, y)
	}
	got, _ := ab.Lookup("uk-rates", sum)
	want := []Holding{{Store: "github-releases:o/r", URL: "https://example.test/x"}, {Store: "s3:bucket/"}}
	if !cmp.Equal(got.Held, want) {
		t.Errorf("held = %v, want %v", got.Held, want)
	}
	if other, _ := ab.Lookup("uk-rates-copy", sum); len(other.Held) != 1 {
		t.Errorf("the other source of the same bytes: held = %v, want the release", other.Held)
	}
}
