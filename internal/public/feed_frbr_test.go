package public_test

import (
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/public"
)

// A source whose manifest names its work (an ELI) and whose URL pins its
// edition: its entries say both, with the format and the hash, in FRBR's
// levels, and link the work; a source with neither says nothing of FRBR.
func TestFeedsNameTheWork(t *testing.T) {
	dir := t.TempDir()
	if data, err := os.ReadFile(filepath.Join("testdata", "manifests", "policy.yaml")); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "manifests", "xa.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := strings.Replace(string(data), "    title: The Act\n", "    title: The Act\n    legal_id: {scheme: eli, id: \"http://data.example.gov/eli/act/2007/3\"}\n    edition: point-in-time 2024-04-06\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "xa.yaml"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	set := loadSet(t, dir)
	ix, _ := feedExample()
	files, err := public.RulesOf(set).Feeds(public.FeedInput{Set: set, Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	var feed struct {
		Entries []struct {
			Links []struct {
				Href string `xml:"href,attr"`
				Rel  string `xml:"rel,attr"`
			} `xml:"link"`
			Content string `xml:"content"`
		} `xml:"entry"`
	}
	for _, f := range files {
		if f.Name == public.FeedOf("xa-act", true) {
			if err := xml.Unmarshal(f.Data, &feed); err != nil {
				t.Fatal(err)
			}
		}
		if f.Name == public.FeedOf("xa-rates", true) && strings.Contains(string(f.Data), "FRBR") {
			t.Errorf("a source with no work or edition known shows FRBR levels:\n%s", f.Data)
		}
	}
	if len(feed.Entries) != 1 {
		t.Fatalf("xa-act's feed has %d entries, want 1", len(feed.Entries))
	}
	e := feed.Entries[0]
	act := sumOf([]byte("act"))
	body := html.UnescapeString(e.Content)
	want := "FRBR: work <code>http://data.example.gov/eli/act/2007/3</code> (eli); expression point-in-time 2024-04-06; item sha256 <code>" + string(act) + "</code>."
	if !strings.Contains(body, want) {
		t.Errorf("the entry lacks %q:\n%s", want, body)
	}
	related := false
	for _, l := range e.Links {
		related = related || l.Rel == "related" && l.Href == "http://data.example.gov/eli/act/2007/3"
	}
	if !related {
		t.Errorf("no link to the work: %+v", e.Links)
	}
}
