package public_test

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/public"
)

// TestSourceFeedSaysANewEditionIsAvailable: with a proposal for xa-rates,
// its own feed leads with an entry that says a new edition is available,
// links the new address, names the held page and line it was read on, and
// is dated by that page; the feeds of every document and of the
// jurisdiction are not changed by it, nor the feed of another source.
func TestSourceFeedSaysANewEditionIsAvailable(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	ix, texts := feedExample()
	src, ok := set.Source("xa-rates")
	if !ok {
		t.Fatal("testdata/manifests lists no xa-rates")
	}
	const next = "https://www.example.gov/rates-2027-to-2028"
	in := public.FeedInput{Set: set, Index: ix, Text: func(sum, _ string) (string, bool) { s, ok := texts[sum]; return s, ok }}
	without, err := public.RulesOf(set).Feeds(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Editions = map[string]edition.Proposal{"xa-rates": {
		Source: src, URL: next, ID: "xa-rates-2027-28", Title: src.Title + " 2027 to 2028", Year: 2027,
		Evidence: edition.Evidence{Source: "xa-act", SHA256: strings.Repeat("c", 64), Date: "2026-12-01", Line: 42, Text: `<a>Rates 2027 to 2028</a>`},
	}}
	with, err := public.RulesOf(set).Feeds(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(with) != len(without) {
		t.Fatalf("%d files with the proposal, %d without", len(with), len(without))
	}
	own := public.FeedOf("xa-rates", true)
	for i, f := range with {
		if f.Name != own {
			if string(f.Data) != string(without[i].Data) {
				t.Errorf("%s changed with xa-rates's proposal", f.Name)
			}
			continue
		}
		var feed atomFeed
		if err := xml.Unmarshal(f.Data, &feed); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if len(feed.Entries) == 0 {
			t.Fatalf("%s has no entry", f.Name)
		}
		e := feed.Entries[0]
		if !strings.HasSuffix(e.Title, "a new edition is available") || e.Link.Href != next || !strings.HasPrefix(e.Updated, "2026-12-01") || !strings.HasPrefix(feed.Updated, "2026-12-01") {
			t.Errorf("the lead entry: %+v (feed updated %s)", e, feed.Updated)
		}
		for _, want := range []string{next, "<code>xa-act</code>", "line 42", "&lt;a&gt;Rates 2027 to 2028&lt;/a&gt;", "<code>xa-rates-2027-28</code>", "Nothing has been fetched from the new address"} {
			if !strings.Contains(e.Content.Body, want) {
				t.Errorf("the lead entry's content lacks %q:\n%s", want, e.Content.Body)
			}
		}
		if len(feed.Entries) != 4 { // and the three changes of xa-rates
			t.Errorf("%s has %d entries, want the new edition's and the three changes", f.Name, len(feed.Entries))
		}
	}
}
