package review

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
	"github.com/taxkernel/taxkernelbot/internal/refs"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// citedBudget is what the cited-changed issue's body may take, in bytes:
// GitHub's limit, less room for the marker line the client puts first.
const citedBudget = MaxBody - 1024

// maxCitedRows is how many references an entry lists; the rest are
// counted (refs --json lists them all).
const maxCitedRows = 10

// maxCitedFigures is how many changed figures an entry shows; its change
// document has them all.
const maxCitedFigures = 5

// CitedArchive is the record a rules repository's references were matched
// against, as the cited-changed issue names and links it.
type CitedArchive struct {
	// Name says which record it is (the archive repository and commit).
	Name string
	// File links a file of the record, such as a change document under
	// reports/ (nil or "": no link).
	File func(path string) string
	// Change returns the change document of a change (changedoc.Path
	// under reports/), when the record holds it (nil: none read).
	Change func(path string) (changedoc.Doc, bool)
}

// CitedChanged is the title and body (but for the marker line) of the one
// issue a rules repository gets from `refs --issue`: each change of a
// document the archive holds that came after the date of a reference
// citing it, with its change document (the figures old → new), the
// commands that cite the bytes on each side, and the parameters citing
// it. A reference older than the archive's first bytes of its document
// is listed under the first change the archive saw, saying that what it
// cited may differ from both sides. The changes cited most come first;
// once the body would pass GitHub's limit the rest are listed a line each,
// then counted. What the repository or a server wrote is inert Markdown.
// "" when nothing cited changed.
func CitedChanged(rows []refs.Row, archive CitedArchive) (title, body string) {
	type change struct {
		source, url, date string
		held              *refs.HeldBytes
		rows              []refs.Row
	}
	by := map[string]*change{}
	docs := map[string]bool{}
	for _, r := range rows {
		h := r.Held
		if h == nil || h.ChangedAfter != "yes" {
			continue
		}
		key := r.Match.Source + " " + h.ChangedOn + " " + h.ChangeFrom + " " + h.ChangeTo
		c := by[key]
		if c == nil {
			c = &change{source: r.Match.Source, url: r.Match.URL, date: h.ChangedOn, held: h}
			by[key] = c
		}
		c.rows = append(c.rows, r)
		docs[r.Match.Source] = true
	}
	if len(by) == 0 {
		return "", ""
	}
	changes := make([]*change, 0, len(by))
	params := 0
	for _, c := range by {
		changes = append(changes, c)
		params += len(c.rows)
	}
	slices.SortFunc(changes, func(a, b *change) int {
		return cmp.Or(len(b.rows)-len(a.rows), strings.Compare(a.source, b.source), strings.Compare(a.date, b.date), strings.Compare(a.held.ChangeTo, b.held.ChangeTo))
	})
	title = fmt.Sprintf("TaxKernelBot: %d cited document(s) changed after %d reference(s) to them", len(docs), params)
	const footer = "\n---\nKept by `taxkernelbot refs --issue`, run on a schedule. The reference date is the one its URL pins, its date key, or when its line was last changed (git). A reference dated before the archive first held its document is listed under the first change the archive saw: the document changed after the reference, though what it cited may be older than both sides.\n"
	var b strings.Builder
	fmt.Fprintf(&b, "The archive (%s) holds %d document(s) that changed after the date of a reference to them in this repository's parameters. Check each parameter against the document as it is now, then bring the reference up to date; this issue is updated when the list changes and closed when it is empty.\n",
		markdown.TextN(archive.Name, 200), len(docs))
	// Room for the closing lines: the footer and a count of what is left.
	room := func(n int) bool { return b.Len()+n+len(footer)+200 <= citedBudget }
	// A change is shown whole only while every change after it still has
	// room for its line (the first, whenever it fits).
	lines := make([]string, len(changes))
	rest := 0
	for i, c := range changes {
		lines[i] = fmt.Sprintf("- %s changed on %s%s: %d reference(s)%s\n", markdown.Code(c.source), markdown.Text(c.date), provisionsInBrief(c.rows), len(c.rows), changeDocLink(c.source, c.held, archive))
		rest += len(lines[i])
	}
	const briefHeading = "\n### More changes, a line each\n\n"
	brief := false
	for i, c := range changes {
		rest -= len(lines[i])
		if !brief {
			entry := citedEntry(c.source, c.url, c.rows, archive)
			if room(len(entry)+len(briefHeading)+rest) || i == 0 && room(len(entry)) {
				b.WriteString(entry)
				continue
			}
			brief = true
			b.WriteString(briefHeading)
		}
		line := lines[i]
		if !room(len(line)) {
			left := 0
			for _, c := range changes[i:] {
				left += len(c.rows)
			}
			fmt.Fprintf(&b, "\n…and %d more change(s), cited by %d reference(s); `taxkernelbot refs --json` lists them all.\n", len(changes)-i, left)
			break
		}
		b.WriteString(line)
	}
	b.WriteString(footer)
	return title, b.String()
}

// citedEntry is the section of one change: the change, the citation now,
// and the first references citing it.
func citedEntry(source, url string, rows []refs.Row, archive CitedArchive) string {
	var b strings.Builder
	h := rows[0].Held
	fmt.Fprintf(&b, "\n### %s changed on %s\n\n", markdown.Code(source), markdown.Text(h.ChangedOn))
	b.WriteString(provisionLines(rows))
	b.WriteString(changeLines(source, h, citedIDs(rows), archive))
	fmt.Fprintf(&b, "- Citation now: %s, retrieved %s, sha256 %s\n", markdown.Link(markdown.Clip(url, 200), url), markdown.Text(h.Retrieved), markdown.Code(h.SHA256))
	older := 0
	for _, r := range rows {
		if r.Held.BeforeFirst {
			older++
		}
	}
	if older > 0 {
		fmt.Fprintf(&b, "- %d reference(s) below are older than the archive's first copy (%s): what they cited may differ from both sides\n", older, markdown.Text(h.FirstRetrieved))
	}
	b.WriteString("\n| Parameter | Where | Reference date | Bytes then | Cited as |\n|---|---|---|---|---|\n")
	for i, r := range rows {
		if i == maxCitedRows {
			fmt.Fprintf(&b, "\n…and %d more reference(s) to it; `taxkernelbot refs --json` lists them all.\n", len(rows)-i)
			break
		}
		cited := markdown.TextN(r.Title, 120)
		if r.Href != "" {
			cited = markdown.Link(markdown.Clip(cmpOr(r.Title, r.Href), 120), r.Href)
		}
		then := markdown.CellCode(short(r.Held.OnRefDate))
		if r.Held.BeforeFirst {
			then = "none held yet"
		}
		fmt.Fprintf(&b, "| %s | %s | %s (%s) | %s | %s |\n", markdown.CellCode(r.Parameter), markdown.CellCode(fmt.Sprintf("%s:%d", r.File, r.Line)),
			markdown.Text(r.Held.RefDate), markdown.Text(r.Held.RefDateFrom), then, cited)
	}
	return b.String()
}

// changeDocLink is ", change document: LINK" for a change whose record
// files are linked, else "".
func changeDocLink(source string, h *refs.HeldBytes, archive CitedArchive) string {
	from, to := store.Sum(h.ChangeFrom), store.Sum(h.ChangeTo)
	if !from.Valid() || !to.Valid() {
		return ""
	}
	path := "reports/" + changedoc.Path(source, h.ChangedOn, from, to)
	if link := fileLink(archive, path); link != "" {
		return ", " + markdown.Link("change document", link)
	}
	return ""
}

// datasetRelease is the GitHub Release of the month of date (YYYY-MM-DD)
// that ships the record of that month, its change documents included.
func datasetRelease(date string) string {
	return "dataset-" + date[:min(len(date), len("YYYY-MM"))]
}

// changeLines are an entry's lines on the change itself: its change
// document, with the first figures old → new when the record holds it,
// and the commands citing each side.
func changeLines(source string, h *refs.HeldBytes, provisions map[string]bool, archive CitedArchive) string {
	var b strings.Builder
	from, to := store.Sum(h.ChangeFrom), store.Sum(h.ChangeTo)
	if from.Valid() && to.Valid() {
		path := "reports/" + changedoc.Path(source, h.ChangedOn, from, to)
		what := "the change as data (its changed lines, and each changed figure old → new)"
		if link := fileLink(archive, path); link != "" {
			fmt.Fprintf(&b, "- Change document: %s: %s\n", markdown.Link(markdown.Clip(path, 200), link), what)
		} else {
			// Not linked: no address given, or the record does not
			// hold it; the month's dataset release ships every change
			// document of the month.
			fmt.Fprintf(&b, "- Change document: %s in the archive, and in the dataset release %s: %s\n", markdown.Code(path), markdown.Code(datasetRelease(h.ChangedOn)), what)
		}
		if archive.Change != nil {
			if d, ok := archive.Change(path); ok {
				b.WriteString(figureLines(citedFigures(d, provisions)))
			}
		}
	}
	cite := "taxkernelbot cite " + source + " --at "
	if h.ChangeFromDate != "" && h.ChangeFromDate < h.ChangedOn {
		fmt.Fprintf(&b, "- Before: %s (sha256 %s)\n", markdown.Code(cite+h.ChangeFromDate), markdown.Code(short(h.ChangeFrom)))
	} else {
		// Both sides on one day: --at gives the later, and the earlier is
		// named by its hash.
		fmt.Fprintf(&b, "- Before: sha256 %s, first held on %s and replaced the same day\n", markdown.Code(h.ChangeFrom), markdown.Text(h.ChangeFromDate))
	}
	fmt.Fprintf(&b, "- After: %s (sha256 %s)\n", markdown.Code(cite+h.ChangedOn), markdown.Code(short(h.ChangeTo)))
	return b.String()
}

// citedFigures are the figures of d to show: those of the provisions
// cited when d lists them, else all of d's, and how many more the
// document has.
func citedFigures(d changedoc.Doc, provisions map[string]bool) ([]changedoc.Figure, int) {
	if len(provisions) == 0 || len(d.Provisions) == 0 {
		return d.Figures, d.OmittedFigures
	}
	var figs []changedoc.Figure
	for _, p := range d.Provisions {
		if provisions[p.ID] {
			figs = append(figs, p.Figures...)
		}
	}
	return figs, 0
}

// provisionLines name the provisions an entry's references cite and how
// each changed, with the publisher's page of it; or say that the change
// document lists no provisions, so the whole document's change is told.
func provisionLines(rows []refs.Row) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, r := range rows {
		h := r.Held
		if h.Provision == "" || seen[h.Provision] {
			continue
		}
		seen[h.Provision] = true
		switch h.ChangedBy {
		case refs.ChangedByProvision:
			what := markdown.Text(h.Provision + " " + h.ProvisionChange)
			if h.ProvisionAddress != "" {
				what = markdown.Link(markdown.Clip(h.Provision+" "+h.ProvisionChange, 120), h.ProvisionAddress)
			}
			fmt.Fprintf(&b, "- Provision cited: %s (its old and new text are in the change document below)\n", what)
		default:
			fmt.Fprintf(&b, "- Provision cited: %s; the change document lists no provisions (the text is not read as law, or the document is older), so this is any change of the whole document\n", markdown.Text(h.Provision))
		}
	}
	return b.String()
}

// provisionsInBrief is " (s. 19 amended, s. 42)" for a change's line in
// brief: the provisions its references cite.
func provisionsInBrief(rows []refs.Row) string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rows {
		h := r.Held
		if h.Provision == "" || seen[h.Provision] {
			continue
		}
		seen[h.Provision] = true
		names = append(names, strings.TrimSpace(h.Provision+" "+h.ProvisionChange))
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + markdown.TextN(strings.Join(names, ", "), 200) + ")"
}

// citedIDs are the provisions rows cite that a change document listed.
func citedIDs(rows []refs.Row) map[string]bool {
	ids := map[string]bool{}
	for _, r := range rows {
		if r.Held.Provision != "" && r.Held.ChangedBy == refs.ChangedByProvision {
			ids[r.Held.Provision] = true
		}
	}
	return ids
}

// figureLines lists the first changed figures, old → new; omitted counts
// those the change document leaves out.
func figureLines(figs []changedoc.Figure, omitted int) string {
	var b strings.Builder
	for i, f := range figs {
		if i == maxCitedFigures {
			fmt.Fprintf(&b, "  - …and %d more figure(s) in the change document\n", len(figs)-i+omitted)
			break
		}
		label := f.Row
		if f.Column != "" && label != "" {
			label += ", " + f.Column
		} else if f.Column != "" {
			label = f.Column
		}
		side := func(v *changedoc.Value) string {
			if v == nil {
				return "—"
			}
			return markdown.CodeN(v.Text, 60)
		}
		fmt.Fprintf(&b, "  - %s: %s → %s\n", cmpOr(markdown.TextN(label, 120), "(no row)"), side(f.Old), side(f.New))
	}
	return b.String()
}

func fileLink(archive CitedArchive, path string) string {
	if archive.File == nil {
		return ""
	}
	return archive.File(path)
}

// CitedWatch is the step summary of `refs --issue`: how many of the
// repository's references the archive watches, from which dates, and how
// many it cannot (not held, not fetched yet, no date).
func CitedWatch(w refs.Watch, references int, archive string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Cited documents\n\nThe archive (%s) watches %d of this repository's %d reference(s): a document it holds, and a date.\n\n",
		markdown.TextN(archive, 200), w.Watched, references)
	fmt.Fprintf(&b, "- %d cite a document that changed after their date (in the issue)\n", w.Changed)
	fmt.Fprintf(&b, "- %d cite a document unchanged since their date\n", w.Unchanged)
	fmt.Fprintf(&b, "- %d are older than the archive's first copy of their document, which has not changed since: the first change it sees will be reported\n", w.Waiting)
	if len(w.Since) > 0 {
		b.WriteString("\n| Held since | Documents | References |\n|---|---|---|\n")
		for _, s := range w.Since {
			fmt.Fprintf(&b, "| %s | %d | %d |\n", markdown.Text(s.Date), s.Documents, s.References)
		}
	}
	fmt.Fprintf(&b, "\nIt cannot watch %d: %d cite a document it does not hold (`taxkernelbot refs --suggest` drafts the entries to add), %d one listed but not fetched yet, %d have no date (none in the URL or key, and git could not date the line).\n",
		w.NotHeld+w.Listed+w.NoDate, w.NotHeld, w.Listed, w.NoDate)
	return b.String()
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
