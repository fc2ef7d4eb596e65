package dataset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// TestChangeDocuments: the dataset holds the document of each change in
// the period (uk-rates's 20% → 19% on Nov 4, its rate row read from the
// HTML), named by the manifests' URL, and verify counts it; a rebuild in
// the same directory keeps it.
func TestChangeDocuments(t *testing.T) {
	f := newFixture(t)
	f.in.URLs = map[string]string{"uk-rates": "https://www.gov.uk/income-tax-rates"}
	dir, sum := build(t, f.in)
	v1, v2 := f.sums["<html><p>Basic rate 20%</p></html>\n"], f.sums["<html><p>Basic rate 19%</p></html>\n"]
	name := changedoc.Path("uk-rates", "2026-11-04", v1, v2)
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatalf("no change document: %v", err)
	}
	d, err := changedoc.Parse(name, data)
	must(t, err)
	if d.URL != "https://www.gov.uk/income-tax-rates" || d.Text != changedoc.TextChanged || len(d.Figures) != 1 ||
		d.Figures[0].Row != "Basic rate" || d.Figures[0].Old.Text != "20%" || d.Figures[0].New.Value != "19" {
		t.Errorf("the change document: %s", data)
	}
	if sum.Changes != 1 {
		t.Errorf("Build says %d change documents, want 1", sum.Changes)
	}
	probs, c, err := Verify(t.Context(), dir)
	must(t, err)
	if len(probs) != 0 || c.Changes != 1 {
		t.Errorf("verify: %d change documents checked, problems %v", c.Changes, probs)
	}
	if _, err := Build(t.Context(), f.in, dir); err != nil {
		t.Fatalf("a rebuild over the earlier build: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
		t.Errorf("the rebuild lost the change document: %v", err)
	}
}

// TestVerifyChangeDocuments: verify says which change document is
// missing, which names bytes the index does not list, and which is not
// under its own name.
func TestVerifyChangeDocuments(t *testing.T) {
	f := newFixture(t)
	v1, v2 := f.sums["<html><p>Basic rate 20%</p></html>\n"], f.sums["<html><p>Basic rate 19%</p></html>\n"]
	name := changedoc.Path("uk-rates", "2026-11-04", v1, v2)
	// And back to the first rate on the 20th: a second change.
	f.in.Index.Add("uk-rates", store.Entry{SHA256: v1, FirstSeen: "2026-11-20"}, v2)
	for _, tc := range []struct {
		what string
		edit func(dir string)
		want string
	}{
		{"removed", func(dir string) { must(t, os.Remove(filepath.Join(dir, name))) }, name + ": is missing: uk-rates changed on 2026-11-04"},
		{"bytes not held", func(dir string) {
			p := filepath.Join(dir, name)
			data, err := os.ReadFile(p)
			must(t, err)
			other := sumOf("other")
			data = []byte(strings.Replace(string(data), string(v1), string(other), 1))
			must(t, os.Remove(p))
			p = filepath.Join(dir, changedoc.Path("uk-rates", "2026-11-04", other, v2))
			must(t, os.WriteFile(p, data, 0o644))
		}, "which index.json does not list for that source"},
		{"renamed", func(dir string) {
			must(t, os.Rename(filepath.Join(dir, name), filepath.Join(dir, strings.Replace(name, "2026-11-04", "2026-11-05", 1))))
		}, "not the one its name says"},
	} {
		dir, _ := build(t, f.in)
		tc.edit(dir)
		var got []string
		for _, p := range verify(t, dir) {
			got = append(got, p.String())
		}
		if !strings.Contains(strings.Join(got, "\n"), tc.want) {
			t.Errorf("%s: verify says\n%s\nwant a problem saying %q", tc.what, strings.Join(got, "\n"), tc.want)
		}
	}
}

// sumOf is the SHA-256 of s, as the store names its bytes.
func sumOf(s string) store.Sum { return store.Sum(textview.Hash(s)) }

// TestChangeDocumentsAreTheFeeds: a change document in a dataset is the
// same bytes as the one the public site serves beside the feeds.
func TestChangeDocumentsAreTheFeeds(t *testing.T) {
	set, diags := manifest.Load("../public/testdata/manifests")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	f := newFixture(t)
	// xa-rates, as the manifests name it, changed in the period.
	st := f.in.Store
	put := func(body string) (store.Sum, int64) {
		s, n, err := st.Put(context.Background(), strings.NewReader(body))
		must(t, err)
		return s, n
	}
	a, na := put("<table><tr><th>Band</th><th>Rate</th></tr><tr><td>Basic rate</td><td>20%</td></tr></table>")
	b, nb := put("<table><tr><th>Band</th><th>Rate</th></tr><tr><td>Basic rate</td><td>21%</td></tr></table>")
	f.in.Index.Add("xa-rates", store.Entry{SHA256: a, Size: na, ContentType: "text/html", FinalURL: "https://www.example.gov/rates", FirstSeen: "2026-10-02"}, "")
	f.in.Index.Add("xa-rates", store.Entry{SHA256: b, Size: nb, ContentType: "text/html", FinalURL: "https://www.example.gov/rates", FirstSeen: "2026-11-09"}, a)
	f.in.URLs = map[string]string{}
	for _, src := range set.Sources {
		f.in.URLs[src.ID] = src.URL
	}
	dir, _ := build(t, f.in)

	// The feeds read the texts kept beside the blobs, else derive them.
	files, err := public.RulesOf(set).Feeds(public.FeedInput{Set: set, Index: f.in.Index, Text: func(sum, contentType string) (string, bool) {
		if p, err := textview.TextPath(f.in.Snapshots, sum); err == nil {
			if data, err := os.ReadFile(p); err == nil {
				return string(data), true
			}
		}
		raw, err := os.ReadFile(filepath.Join(f.in.Snapshots, store.Sum(sum).Path()))
		if err != nil {
			return "", false
		}
		res := textview.Extract(context.Background(), raw, contentType, textview.Limits{})
		return res.Text, res.OK()
	}})
	must(t, err)
	name := changedoc.Path("xa-rates", "2026-11-09", a, b)
	var fromFeeds []byte
	for _, file := range files {
		if file.Name == name {
			fromFeeds = file.Data
		}
	}
	fromDataset, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	must(t, err)
	if fromFeeds == nil || string(fromFeeds) != string(fromDataset) {
		t.Errorf("the feeds' %s:\n%s\nthe dataset's:\n%s", name, fromFeeds, fromDataset)
	}
	if !strings.Contains(string(fromDataset), `"row": "Basic rate"`) || !strings.Contains(string(fromDataset), `"column": "Rate"`) {
		t.Errorf("the table row and column are not named:\n%s", fromDataset)
	}
}

// TestVerifyWithoutChangeDocuments: a dataset built before there were
// change documents (none in it, nor in its SHA256SUMS) still verifies.
func TestVerifyWithoutChangeDocuments(t *testing.T) {
	f := newFixture(t)
	dir, _ := build(t, f.in)
	must(t, os.RemoveAll(filepath.Join(dir, ChangeDir)))
	list, err := os.ReadFile(filepath.Join(dir, SumsName))
	must(t, err)
	var kept []string
	for _, l := range strings.SplitAfter(string(list), "\n") {
		if !strings.Contains(l, "  "+ChangeDir+"/") {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(strings.SplitAfter(string(list), "\n")) {
		t.Fatalf("%s lists no change document:\n%s", SumsName, list)
	}
	must(t, os.WriteFile(filepath.Join(dir, SumsName), []byte(strings.Join(kept, "")), 0o644))
	if probs := verify(t, dir); len(probs) != 0 {
		t.Errorf("an older dataset does not verify: %v", probs)
	}
}
