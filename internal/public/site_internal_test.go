package public

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestSiteShowsProvisionsFirst: a change of a legislative text shows the
// provisions its change document lists ("s. 113 amended; s. 662
// repealed") before its figures and its diff. The document is put where
// the feeds keep it, as the law reader's will be.
func TestSiteShowsProvisionsFirst(t *testing.T) {
	set, diags := manifest.Load("testdata/manifests")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ix := store.NewIndex()
	old, new := store.Sum(strings.Repeat("a", 64)), store.Sum(strings.Repeat("b", 64))
	ix.Add("xa-act", store.Entry{SHA256: old, Size: 1, FirstSeen: "2026-11-01"}, "")
	ix.Add("xa-act", store.Entry{SHA256: new, Size: 1, FirstSeen: "2026-11-09"}, old)
	src, _ := set.Source("xa-act")
	cs := changesOf(ix, &src)
	doc, err := json.Marshal(changedoc.Doc{
		Version: changedoc.Version, Source: "xa-act", Date: "2026-11-09", Text: changedoc.TextChanged,
		Provisions: []changedoc.ProvisionChange{{ID: "s. 113", Change: "amended"}, {ID: "s. 662", Change: "repealed"}},
		Figures:    []changedoc.Figure{{Row: "s. 113", Old: &changedoc.Value{Line: 4, Text: "£12,570"}, New: &changedoc.Value{Line: 4, Text: "£12,571"}}},
		Hunks:      []changedoc.Hunk{{Lines: []changedoc.Line{{Op: changedoc.OpRemoved, Text: "113 The allowance is £12,570."}, {Op: changedoc.OpAdded, Text: "113 The allowance is £12,571."}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	memo := &EntryMemo{}
	memo.m.Store(cs[1].key(), doc)
	files, err := RulesOf(set).Site(SiteInput{Feed: FeedInput{Set: set, Index: ix, Entries: memo}, Report: &report.Report{}})
	if err != nil {
		t.Fatal(err)
	}
	var page string
	for _, f := range files {
		if f.Name == SourcePage("xa-act") {
			page = string(f.Data)
		}
	}
	provisions := strings.Index(page, "<strong>Provisions:</strong> s. 113 amended; s. 662 repealed.")
	figures := strings.Index(page, "<td>s. 113</td><td>£12,570</td><td>£12,571</td>")
	diff := strings.Index(page, `<span class="ins">+ 113 The allowance is £12,571.</span>`)
	if provisions < 0 || figures < provisions || diff < figures {
		t.Errorf("provisions at %d, figures at %d, diff at %d: want all three in that order\n%s", provisions, figures, diff, page)
	}
	if strings.Contains(page, "bytes</a>") {
		t.Error("a link to bytes although no store serves them")
	}
}
