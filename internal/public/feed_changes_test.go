package public_test

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/public"
)

// entryLinks are the links of each entry of a feed, in order.
func entryLinks(t *testing.T, data []byte) [][]struct{ Href, Rel, Type string } {
	t.Helper()
	var f struct {
		Entries []struct {
			Links []struct {
				Href string `xml:"href,attr"`
				Rel  string `xml:"rel,attr"`
				Type string `xml:"type,attr"`
			} `xml:"link"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var out [][]struct{ Href, Rel, Type string }
	for _, e := range f.Entries {
		var ls []struct{ Href, Rel, Type string }
		for _, l := range e.Links {
			ls = append(ls, struct{ Href, Rel, Type string }{l.Href, l.Rel, l.Type})
		}
		out = append(out, ls)
	}
	return out
}

// TestFeedChangeDocuments: each change entry links its change document,
// as an alternate of type application/json before the live page (which
// feed readers take as the entry's link: TestInteropFeedparser), and the
// document is among the files, under the name the link says, naming the
// change: the figure £37,700 → £37,500 on line 2. A first copy has none.
func TestFeedChangeDocuments(t *testing.T) {
	files := renderFeeds(t)
	const site = "https://taxkernel.com/"
	links := entryLinks(t, files[public.FeedOf("xa-rates", true)])
	if len(links) != 3 {
		t.Fatalf("xa-rates feed: %d entries, want 3", len(links))
	}
	for i, ls := range links {
		if i == 2 { // the first copy
			if len(ls) != 1 {
				t.Errorf("the first copy's entry has links %+v, want the live page only", ls)
			}
			continue
		}
		if len(ls) != 2 || ls[1].Href != "https://www.example.gov/rates" || ls[1].Type != "" ||
			ls[0].Rel != "alternate" || ls[0].Type != "application/json" || !strings.HasPrefix(ls[0].Href, site+changedoc.Dir+"/xa-rates/") {
			t.Errorf("entry %d links %+v, want the change document then the live page", i, ls)
			continue
		}
		name := strings.TrimPrefix(ls[0].Href, site)
		data, ok := files[name]
		if !ok {
			t.Errorf("entry %d links %s, which is not among the files", i, name)
			continue
		}
		d, err := changedoc.Parse(name, data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if i == 1 {
			if d.Date != "2026-11-03" || d.Returned || d.URL != "https://www.example.gov/rates" || len(d.Figures) != 1 ||
				d.Figures[0].Old.Text != "£37,700" || d.Figures[0].New.Value != "37500" || d.Figures[0].New.Line != 2 {
				t.Errorf("%s: %+v", name, d)
			}
		}
		if i == 0 && !d.Returned {
			t.Errorf("%s: the return to the first bytes is not marked returned", name)
		}
	}
	n := 0
	for name := range files {
		if strings.HasPrefix(name, changedoc.Dir+"/") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d change documents, want xa-rates's 2", n)
	}
}

// TestFeedChangeDocumentsWithoutASite: with no page in the User-Agent
// there is no site to link the documents on: the entries do not link
// them, and they are written all the same.
func TestFeedChangeDocumentsWithoutASite(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	set.Policy.UserAgent = "TaxKernelBot/1.0"
	ix, texts := feedExample()
	files, err := public.RulesOf(set).Feeds(public.FeedInput{Set: set, Index: ix,
		Text: func(sum, _ string) (string, bool) { s, ok := texts[sum]; return s, ok }})
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	for _, f := range files {
		if strings.HasPrefix(f.Name, changedoc.Dir+"/") {
			docs++
		}
		if strings.HasSuffix(f.Name, ".atom") && strings.Contains(string(f.Data), "application/json") {
			t.Errorf("%s links a change document with no site to serve it", f.Name)
		}
	}
	if docs != 2 {
		t.Errorf("%d change documents, want 2", docs)
	}
}

// TestFeedChangeDocumentsWhenDone: the change documents of a source whose
// feed was written during the run (Done) are still among the files, from
// the memo, the same bytes.
func TestFeedChangeDocumentsWhenDone(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	ix, texts := feedExample()
	reads := 0
	in := public.FeedInput{Set: set, Index: ix, Entries: &public.EntryMemo{},
		Text: func(sum, _ string) (string, bool) { reads++; s, ok := texts[sum]; return s, ok }}
	rules := public.RulesOf(set)
	src, _ := set.Source("xa-rates")
	if _, err := rules.SourceFeed(in, src); err != nil {
		t.Fatal(err)
	}
	in.Done = func(id string) bool { return id == "xa-rates" }
	files, err := rules.Feeds(in)
	if err != nil {
		t.Fatal(err)
	}
	want := renderFeeds(t)
	docs := 0
	for _, f := range files {
		if f.Name == public.FeedOf("xa-rates", true) {
			t.Errorf("the Done feed is rendered again")
		}
		if strings.HasPrefix(f.Name, changedoc.Dir+"/") {
			docs++
			if string(want[f.Name]) != string(f.Data) {
				t.Errorf("%s differs from the one rendered in one go", f.Name)
			}
		}
	}
	if docs != 2 || reads != 4 {
		t.Errorf("%d change documents, texts read %d times; want 2 and 4", docs, reads)
	}
}
