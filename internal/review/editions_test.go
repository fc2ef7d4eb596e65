package review

import (
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// TestBodyProposesNewEditions: a proposal is a section of its own with
// the old and new addresses, the held page and line that name the new
// one, and the manifest entry to add; what the page says there (a
// server's text) and the title stay inert: the only links are the two
// addresses and the held page's blob.
func TestBodyProposesNewEditions(t *testing.T) {
	const (
		old  = "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2025-to-2026"
		next = "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2026-to-2027"
	)
	p := edition.Proposal{
		Source: manifest.Source{ID: "uk-employer-rates-thresholds-2025-26", Jurisdiction: "uk", URL: old, Kind: manifest.WithholdingSchedule, Title: "Rates and thresholds for employers 2025 to 2026"},
		URL:    next, ID: "uk-employer-rates-thresholds-2026-27", Title: "Rates and thresholds for employers 2026 to 2027 @octocat ``` #12", Year: 2026,
		Evidence: edition.Evidence{Source: "uk-employer-rates-thresholds-2025-26", SHA256: sha("ab"), Date: "2026-01-30", Line: 3, Text: "2026 to 2027 @octocat [x](https://evil.example) <img src=x>"},
	}
	body := Body(nil, Summary{Sources: 1}, links(""), Details{Editions: []edition.Proposal{p}})
	for _, want := range []string{
		"### New editions (1)",
		"nothing is fetched from a new address before a person merges it",
		"`uk-employer-rates-thresholds-2025-26` (uk)",
		"line 3:",
		"  - id: uk-employer-rates-thresholds-2026-27",
		"    url: " + next,
		"    kind: withholding-schedule",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	blob := BlobLink(testFileURL)(sha("ab"))
	live := escapetest.Live(body, escapetest.Options{Link: func(dest string) bool {
		return dest == old || dest == next || dest == blob || strings.HasPrefix(dest, "https://github.com/")
	}})
	if len(live) > 0 {
		t.Errorf("live Markdown in the body: %v\n%s", live, body)
	}
}
