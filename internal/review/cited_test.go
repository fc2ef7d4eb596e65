package review

import (
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/refs"
)

// The issue lists what changed after the reference, with the citation,
// and stays inert whatever the rules repository wrote.
func TestCitedChanged(t *testing.T) {
	changed := &refs.HeldBytes{Status: "held", SHA256: strings.Repeat("b", 64), Retrieved: "2026-11-30", RefDate: "2024-06-01", RefDateFrom: "date-key",
		OnRefDate: strings.Repeat("a", 64), ChangedAfter: "yes", ChangedOn: "2025-01-15"}
	same := &refs.HeldBytes{Status: "held", SHA256: strings.Repeat("b", 64), RefDate: "2025-06-01", OnRefDate: strings.Repeat("b", 64), ChangedAfter: "no"}
	rows := []refs.Row{
		{Ref: refs.Ref{File: "p/rate.yaml", Line: 7, Parameter: "gov.rate", Title: "Instructions @octocat #12 <b>x</b> | y", Href: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"},
			Match: refs.Match{Kind: refs.Exact, Source: "us-i1040gi", URL: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"}, Held: changed},
		{Ref: refs.Ref{File: "p/other.yaml", Line: 3, Parameter: "gov.other"},
			Match: refs.Match{Kind: refs.Exact, Source: "us-i1040gi", URL: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"}, Held: same},
		{Ref: refs.Ref{File: "p/x.yaml", Line: 1, Parameter: "gov.x"}, Match: refs.Match{Kind: refs.None}},
	}
	title, body := CitedChanged(rows, "taxkernel/taxkernelbot main")
	if title != "TaxKernelBot: 1 cited document(s) changed after 1 reference(s) to them" {
		t.Errorf("title %q", title)
	}
	for _, want := range []string{
		"### `us-i1040gi`",
		"retrieved 2026-11-30, sha256 `" + strings.Repeat("b", 64) + "`",
		"| `gov.rate` | `p/rate.yaml:7` | 2024-06-01 (date-key) | `aaaaaaaaaaaa` | 2025-01-15 | [Instructions \\@octocat \\#12 \\<b\\>x\\</b\\> \\| y](https://www.irs.gov/pub/irs-pdf/i1040gi.pdf) |",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "gov.other") || strings.Contains(body, "gov.x") {
		t.Errorf("a reference whose document did not change is listed:\n%s", body)
	}
	if strings.Contains(body, " <b>") || strings.Contains(body, "@octocat") && !strings.Contains(body, "\\@octocat") {
		t.Errorf("the repository's title is not inert:\n%s", body)
	}
	if title, body := CitedChanged(rows[1:], "x"); title != "" || body != "" {
		t.Errorf("nothing changed, yet %q %q", title, body)
	}
}
