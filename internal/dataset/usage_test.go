package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// The preferences kept with a document travel into the dataset: in its
// index entry and as a WARC metadata record, and the dataset verifies.
func TestDatasetKeepsUsagePreferences(t *testing.T) {
	f := newFixture(t)
	prefs := usage.Combine([]usage.Statement{{Field: usage.ContentSignal, From: "robots.txt line 2", Value: "search=yes, ai-train=no"}})
	v2 := f.sums["<html><p>Basic rate 19%</p></html>\n"]
	ix := store.NewIndex()
	for _, id := range f.in.Index.IDs() {
		for _, e := range f.in.Index.Entries(id) {
			if e.SHA256 == v2 {
				e.Usage = prefs
			}
			ix.Add(id, e, "")
		}
	}
	f.in.Index = ix
	dir, _ := build(t, f.in)
	if probs := verify(t, dir); len(probs) != 0 {
		t.Errorf("verify: %v", probs)
	}
	data, err := os.ReadFile(filepath.Join(dir, IndexName))
	must(t, err)
	got, err := store.ParseIndex(data)
	must(t, err)
	e, ok := got.Lookup("uk-rates", v2)
	if !ok {
		t.Fatal("the dataset's index lacks uk-rates' November bytes")
	}
	if diff := cmp.Diff(prefs, e.Usage); diff != "" {
		t.Errorf("the dataset's index entry's usage (-want +got):\n%s", diff)
	}
	n := 0
	for _, m := range gunzipMembers(t, filepath.Join(dir, f.in.Period.WarcName())) {
		if bytes.Contains(m, []byte("WARC-Type: metadata\r\n")) && bytes.Contains(m, []byte(`"ai-train":"no"`)) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d metadata records with the preferences in the WARC, want 1", n)
	}
}
