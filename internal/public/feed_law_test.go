package public_test

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestFeedNamesTheChangedProvisions: the entry of a change of an Act
// says which provisions changed before its diff, and its change
// document lists them.
func TestFeedNamesTheChangedProvisions(t *testing.T) {
	dir := t.TempDir()
	policy, err := os.ReadFile("testdata/manifests/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), policy, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.yaml"), []byte(`jurisdiction: ca
name: Canada
timezone: America/Toronto
sources:
  - id: ca-ei-act
    url: https://laws-lois.justice.gc.ca/eng/XML/E-5.6.xml
    kind: legislation
    title: Employment Insurance Act
`), 0o644); err != nil {
		t.Fatal(err)
	}
	set := loadSet(t, dir)
	a, b := sumOf([]byte("old")), sumOf([]byte("new"))
	ix := store.NewIndex()
	ix.Add("ca-ei-act", store.Entry{SHA256: a, Size: 3, ContentType: "application/xml", FirstSeen: "2025-07-31"}, "")
	ix.Add("ca-ei-act", store.Entry{SHA256: b, Size: 3, ContentType: "application/xml", FirstSeen: "2026-05-29"}, a)
	texts := map[string]string{
		string(a): "# Appeal\n113 Appeal to Appeal Division\nA party may appeal within 30 days.\n114 Payment\nBenefits are paid.\n# AMENDMENTS NOT IN FORCE\n# — 2023, c. 26, s. 662\n662\nSection 113 is replaced.\n",
		string(b): "# Appeal\n113 Appeal to Employment Insurance Board of Appeal\nA party may appeal within 30 days.\n114 Payment\nBenefits are paid.\n",
	}
	files, err := public.RulesOf(set).Feeds(public.FeedInput{Set: set, Index: ix,
		Text: func(sum, _ string) (string, bool) { s, ok := texts[sum]; return s, ok }})
	if err != nil {
		t.Fatal(err)
	}
	var feed, doc []byte
	for _, f := range files {
		switch {
		case f.Name == public.FeedOf("ca-ei-act", true):
			feed = f.Data
		case strings.HasPrefix(f.Name, changedoc.Dir+"/"):
			doc = f.Data
		}
	}
	body := html.UnescapeString(string(feed))
	const want = "Provisions: s. 113 amended; 2023, c. 26, s. 662 repealed."
	at, diff := strings.Index(body, want), strings.Index(body, "<pre>")
	if at < 0 || diff < 0 || at > diff {
		t.Errorf("the entry does not say %q before its diff:\n%s", want, body)
	}
	if !strings.Contains(string(doc), `"id": "s. 113"`) || !strings.Contains(string(doc), `"address": "https://laws-lois.justice.gc.ca/eng/acts/E-5.6/section-113.html"`) {
		t.Errorf("the change document does not list s. 113:\n%s", doc)
	}
}
