package review

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/refs"
)

// The issue lists each change after a reference, with its change document
// and the commands citing each side, and stays inert whatever the rules
// repository wrote.
func TestCitedChanged(t *testing.T) {
	a, b, c := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	changed := &refs.HeldBytes{Status: "held", SHA256: b, Retrieved: "2026-11-30", RefDate: "2024-06-01", RefDateFrom: "date-key",
		OnRefDate: a, ChangedAfter: "yes", ChangedOn: "2025-01-15", ChangeFrom: a, ChangeFromDate: "2024-01-10", ChangeTo: b}
	same := &refs.HeldBytes{Status: "held", SHA256: b, RefDate: "2025-06-01", OnRefDate: b, ChangedAfter: "no"}
	// Older than the first copy, which changed on the day it was taken.
	before := &refs.HeldBytes{Status: "held", SHA256: c, Retrieved: "2026-12-07", RefDate: "2026-11-01", RefDateFrom: "git", FirstRetrieved: "2026-12-07", BeforeFirst: true,
		ChangedAfter: "yes", ChangedOn: "2026-12-07", ChangeFrom: a, ChangeFromDate: "2026-12-07", ChangeTo: c}
	rows := []refs.Row{
		{Ref: refs.Ref{File: "p/rate.yaml", Line: 7, Parameter: "gov.rate", Title: "Instructions @octocat #12 <b>x</b> | y", Href: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"},
			Match: refs.Match{Kind: refs.Exact, Source: "us-i1040gi", URL: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"}, Held: changed},
		{Ref: refs.Ref{File: "p/other.yaml", Line: 3, Parameter: "gov.other"},
			Match: refs.Match{Kind: refs.Exact, Source: "us-i1040gi", URL: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"}, Held: same},
		{Ref: refs.Ref{File: "p/x.yaml", Line: 1, Parameter: "gov.x"}, Match: refs.Match{Kind: refs.None}},
		{Ref: refs.Ref{File: "p/uk.yaml", Line: 4, Parameter: "gov.hmrc.rate", Href: "https://www.gov.uk/income-tax-rates"},
			Match: refs.Match{Kind: refs.Exact, Source: "uk-rates", URL: "https://www.gov.uk/income-tax-rates"}, Held: before},
	}
	ratesDoc := "reports/changes/uk-rates/2026-12-07_aaaaaaaaaaaa..cccccccccccc.json"
	archive := CitedArchive{
		Name: "taxkernel/taxkernelbot main",
		File: func(p string) string { return "https://github.example/taxkernel/taxkernelbot/blob/0123/" + p },
		Change: func(p string) (changedoc.Doc, bool) {
			if p != ratesDoc {
				return changedoc.Doc{}, false
			}
			return changedoc.Doc{Figures: []changedoc.Figure{
				{Row: "Basic rate", Column: "Tax rate", Old: &changedoc.Value{Text: "20%"}, New: &changedoc.Value{Text: "21%"}},
				{Row: "Starter `rate`", New: &changedoc.Value{Text: "£2,000"}},
			}}, true
		},
	}
	title, body := CitedChanged(rows, archive)
	if title != "TaxKernelBot: 2 cited document(s) changed after 2 reference(s) to them" {
		t.Errorf("title %q", title)
	}
	for _, want := range []string{
		"### `us-i1040gi` changed on 2025-01-15",
		"- Change document: [reports/changes/us-i1040gi/2025-01-15\\_aaaaaaaaaaaa..bbbbbbbbbbbb.json](https://github.example/taxkernel/taxkernelbot/blob/0123/reports/changes/us-i1040gi/2025-01-15_aaaaaaaaaaaa..bbbbbbbbbbbb.json)",
		"- Before: `taxkernelbot cite us-i1040gi --at 2024-01-10` (sha256 `aaaaaaaaaaaa`)",
		"- After: `taxkernelbot cite us-i1040gi --at 2025-01-15` (sha256 `bbbbbbbbbbbb`)",
		"retrieved 2026-11-30, sha256 `" + b + "`",
		"| `gov.rate` | `p/rate.yaml:7` | 2024-06-01 (date-key) | `aaaaaaaaaaaa` | [Instructions \\@octocat \\#12 \\<b\\>x\\</b\\> \\| y](https://www.irs.gov/pub/irs-pdf/i1040gi.pdf) |",
		// The reference older than the archive's first copy.
		"### `uk-rates` changed on 2026-12-07",
		"  - Basic rate, Tax rate: `20%` → `21%`\n",
		"  - Starter \\`rate\\`: — → `£2,000`\n",
		"- Before: sha256 `" + a + "`, first held on 2026-12-07 and replaced the same day",
		"- After: `taxkernelbot cite uk-rates --at 2026-12-07` (sha256 `cccccccccccc`)",
		"- 1 reference(s) below are older than the archive's first copy (2026-12-07): what they cited may differ from both sides\n",
		"| `gov.hmrc.rate` | `p/uk.yaml:4` | 2026-11-01 (git) | none held yet |",
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
	if title, body := CitedChanged(rows[1:3], archive); title != "" || body != "" {
		t.Errorf("nothing changed, yet %q %q", title, body)
	}
}

// The step summary says what the archive watches, from when, and what it
// cannot.
func TestCitedWatch(t *testing.T) {
	w := refs.Watch{Watched: 5, Changed: 1, Unchanged: 1, Waiting: 3, NoDate: 2, Listed: 1, NotHeld: 4,
		Since: []refs.Since{{Date: "2026-12-01", Documents: 2, References: 4}, {Date: "2026-12-07", Documents: 1, References: 1}}}
	got := CitedWatch(w, 12, "taxkernel/taxkernelbot@abc")
	for _, want := range []string{
		"watches 5 of this repository's 12 reference(s)",
		"- 1 cite a document that changed after their date",
		"- 3 are older than the archive's first copy",
		"| 2026-12-01 | 2 | 4 |\n| 2026-12-07 | 1 | 1 |",
		"It cannot watch 7: 4 cite a document it does not hold",
		"1 one listed but not fetched yet, 2 have no date",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

// However many references a first run finds, the body keeps to GitHub's
// limit: an entry lists its first references and counts the rest, the
// changes cited most come first, and past the limit the rest get a line
// each, then a count.
func TestCitedChangedKeepsToGitHubsLimit(t *testing.T) {
	rowsOf := func(docs int, refsOf func(d int) int) []refs.Row {
		var rows []refs.Row
		for d := range docs {
			id := fmt.Sprintf("uk-document-%02d", d)
			h := &refs.HeldBytes{Status: "held", SHA256: strings.Repeat("b", 64), Retrieved: "2026-12-08", RefDate: "2025-01-01", RefDateFrom: "git",
				FirstRetrieved: "2026-12-07", BeforeFirst: true, ChangedAfter: "yes", ChangedOn: "2026-12-08",
				ChangeFrom: strings.Repeat("a", 64), ChangeFromDate: "2026-12-07", ChangeTo: strings.Repeat("b", 64)}
			for r := range refsOf(d) {
				rows = append(rows, refs.Row{Ref: refs.Ref{File: fmt.Sprintf("policyengine_uk/parameters/gov/dwp/%s/%03d.yaml", strings.Repeat("long_name_", 5), r), Line: 12,
					Parameter: fmt.Sprintf("gov.dwp.%s.p%03d", strings.Repeat("long_name_", 5), r), Title: strings.Repeat("The Universal Credit Regulations 2013 ", 3),
					Href: "https://www.legislation.gov.uk/uksi/2013/376/regulation/36"},
					Match: refs.Match{Kind: refs.Exact, Source: id, URL: "https://www.legislation.gov.uk/uksi/2013/376/data.pdf"}, Held: h})
			}
		}
		return rows
	}
	archive := CitedArchive{Name: "x", File: func(p string) string { return "https://github.example/blob/0123/" + p }}
	// A few dozen documents, as a rules repository's first run finds: each
	// has its entry or its line, none is only counted.
	rows := rowsOf(40, func(d int) int { return 20 + d })
	_, body := CitedChanged(rows, archive)
	if len(body) > MaxBody-1024 {
		t.Errorf("40 changes: the body is %d bytes, over GitHub's limit less the marker's room (%d)", len(body), MaxBody-1024)
	}
	for d := range 40 {
		if id := fmt.Sprintf("`uk-document-%02d` changed on", d); !strings.Contains(body, id) {
			t.Errorf("40 changes: %s is neither shown nor given a line", id)
		}
	}
	if strings.Contains(body, "more change(s)") {
		t.Errorf("40 changes: some are only counted, though their lines had room")
	}

	rows = rowsOf(600, func(d int) int { return 12 + d/10 })
	title, body := CitedChanged(rows, archive)
	if len(body) > MaxBody-1024 {
		t.Errorf("the body is %d bytes, over GitHub's limit less the marker's room (%d)", len(body), MaxBody-1024)
	}
	if want := fmt.Sprintf("600 cited document(s) changed after %d reference(s)", len(rows)); !strings.Contains(title, want) {
		t.Errorf("title %q, want %q", title, want)
	}
	// The most cited first, each with its first ten references.
	first := strings.Index(body, "### `uk-document-590` changed on 2026-12-08")
	if first < 0 || strings.Index(body, "`uk-document-580` changed on") < first || !strings.Contains(body, "…and 61 more reference(s) to it") {
		t.Errorf("the most cited change is not first, with its first references:\n%s", body[:min(len(body), 3000)])
	}
	if strings.Count(body, "| `gov.dwp.") > 10*strings.Count(body, "\n### `") {
		t.Errorf("an entry lists more than 10 references")
	}
	for _, want := range []string{"\n### More changes, a line each\n", "` changed on 2026-12-08: ", ", [change document](https://github.example/blob/0123/reports/changes/uk-document-"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q", want)
		}
	}
	// What is past even the lines is counted, references and changes.
	shown := strings.Count(body, "\n### `") + strings.Count(body, "` changed on 2026-12-08: ")
	var left int
	if _, err := fmt.Sscanf(body[strings.LastIndex(body, "…and "):], "…and %d more change(s)", &left); err != nil || shown+left != 600 {
		t.Errorf("%d changes shown and %d counted (%v), want 600 in all", shown, left, err)
	}
	if !strings.HasSuffix(body, "what it cited may be older than both sides.\n") {
		t.Errorf("the footer is cut off:\n%s", body[len(body)-500:])
	}
}
