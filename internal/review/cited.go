package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
	"github.com/taxkernel/taxkernelbot/internal/refs"
)

// maxCitedRows bounds the rows of the cited-changed issue, well inside
// GitHub's body limit; the rest are counted.
const maxCitedRows = 300

// CitedChanged is the title and body (but for the marker line) of the one
// issue a rules repository gets from `refs --issue`: each document the
// archive holds that changed after the date of a reference citing it, with
// the change (the bytes held on the reference's date, and since when
// others) and its citation, and the parameters citing it. What the
// repository or a server wrote is inert Markdown. "" when nothing cited
// changed.
func CitedChanged(rows []refs.Row, archive string) (title, body string) {
	type doc struct {
		source, url string
		held        *refs.HeldBytes
		rows        []refs.Row
	}
	by := map[string]*doc{}
	for _, r := range rows {
		if r.Held == nil || r.Held.ChangedAfter != "yes" {
			continue
		}
		d := by[r.Match.Source]
		if d == nil {
			d = &doc{source: r.Match.Source, url: r.Match.URL, held: r.Held}
			by[r.Match.Source] = d
		}
		d.rows = append(d.rows, r)
	}
	if len(by) == 0 {
		return "", ""
	}
	ids := make([]string, 0, len(by))
	params := 0
	for id, d := range by {
		ids = append(ids, id)
		params += len(d.rows)
	}
	slices.Sort(ids)
	title = fmt.Sprintf("TaxKernelBot: %d cited document(s) changed after %d reference(s) to them", len(ids), params)
	var b strings.Builder
	fmt.Fprintf(&b, "The archive (%s) holds %d document(s) that changed after the date of a reference to them in this repository's parameters. Check each parameter against the document as it is now, then bring the reference up to date; this issue is updated when the list changes and closed when it is empty.\n",
		markdown.TextN(archive, 200), len(ids))
	shown := 0
	for _, id := range ids {
		d := by[id]
		h := d.held
		fmt.Fprintf(&b, "\n### %s\n\n", markdown.Code(id))
		fmt.Fprintf(&b, "- Citation now: %s, retrieved %s, sha256 %s\n", markdown.Link(markdown.Clip(d.url, 200), d.url), markdown.Text(h.Retrieved), markdown.Code(h.SHA256))
		fmt.Fprintf(&b, "- Then: %s cites the bytes held on a reference's date\n", markdown.Code("taxkernelbot cite "+id+" --at DATE"))
		b.WriteString("\n| Parameter | Where | Reference date | Bytes then | Changed on | Cited as |\n|---|---|---|---|---|---|\n")
		for _, r := range d.rows {
			if shown == maxCitedRows {
				break
			}
			shown++
			cited := markdown.TextN(r.Title, 120)
			if r.Href != "" {
				cited = markdown.Link(markdown.Clip(cmpOr(r.Title, r.Href), 120), r.Href)
			}
			fmt.Fprintf(&b, "| %s | %s | %s (%s) | %s | %s | %s |\n", markdown.CellCode(r.Parameter), markdown.CellCode(fmt.Sprintf("%s:%d", r.File, r.Line)),
				markdown.Text(r.Held.RefDate), markdown.Text(r.Held.RefDateFrom), markdown.CellCode(short(r.Held.OnRefDate)), markdown.Text(r.Held.ChangedOn), cited)
		}
	}
	if shown < params {
		fmt.Fprintf(&b, "\n…and %d more reference(s); `taxkernelbot refs --json` lists them all.\n", params-shown)
	}
	b.WriteString("\n---\nKept by `taxkernelbot refs --issue`, run on a schedule. The reference date is the one its URL pins, its date key, or when its line was last changed (git).\n")
	return title, b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// short is the first 12 hex digits of a sha256, as the text shows it.
func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
