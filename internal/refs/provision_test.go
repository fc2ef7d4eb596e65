package refs

import (
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/law"
)

// provisionArchive holds the Old Age Security Act whole (its XML), which
// changed on 2026-03-01 in s. 19 only and on 2026-06-01 in its bytes
// alone (a new consolidation date: the text reads the same), and the
// Canada Pension Plan whole, whose one change has a change document that
// lists no provisions (not read as law).
func provisionArchive(docs map[string]changedoc.Doc) *Archive {
	change := func(source string) func(date, from, to string) (changedoc.Doc, bool) {
		return func(date, from, to string) (changedoc.Doc, bool) {
			d, ok := docs[source+" "+date+" "+from+".."+to]
			return d, ok
		}
	}
	return NewArchive([]Source{
		{ID: "ca-oas-xml", URL: "https://laws-lois.justice.gc.ca/eng/XML/O-9.xml", Kind: "legislation",
			History: []Version{{"2026-01-10", "o1"}, {"2026-03-01", "o2"}, {"2026-06-01", "o3"}}, Change: change("ca-oas-xml")},
		{ID: "ca-cpp-xml", URL: "https://laws-lois.justice.gc.ca/eng/XML/C-8.xml", Kind: "legislation",
			History: []Version{{"2026-01-10", "c1"}, {"2026-03-01", "c2"}}, Change: change("ca-cpp-xml")},
	})
}

func TestBuildReadsTheProvisionCited(t *testing.T) {
	docs := map[string]changedoc.Doc{
		"ca-oas-xml 2026-03-01 o1..o2": {Text: changedoc.TextChanged, Provisions: []changedoc.ProvisionChange{
			{ID: "s. 19", Address: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html", Change: law.Amended, Old: "19 …", New: "19 …"},
			{ID: "s. 371 to 373", Address: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-371.html", Change: law.Repealed, Old: "371 to 373 …"}}},
		"ca-oas-xml 2026-06-01 o2..o3": {Text: changedoc.TextSame},
		"ca-cpp-xml 2026-03-01 c1..c2": {Text: changedoc.TextChanged},
	}
	refs := []Ref{
		{File: "oas.yaml", Line: 1, Href: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html", DateKey: "2026-02-01"},
		{File: "oas.yaml", Line: 2, Href: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-21.html", DateKey: "2026-02-01"},
		{File: "oas.yaml", Line: 3, Href: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html", DateKey: "2026-04-01"},
		{File: "oas.yaml", Line: 4, Href: "https://laws-lois.justice.gc.ca/eng/acts/O-9/FullText.html#s-19", DateKey: "2026-02-01"},
		{File: "oas.yaml", Line: 5, Href: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html", DateKey: "2025-12-01"},
		{File: "oas.yaml", Line: 6, Href: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-21.html", DateKey: "2025-12-01"},
		{File: "cpp.yaml", Line: 1, Href: "https://laws-lois.justice.gc.ca/eng/acts/C-8/section-42.html", DateKey: "2026-02-01"},
		{File: "oas.yaml", Line: 7, Href: "https://laws-lois.justice.gc.ca/eng/XML/O-9.xml", DateKey: "2026-04-01"},
		{File: "oas.yaml", Line: 8, Href: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-372.html", DateKey: "2026-02-01"},
	}
	rep, err := Build(refs, provisionArchive(docs), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := func(i int) HeldBytes {
		t.Helper()
		if rep.Rows[i].Held == nil {
			t.Fatalf("row %d (%s) holds nothing: %+v", i, refs[i].Href, rep.Rows[i].Match)
		}
		return *rep.Rows[i].Held
	}
	if got := h(0); got.Provision != "s. 19" || got.ChangedAfter != "yes" || got.ChangedBy != ChangedByProvision || got.ChangedOn != "2026-03-01" ||
		got.ChangeFrom != "o1" || got.ChangeTo != "o2" || got.ProvisionChange != law.Amended || got.ProvisionAddress != "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html" ||
		got.Note != "s. 19 amended on 2026-03-01, after your reference of 2026-02-01; the archive held the bytes you cited" {
		t.Errorf("s. 19, cited before its amendment: %+v", got)
	}
	if got := h(1); got.Provision != "s. 21" || got.ChangedAfter != "no" || got.ChangedOn != "" || got.ChangedBy != ChangedByProvision ||
		got.Note != "s. 21 unchanged since your reference of 2026-02-01: the document changed 2 time(s) since, none of them in s. 21" {
		t.Errorf("s. 21, which no change touched: %+v", got)
	}
	if got := h(2); got.Provision != "s. 19" || got.ChangedAfter != "no" || got.OnRefDate != "o2" {
		t.Errorf("s. 19, cited after its amendment (the later change only of bytes): %+v", got)
	}
	if got := h(3); got.Provision != "s. 19" || got.ChangedAfter != "yes" || rep.Rows[3].Match.Kind != Provision {
		t.Errorf("s. 19 as an anchor of the full text: %+v %+v", rep.Rows[3].Match, got)
	}
	if got := h(4); got.ChangedAfter != "yes" || !got.BeforeFirst || !strings.HasPrefix(got.Note, "s. 19 amended on 2026-03-01; the archive holds this document since 2026-01-10") {
		t.Errorf("s. 19 cited before the archive's first copy: %+v", got)
	}
	if got := h(5); got.ChangedAfter != "unknown" || !got.BeforeFirst || !strings.Contains(got.Note, "has seen no change since in s. 21 (2 change(s)") {
		t.Errorf("s. 21 cited before the archive's first copy: %+v", got)
	}
	// A change document listing no provisions: the whole document's
	// change, said so.
	if got := h(6); got.Provision != "s. 42" || got.ChangedAfter != "yes" || got.ChangedBy != ChangedByDocument || got.ChangedOn != "2026-03-01" ||
		!strings.Contains(got.Note, "names no provisions") {
		t.Errorf("s. 42 of a text not read as law: %+v", got)
	}
	// The whole text cited: any change counts, as before.
	if got := h(7); got.Provision != "" || got.ChangedBy != "" || got.ChangedAfter != "yes" || got.ChangedOn != "2026-06-01" {
		t.Errorf("the whole text cited: %+v", got)
	}
	// A section of a group the consolidation prints under one label.
	if got := h(8); got.Provision != "s. 371 to 373" || got.ChangedAfter != "yes" || got.ProvisionChange != law.Repealed {
		t.Errorf("s. 372, within the group s. 371 to 373 that was repealed: %+v", got)
	}
	if w := rep.Watch; w.Changed != 6 || w.Unchanged != 2 || w.Waiting != 1 {
		t.Errorf("watch %+v: want 6 changed (s. 19 three times, one before the first copy, s. 42, the whole text, s. 372), 2 unchanged, 1 waiting", w)
	}
}

// Without change documents (a record without reports/, or refs run
// without them), a provision's reference is told of every change of its
// document, and says why.
func TestBuildWithoutChangeDocumentsReportsTheDocument(t *testing.T) {
	refs := []Ref{{File: "oas.yaml", Line: 2, Href: "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-21.html", DateKey: "2026-02-01"}}
	rep, err := Build(refs, provisionArchive(nil), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Rows[0].Held; got == nil || got.Provision != "s. 21" || got.ChangedAfter != "yes" || got.ChangedBy != ChangedByDocument || got.ChangedOn != "2026-03-01" {
		t.Errorf("s. 21 without change documents: %+v", got)
	}
}

// A US Code section is matched within its title held whole in USLM, a
// CFR section within its part as eCFR's API serves it, and a paragraph
// of the EStG within its XML: each as the provision it is.
func TestSectionsWithinWholeTitlesAndParts(t *testing.T) {
	a := NewArchive([]Source{
		{ID: "us-usc-26-uslm", URL: "https://uscode.house.gov/download/releasepoints/us/pl/119/36/xml_usc26@119-36.zip", Kind: "legislation",
			History: []Version{{"2026-01-10", "u1"}}},
		{ID: "us-cfr-26-31", URL: "https://www.ecfr.gov/api/versioner/v1/full/2026-01-02/title-26.xml?part=31", Kind: "legislation",
			History: []Version{{"2026-01-10", "c1"}}},
		{ID: "de-estg-xml", URL: "https://www.gesetze-im-internet.de/estg/xml.zip", Kind: "legislation",
			History: []Version{{"2026-01-10", "e1"}}},
	})
	for _, tc := range []struct{ href, kind, source, provision string }{
		{"https://www.law.cornell.edu/uscode/text/26/3402", Within, "us-usc-26-uslm", "§ 3402"},
		{"https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section32&num=0&edition=prelim", Within, "us-usc-26-uslm", "§ 32"},
		{"https://www.ecfr.gov/current/title-26/section-31.3402(f)(1)-1", Within, "us-cfr-26-31", "§ 31.3402(f)(1)-1"},
		{"https://www.gesetze-im-internet.de/estg/__32a.html", Within, "de-estg-xml", "§ 32a"},
		{"https://www.law.cornell.edu/uscode/text/42/1395", None, "", ""},
	} {
		rep, err := Build([]Ref{{File: "p.yaml", Line: 1, Href: tc.href, DateKey: "2026-02-01"}}, a, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Rows[0]
		if r.Match.Kind != tc.kind || r.Match.Source != tc.source {
			t.Errorf("%s: %s %s (%s), want %s %s", tc.href, r.Match.Kind, r.Match.Source, r.Match.How, tc.kind, tc.source)
			continue
		}
		if tc.provision != "" && (r.Held == nil || r.Held.Provision != tc.provision) {
			t.Errorf("%s: held %+v, want provision %q", tc.href, r.Held, tc.provision)
		}
	}
}
