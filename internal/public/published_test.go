package public_test

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/public"
)

// What GitHub Pages may serve of the record: 1 GB in all. A source may
// take perSourceBudget of it, site pages, feed and change documents
// together, so that 10,000 sources over ten years (BenchmarkSiteDecade)
// stay at 800 MB, a fifth under the limit; the feeds of every document
// and of each jurisdiction (FeedEntries entries each, and the change
// documents they link) take perChangeBudget an entry on top.
const (
	pagesLimit      = 1_000_000_000
	perSourceBudget = 80_000
	perChangeBudget = 6_000 // an entry of about 2 KB and its change document of about 2.5 KB
)

// TestPublishedWithinBudget: the files published of a record shaped as
// the decade one (sources changing every week to every year for ten
// years), site, feeds and change documents, stay within the budget of
// its sources and feeds; every change document a feed links is among
// them; and rendering the same record again writes no byte.
func TestPublishedWithinBudget(t *testing.T) {
	if decadeSources*perSourceBudget > pagesLimit*8/10 {
		t.Fatalf("the budget of %d bytes a source lets 10,000 sources pass 800 MB", perSourceBudget)
	}
	jurisdictions := []string{"aa", "bb"}
	d := newRecord(t, 50, 10, jurisdictions, 10)
	rules := public.RulesOf(d.set)
	render := func() []public.File {
		t.Helper()
		in := d.input()
		in.Feed.Entries = &public.EntryMemo{} // as a run renders them: outputs.Render
		feeds, err := rules.Feeds(in.Feed)
		if err != nil {
			t.Fatal(err)
		}
		site, err := rules.Site(in)
		if err != nil {
			t.Fatal(err)
		}
		return append(feeds, site...)
	}
	files := render()
	held := map[string][]byte{}
	for _, f := range files {
		held[f.Name] = f.Data
	}

	// Every change document an entry links is published.
	const root = "https://taxkernel.com/"
	for name, data := range held {
		if !strings.HasSuffix(name, ".atom") {
			continue
		}
		for i, ls := range entryLinks(t, data) {
			for _, l := range ls {
				if l.Type != "application/json" {
					continue
				}
				if doc := strings.TrimPrefix(l.Href, root); held[doc] == nil {
					t.Errorf("%s: entry %d links %s, which is not published", name, i, l.Href)
				}
			}
		}
	}

	dir := t.TempDir()
	if _, err := public.Write(dir, files...); err != nil {
		t.Fatal(err)
	}
	size, docs := 0, 0
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		size += int(info.Size())
		if rel, _ := filepath.Rel(dir, path); strings.HasPrefix(filepath.ToSlash(rel), changedoc.Dir+"/") {
			docs++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	budget := len(d.set.Sources)*perSourceBudget + (1+len(jurisdictions))*public.FeedEntries*perChangeBudget
	t.Logf("%d sources, %d versions: %d bytes published (%d change documents), budget %d", len(d.set.Sources), len(d.versions), size, docs, budget)
	if size > budget {
		t.Errorf("%d bytes published for %d sources, over the budget of %d (%d a source, %d an entry of the feeds of every document and each jurisdiction)",
			size, len(d.set.Sources), budget, perSourceBudget, perChangeBudget)
	}

	// A quiet run: the same record renders the same bytes, and nothing is
	// written.
	wrote, err := public.Write(dir, render()...)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != 0 {
		t.Errorf("a quiet run wrote %d file(s), first %s", len(wrote), wrote[0])
	}
}

// TestSourcePageSaysWhereOlderChangesAre: a source's page shows its
// newest changes in full; of the older ones it says how many its feed
// still shows with their change documents, and that the monthly dataset
// releases hold the documents of the rest, which the site does not
// publish.
func TestSourcePageSaysWhereOlderChangesAre(t *testing.T) {
	d := newRecord(t, 1, 1, []string{"aa"}, 1) // one source changing every week for a year
	files := siteFiles(t, d.input(), public.RulesOf(d.set))
	page := string(files[public.SourcePage("aa-doc-00000")])
	changes := len(d.versions) - 1
	want := fmt.Sprintf("<p>%d older change(s) are in the timeline above, the newest %d of them in the <a href=\"../../feeds/sources/aa-doc-00000.atom\">feed</a> with their change documents; the dataset release of each month (<code>dataset-YYYY-MM</code>) holds the change documents of every change in it.</p>",
		changes-public.SiteChanges, public.SourceFeedEntries-public.SiteChanges)
	if !strings.Contains(page, want) {
		t.Errorf("the page of a source with %d changes does not say where the older ones are: want\n%s\nin\n%s", changes, want, page)
	}
}
