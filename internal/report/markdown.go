package report

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/answer"
	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// statusOrder is the order of statuses in every count, column and
// section: what is held, then what is not yet, then what went wrong.
var statusOrder = []state.Status{
	state.Fresh, state.Pending, state.Failing, state.Gone, state.BlockedRobots,
	state.RobotsUnavailable, state.Unreachable, state.Excluded, state.Paused, state.Moved, state.TooLarge,
}

// meaning is read by key only, never ranged over, so it cannot disturb
// the output order.
var meaning = map[state.Status]string{
	state.Failing:           "The last check failed; older bytes may still be held.",
	state.Gone:              "The server answered 404 or 410.",
	state.BlockedRobots:     "robots.txt disallows these URLs: a permanent gap, never routed around.",
	state.RobotsUnavailable: "robots.txt could not be read, so the host was not fetched.",
	state.Unreachable:       "The host could not be reached at all (its name does not resolve, the connection was refused or reset, or TLS failed); a mistyped host name shows here.",
	state.Excluded:          "Excluded at the site owner's request (policy).",
	state.Paused:            "The host was paused after repeated 403 responses.",
	state.Moved:             "Redirected to an unlisted host or URL, which was not followed.",
	state.TooLarge:          "The body was larger than max_body and was abandoned.",
}

// compareStatus orders statuses by statusOrder; a status this version
// does not know (say, from a newer coverage.json) sorts after, by name.
func compareStatus(a, b state.Status) int {
	rank := func(s state.Status) int {
		if i := slices.Index(statusOrder, s); i >= 0 {
			return i
		}
		return len(statusOrder)
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(string(a), string(b)))
}

func compareEntry(a, b Entry) int {
	return cmp.Or(strings.Compare(a.Jurisdiction, b.Jurisdiction), strings.Compare(a.ID, b.ID))
}

// Markdown renders the report for GitHub: a summary table per
// jurisdiction (counts per status), then gaps and failures (everything not
// fresh or pending, plus declared encoding gaps, plus sources whose final
// URL differs from the manifest with a suggestion to update it), then one
// row per source.
func (r *Report) Markdown() []byte {
	return r.markdown("# Coverage", -1, nil)
}

// SplitAt is the size past which the Markdown report is split: GitHub
// stops rendering a Markdown file at about 512 KB.
const SplitAt = 256 << 10

// SplitDir is the directory, beside coverage.md, of the per-jurisdiction
// reports of a split report.
const SplitDir = "coverage"

// shownWhenSplit is how many sources each list of the top-level report
// names when the report is split; the jurisdictions' files have them all.
const shownWhenSplit = 50

// MarkdownFiles renders the report as the Markdown files to write, by name
// relative to the reports directory: coverage.md alone while it stays
// under SplitAt; past it, coverage.md keeps the summary and what needs
// action (each list shortened to its first sources) and links one file
// per jurisdiction, coverage/<jurisdiction>.md, with that jurisdiction's
// whole report.
func (r *Report) MarkdownFiles() map[string][]byte {
	whole := r.Markdown()
	if len(whole) <= SplitAt {
		return map[string][]byte{"coverage.md": whole}
	}
	es := sorted(r.Sources)
	out := map[string][]byte{}
	var links []string
	for _, g := range byJurisdiction(es) {
		j := g[0].Jurisdiction
		name := SplitDir + "/" + fileName(j) + ".md"
		data := (&Report{Sources: g}).markdown("# Coverage: "+text(j), -1, nil)
		if len(data) <= SplitAt {
			out[name] = data
			links = append(links, fmt.Sprintf("- [%s](%s): %d sources", text(j), dest(name), len(g)))
			continue
		}
		// A jurisdiction too large for one file gets parts of about
		// SplitAt each: coverage/<j>.md, coverage/<j>-2.md, …
		per := max(1, len(g)*SplitAt/len(data))
		parts := (len(g) + per - 1) / per
		var partLinks []string
		for k := range parts {
			chunk := g[k*per : min(len(g), (k+1)*per)]
			pname := name
			if k > 0 {
				pname = fmt.Sprintf("%s/%s-%d.md", SplitDir, fileName(j), k+1)
			}
			out[pname] = (&Report{Sources: chunk}).markdown(fmt.Sprintf("# Coverage: %s, part %d of %d", text(j), k+1, parts), -1, nil)
			partLinks = append(partLinks, fmt.Sprintf("[part %d](%s)", k+1, dest(pname)))
		}
		links = append(links, fmt.Sprintf("- %s: %d sources in %s", text(j), len(g), strings.Join(partLinks, ", ")))
	}
	out["coverage.md"] = r.markdown("# Coverage", shownWhenSplit, links)
	return out
}

// fileName makes a jurisdiction code safe as a file name.
func fileName(j string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(j) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// markdown renders the report under title. limit < 0 shows every source;
// otherwise each list shows at most limit, and the per-source tables are
// replaced by links (one line per jurisdiction's file).
func (r *Report) markdown(title string, limit int, links []string) []byte {
	// Markdown may be given a Report that Build did not sort (Load reads
	// whatever the file holds); grouping needs the order. What follows
	// only reads es.
	es := sorted(r.Sources)
	groups := byJurisdiction(es)

	sum := summarize(groups)
	statuses := sum.Statuses

	blocks := []string{title, totalLine(len(es), sum), "## Summary"}
	blocks = append(blocks, summaryTable(sum))
	blocks = append(blocks, "## Gaps and failures")
	blocks = append(blocks, gaps(es, statuses, limit)...)
	blocks = append(blocks, noisy(es, limit)...)
	blocks = append(blocks, "## Sources")
	switch {
	case limit >= 0:
		blocks = append(blocks, "The report is split by jurisdiction to stay readable on GitHub; each file has the jurisdiction's gaps, failures and every source:", strings.Join(links, "\n"))
	case len(groups) == 0:
		blocks = append(blocks, "None.")
	}
	for _, g := range groups {
		if limit >= 0 {
			break
		}
		blocks = append(blocks, "### "+text(g[0].Jurisdiction), sourceTable(g))
	}
	n := len("\n")
	for _, b := range blocks {
		n += len(b) + len("\n\n")
	}
	out := make([]byte, 0, n)
	for i, b := range blocks {
		if i > 0 {
			out = append(out, "\n\n"...)
		}
		out = append(out, b...)
	}
	return append(out, '\n')
}

// sorted is es in report order: es itself when it is in that order
// already (as Build makes it), else a sorted copy.
func sorted(es []Entry) []Entry {
	if slices.IsSortedFunc(es, compareEntry) {
		return es
	}
	es = slices.Clone(es)
	slices.SortStableFunc(es, compareEntry)
	return es
}

// byJurisdiction cuts sorted into its jurisdictions' runs; each shares
// sorted's array, capped so that an append cannot write into the next.
func byJurisdiction(sorted []Entry) [][]Entry {
	var groups [][]Entry
	start := 0
	for i := range sorted {
		if i > 0 && sorted[i].Jurisdiction != sorted[i-1].Jurisdiction {
			groups = append(groups, sorted[start:i:i])
			start = i
		}
	}
	if len(sorted) > 0 {
		groups = append(groups, sorted[start:len(sorted):len(sorted)])
	}
	return groups
}

// Summary is what every summary of the report counts: the statuses
// present, in report order, and per jurisdiction (in order) the sources
// of each status and in all.
type Summary struct {
	Statuses      []state.Status
	Jurisdictions []JurisdictionCount
}

// JurisdictionCount is one jurisdiction's row of a Summary: Counts[i] is
// the number of its sources whose status is Summary.Statuses[i].
type JurisdictionCount struct {
	Name   string
	Counts []int
	Total  int
}

// Summary counts the report's sources by jurisdiction and status.
func (r *Report) Summary() Summary {
	return summarize(byJurisdiction(sorted(r.Sources)))
}

func summarize(groups [][]Entry) Summary {
	var sum Summary
	seen := map[state.Status]bool{}
	for _, g := range groups {
		for _, e := range g {
			if !seen[e.Status] {
				seen[e.Status] = true
				sum.Statuses = append(sum.Statuses, e.Status)
			}
		}
	}
	slices.SortFunc(sum.Statuses, compareStatus)
	for _, g := range groups {
		row := JurisdictionCount{Name: g[0].Jurisdiction, Counts: make([]int, len(sum.Statuses)), Total: len(g)}
		for _, e := range g {
			row.Counts[slices.Index(sum.Statuses, e.Status)]++
		}
		sum.Jurisdictions = append(sum.Jurisdictions, row)
	}
	return sum
}

func totalLine(n int, sum Summary) string {
	if n == 0 {
		return "0 sources."
	}
	var parts []string
	for i, s := range sum.Statuses {
		c := 0
		for _, j := range sum.Jurisdictions {
			c += j.Counts[i]
		}
		parts = append(parts, fmt.Sprintf("%d %s", c, s))
	}
	noun := "sources"
	if n == 1 {
		noun = "source"
	}
	return fmt.Sprintf("%d %s: %s.", n, noun, strings.Join(parts, ", "))
}

func summaryTable(sum Summary) string {
	if len(sum.Jurisdictions) == 0 {
		return "None."
	}
	head := []string{"jurisdiction"}
	align := []string{"---"}
	for _, s := range sum.Statuses {
		head = append(head, string(s))
		align = append(align, "---:")
	}
	head = append(head, "total")
	align = append(align, "---:")
	rows := []string{row(head), row(align)}
	for _, j := range sum.Jurisdictions {
		cells := []string{text(j.Name)}
		for _, n := range j.Counts {
			cells = append(cells, strconv.Itoa(n))
		}
		cells = append(cells, strconv.Itoa(j.Total))
		rows = append(rows, row(cells))
	}
	return strings.Join(rows, "\n")
}

// gaps returns the blocks of the "Gaps and failures" section.
func gaps(es []Entry, statuses []state.Status, limit int) []string {
	var blocks []string
	for _, s := range statuses {
		if s == state.Fresh || s == state.Pending {
			continue
		}
		blocks = append(blocks, "### "+text(string(s)))
		if m := meaning[s]; m != "" {
			blocks = append(blocks, m)
		}
		if s == state.Unreachable {
			blocks = append(blocks, byHost(es, s, limit))
			continue
		}
		blocks = append(blocks, list(limit, es, func(e Entry) bool { return e.Status == s }, item))
	}

	// A home or sign-in page is never an address to point the manifest at.
	redirected := func(e Entry) bool { return e.FinalURL != "" && e.FinalURL != e.URL && !landsAstray(e) }
	if slices.ContainsFunc(es, redirected) {
		blocks = append(blocks, "### Moved or redirected", list(limit, es, redirected, func(e Entry) string {
			// The target is the server's word, shown, never linked.
			return fmt.Sprintf("- %s: redirected from %s; update the manifest to %s.", label(e), link(e.URL, e.URL), markdown.Code(e.FinalURL))
		}))
	}

	declared := func(e Entry) bool { return len(e.Gaps) > 0 }
	if slices.ContainsFunc(es, declared) {
		blocks = append(blocks, "### Declared encoding gaps", list(limit, es, declared, func(e Entry) string {
			lines := []string{"- " + label(e) + ":"}
			for _, g := range e.Gaps {
				lines = append(lines, "  - "+text(g))
			}
			return strings.Join(lines, "\n")
		}))
	}

	// A fresh source can still carry a detail, a robots_override above
	// all: that exception must be public, and the sources table has
	// no column for it.
	noted := func(e Entry) bool {
		return (e.Status == state.Fresh || e.Status == state.Pending) && e.Detail != ""
	}
	if slices.ContainsFunc(es, noted) {
		blocks = append(blocks, "### Notes", "Fresh or pending sources that carry a remark, such as a `robots_override` and its permission.", list(limit, es, noted, item))
	}

	if len(blocks) == 0 {
		return []string{"None."}
	}
	return blocks
}

// byHost lists the sources in status s one line per host and detail: what
// is wrong with a host is said once, then which sources it holds back.
func byHost(es []Entry, s state.Status, limit int) string {
	type key struct{ host, detail string }
	var order []key
	ids := map[key][]string{}
	for _, e := range es {
		if e.Status != s {
			continue
		}
		k := key{host: hostOf(e.URL), detail: e.Detail}
		if ids[k] == nil {
			order = append(order, k)
		}
		ids[k] = append(ids[k], label(e))
	}
	var lines []string
	for _, k := range order {
		line := "- " + markdown.Code(k.host)
		if k.detail != "" {
			line += ": " + text(k.detail)
		}
		shown := ids[k]
		if limit >= 0 && len(shown) > limit {
			shown = append(shown[:limit:limit], fmt.Sprintf("… and %d more (see %s/)", len(ids[k])-limit, SplitDir))
		}
		lines = append(lines, line+" — "+strings.Join(shown, ", "))
	}
	if limit >= 0 && len(lines) > limit {
		lines = append(lines[:limit:limit], fmt.Sprintf("- … and %d more hosts: see the jurisdictions' files under %s/", len(lines)-limit, SplitDir))
	}
	return strings.Join(lines, "\n")
}

// hostOf is the authority of a source URL, or the URL itself when it has
// none.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

func list(limit int, es []Entry, keep func(Entry) bool, render func(Entry) string) string {
	var lines []string
	n := 0
	for _, e := range es {
		if keep(e) {
			if limit < 0 || n < limit {
				lines = append(lines, render(e))
			}
			n++
		}
	}
	if limit >= 0 && n > limit {
		lines = append(lines, fmt.Sprintf("- … and %d more: see the jurisdictions' files under %s/", n-limit, SplitDir))
	}
	return strings.Join(lines, "\n")
}

// item is a source's line under its status: what happened, and which
// rules are exposed by it.
func item(e Entry) string {
	s := "- " + label(e)
	if e.Detail != "" {
		s += ": " + text(e.Detail)
	}
	if len(e.Encodes) > 0 {
		s += " (encodes " + text(strings.Join(e.Encodes, ", ")) + ")"
	}
	return s
}

// label names a source as a link to its URL.
func label(e Entry) string {
	id := markdown.Code(e.ID)
	if markdown.Linkable(e.URL) {
		id = "[" + id + "](" + dest(e.URL) + ")"
	}
	return id + " (" + text(e.Jurisdiction) + ")"
}

func sourceTable(g []Entry) string {
	var b strings.Builder
	b.Grow(len(g) * 200) // about a row's length: one growth at most
	b.WriteString(row([]string{"id", "kind", "status", "since", "sha256", "size", "title"}))
	b.WriteByte('\n')
	b.WriteString(row([]string{"---", "---", "---", "---", "---", "---:", "---"}))
	for _, e := range g {
		sha, size := "", ""
		if e.SHA256 != "" {
			sha = markdown.CellCode(e.SHA256[:min(12, len(e.SHA256))])
			size = strconv.FormatInt(e.Size, 10)
		}
		title := e.Title
		if title == "" {
			title = e.URL
		}
		b.WriteByte('\n')
		writeRow(&b, markdown.CellCode(e.ID), text(e.Kind), text(string(e.Status)), text(e.Since), sha, size, link(title, e.URL)+usageNote(e))
	}
	return b.String()
}

// usageNote is what the publisher said about the use of the held bytes,
// after the title: "" when nothing was said.
func usageNote(e Entry) string {
	if e.Usage == nil {
		return ""
	}
	return " · " + text("usage preferences: "+e.Usage.String())
}

// writeRow writes row(cells) to b.
func writeRow(b *strings.Builder, cells ...string) {
	b.WriteString("| ")
	for i, c := range cells {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(c)
	}
	b.WriteString(" |")
}

func row(cells []string) string {
	return "| " + strings.Join(cells, " | ") + " |"
}

// The Markdown of untrusted text is internal/escape/markdown's.
var (
	link = markdown.Link
	text = markdown.Text
	dest = markdown.Dest
)

// noisy returns the "Noisy sources" section, or nothing when no source
// blinks (so a report without any keeps its shape).
func noisy(es []Entry, limit int) []string {
	blinks := func(e Entry) bool { return e.Noisy != nil }
	if !slices.ContainsFunc(es, blinks) {
		return nil
	}
	return []string{"## Noisy sources",
		fmt.Sprintf("These pages brought new bytes at each of their last %d fetches while their text stayed the same (a token, a build id, a time stamp): such fetches are recorded, but the held bytes stay the citation and nothing is stored. Declaring a `view` in the manifest entry says what to look past, so that a change hidden in the noise is still seen.", blinkFetches),
		list(limit, es, blinks, func(e Entry) string {
			v := viewYAML(e.Noisy)
			s := "- " + label(e) + ": blinking since " + text(e.Noisy.Since) + "; suggested: `" + v + "`"
			if v == "" {
				s = "- " + label(e) + ": blinking since " + text(e.Noisy.Since) + "; the default view already reads every fetch alike (what changes is in scripts, comments, hidden inputs or `<meta>`), so no view is needed"
			} else if !e.Noisy.Matched {
				s += " (a start: it does not make every fetch seen read alike; finish it by hand)"
			}
			return s
		})}
}

// blinkFetches is how many fetches in a row make a source noisy.
const blinkFetches = textview.BlinkFetches

// viewYAML writes a suggested view as its manifest line.
func viewYAML(n *Noisy) string {
	quote := func(xs []string) string {
		q := make([]string, len(xs))
		for i, x := range xs {
			q[i] = strconv.Quote(x)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	var parts []string
	if len(n.Drop) > 0 {
		parts = append(parts, "drop: "+quote(n.Drop))
	}
	if len(n.Ignore) > 0 {
		parts = append(parts, "ignore: "+quote(n.Ignore))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.ReplaceAll("view: {"+strings.Join(parts, ", ")+"}", "`", "")
}

// landsAstray reports whether e's final URL is the site's home page or a
// sign-in page rather than a document.
func landsAstray(e Entry) bool {
	from, err1 := url.Parse(e.URL)
	to, err2 := url.Parse(e.FinalURL)
	return err1 == nil && err2 == nil && !answer.Redirect(from, to).IsDocument()
}
