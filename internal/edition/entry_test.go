package edition

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

const ukManifest = `jurisdiction: uk
name: United Kingdom
timezone: Europe/London

sources:
  # edition: tax year 2025 to 2026 (a year-specific page)
  - id: uk-employer-rates-thresholds-2025-26
    url: https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2025-to-2026
    kind: withholding-schedule
    title: Rates and thresholds for employers 2025 to 2026
    recheck: 168h
    encodes: [uk.paye.thresholds-2025-26]

  # edition: the current page, updated in place
  - id: uk-vat-rates
    url: https://www.gov.uk/vat-rates
    kind: rates-page
    title: VAT rates
`

// TestInsertAddsTheNextEditionBesideTheListedOne: the proposal's entry is
// added right after the listed source's, which stays as it was; the
// manifest still loads, with both; the entry carries the kind and
// recheck, not the rules the old year's figures encode.
func TestInsertAddsTheNextEditionBesideTheListedOne(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "uk.yaml")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(path, []byte(ukManifest), 0o644))
	set, diags := manifest.Load(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := Find(set, []Page{{Source: "uk-vat-rates", SHA256: strings.Repeat("d", 64), Date: "2026-01-30",
		Links: []Link{{URL: "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2026-to-2027", Text: "Rates: 2026 to 2027 # next", Line: 7}}}})
	if len(got) != 1 {
		t.Fatalf("Find = %+v", got)
	}
	p := got[0]
	p.Title = "Rates and thresholds: employers # 2026 to 2027" // a title YAML would misread plain
	out, err := Insert([]byte(ukManifest), p)
	must(err)
	text := string(out)
	old := ukManifest[strings.Index(ukManifest, "  # edition: tax year"):strings.Index(ukManifest, "\n\n  # edition: the current page")]
	if !strings.Contains(text, old+"\n\n  # edition: the next edition of uk-employer-rates-thresholds-2025-26, found by TaxKernelBot linked from the held copy of uk-vat-rates (sha256 dddddddddddd, line 7)") {
		t.Errorf("the entry is not right after the listed one, which must stay as it was:\n%s", text)
	}
	must(os.WriteFile(path, out, 0o644))
	set, diags = manifest.Load(dir)
	if diags.HasErrors() {
		t.Fatalf("the manifest with the proposal does not load: %v\n%s", diags, text)
	}
	next, ok := set.Source("uk-employer-rates-thresholds-2026-27")
	if !ok || next.URL != p.URL || next.Title != p.Title || next.Kind != manifest.WithholdingSchedule || next.Recheck.Hours() != 168 || len(next.Encodes) != 0 {
		t.Errorf("the proposed source reads back as %+v", next)
	}
	if _, ok := set.Source("uk-employer-rates-thresholds-2025-26"); !ok || len(set.Sources) != 3 {
		t.Errorf("the listed sources are not all kept: %d", len(set.Sources))
	}

	// After the last entry of a file that ends without a newline.
	last := p
	last.Source, _ = set.Source("uk-vat-rates")
	last.ID = "uk-vat-rates-2026"
	out, err = Insert([]byte(strings.TrimSuffix(text, "\n")), last)
	must(err)
	if !strings.HasSuffix(string(out), "    title: VAT rates\n\n"+Entry(last)) {
		t.Errorf("after the last entry:\n%s", out)
	}

	p.Source.Line = 3
	if _, err := Insert([]byte(ukManifest), p); err == nil || !strings.Contains(err.Error(), "uk.yaml:3: the entry of uk-employer-rates-thresholds-2025-26 is not on this line") {
		t.Errorf("a moved entry: %v", err)
	}
}
