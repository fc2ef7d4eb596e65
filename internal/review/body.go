package review

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// MaxBody is GitHub's limit on a pull request body, in characters (the
// client's github.MaxBody). Body keeps to it counting bytes, which are
// never fewer than characters.
const MaxBody = 65536

// PendingShown is how many pending ids Body lists before "… and N more".
const PendingShown = 20

// moreNote ends a section whose per-item lines were left out.
const moreNote = "see reports/coverage.md"

// Summary is what Body needs to know about the new report beyond the
// diff: how many sources it has and which are still pending.
type Summary struct {
	Sources int      // sources in the new report
	Fresh   int      // of which fresh
	Pending []string // ids still pending, in report order
	// Failing are the entries in a failure status (gone included), in
	// report order: a lasting failure is shown though it is no change.
	Failing []report.Entry
}

// SummaryOf counts r for Body.
func SummaryOf(r *report.Report) Summary {
	var s Summary
	if r == nil {
		return s
	}
	s.Sources = len(r.Sources)
	for _, e := range r.Sources {
		switch e.Status {
		case state.Fresh:
			s.Fresh++
		case state.Pending, "":
			s.Pending = append(s.Pending, e.ID)
		}
		if e.Status.Failure() {
			s.Failing = append(s.Failing, e)
		}
	}
	return s
}

// A category is one section of the body, one row of its counts table and
// one phrase of the title. Every Change falls into exactly one.
type category struct {
	heading   string // section heading and table row
	one, many string // title phrase after the count
	item      func(report.Change, func(string) string) string
}

const (
	catChanged = iota
	catFailure
	catRecovered
	catFirst
	catGap
	catNew
	catRemoved
	catOther
	numCategories
)

var categories = [numCategories]category{
	catChanged:   {"Documents that changed", "document changed", "documents changed", changedItem},
	catFailure:   {"New failures", "new failure", "new failures", statusItem},
	catRecovered: {"Recoveries", "recovery", "recoveries", recoveredItem},
	catFirst:     {"Fetched for the first time", "first fetched", "first fetched", firstItem},
	catGap:       {"New gaps", "new gap", "new gaps", statusItem},
	catNew:       {"New sources", "new source", "new sources", newItem},
	catRemoved:   {"Removed sources", "source removed", "sources removed", removedItem},
	catOther:     {"Other changes", "other change", "other changes", otherItem},
}

// categoryOf files a change; "gone" is always a failure. A first success of a pending source is
// report.KindRecovered to Diff, but nothing had failed: reviewers read it
// apart from real recoveries. Kinds this version does not know go to
// "Other changes" rather than vanish.
func categoryOf(c report.Change) int {
	if c.New.Status == state.Gone && c.Kind != report.KindRemovedSource && c.Old.Status != state.Gone {
		return catFailure
	}
	switch c.Kind {
	case report.KindChanged:
		return catChanged
	case report.KindNewFailure:
		return catFailure
	case report.KindRecovered:
		if c.Old.Status == state.Pending || c.Old.Status == "" {
			return catFirst
		}
		return catRecovered
	case report.KindNewGap:
		return catGap
	case report.KindNewSource:
		return catNew
	case report.KindRemovedSource:
		return catRemoved
	}
	return catOther
}

func countOf(changes []report.Change) [numCategories]int {
	var n [numCategories]int
	for _, c := range changes {
		n[categoryOf(c)]++
	}
	return n
}

// Title is the pull request's title: what changed, most important first,
// e.g. "TaxKernelBot: 3 documents changed, 1 new failure".
func Title(changes []report.Change) string {
	n := countOf(changes)
	var parts []string
	for i, cat := range categories {
		switch {
		case n[i] == 1:
			parts = append(parts, "1 "+cat.one)
		case n[i] > 1:
			parts = append(parts, strconv.Itoa(n[i])+" "+cat.many)
		}
	}
	if len(parts) == 0 {
		return "TaxKernelBot: no coverage change"
	}
	return "TaxKernelBot: " + strings.Join(parts, ", ")
}

// section is one heading of the body with its per-item lines; total may
// exceed len(items) when the list was shortened before rendering.
type section struct {
	heading string
	intro   string
	items   []string
	total   int
	more    string // where the left-out items are; moreNote if empty
}

// Details are what a body shows beyond the reports' diff. Every field may
// be left zero.
type Details struct {
	// Texts holds, by source id, the text diff of each changed document
	// whose two texts could be compared.
	Texts map[string]TextChange
	// FailedChecks holds, by source id, the failed checks in a row of a
	// failing source (state's count).
	FailedChecks map[string]int
	// Editions are the next editions held pages link to (edition.Find),
	// each proposed as a manifest entry beside its listed source.
	Editions []edition.Proposal
	// Files is how many files the pull request changes, 0 when unknown:
	// past what GitHub's diff view shows, the body sends the reader to
	// the report on the branch.
	Files int
}

// DiffViewFiles is how many files GitHub's pull request diff view shows.
const DiffViewFiles = 300

// TextChange is what a changed document says differently: the diff of its
// normalised texts (old → new) and where both texts are on the branch.
type TextChange struct {
	Diff textview.TextDiff
	// Where the texts are on the branch, slash-separated: the new one at
	// its source's path (snapshots/text/v3/<id>.txt), the old one only when
	// it is at a path of its own ("" when it is that file's earlier
	// version, in main).
	OldPath, NewPath string
	// Why says, when the texts did not differ (only the bytes did, or
	// the source has no text to compare by), why not: Diff is then empty.
	Why string
	// Provisions says, for legislation, which provisions changed ("s.
	// 113 amended; s. 662 repealed"); the body shows it before the diff.
	Provisions string
}

// Body renders the pull request body: a title line, a counts table, then
// one section per kind of change (documents that changed, new failures,
// lasting failures, recoveries, first fetches, new gaps, new sources,
// removed sources, other changes) and the pending sources. A changed
// document shows its old and new blobs (links.Blob), its text diff and
// texts (d.Texts, links.File), the rules it encodes and its gaps, those
// encoding rules first; a failing source, how long it has failed
// (d.FailedChecks). links.Run, when set, links the workflow run.
//
// The output depends only on the arguments (changes are sorted by
// jurisdiction and id here) and never exceeds MaxBody: past it, per-item
// lines are left out of the longest sections first, each shortened
// section saying how many, and no line is ever cut.
func Body(changes []report.Change, counts Summary, links Links, d Details) string {
	fileURL, blobURL, runURL := links.File, links.Blob, links.Run
	if fileURL == nil {
		fileURL = func(string) string { return "" }
	}
	if blobURL == nil {
		blobURL = func(string) string { return "" }
	}
	sorted := slices.Clone(changes)
	slices.SortStableFunc(sorted, func(a, b report.Change) int {
		if c := strings.Compare(a.Jurisdiction, b.Jurisdiction); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})

	// A changed document that encodes rules is what a reviewer must see
	// first.
	slices.SortStableFunc(sorted, func(a, b report.Change) int {
		ea := categoryOf(a) == catChanged && len(a.New.Encodes) > 0
		eb := categoryOf(b) == catChanged && len(b.New.Encodes) > 0
		switch {
		case ea && !eb:
			return -1
		case eb && !ea:
			return 1
		}
		return 0
	})

	var secs [numCategories]section
	for i, cat := range categories {
		secs[i].heading = cat.heading
	}
	secs[catChanged].intro = "Old → new sha256 (first 12 hex digits), each linked to its stored blob."
	if len(d.Texts) > 0 {
		secs[catChanged].intro = "What each document says differently: a diff of its text (only changed lines, with 2 lines around), old → new sha256 (first 12 hex digits) each linked to its stored blob, the rules it encodes and its known gaps."
	}
	secs[catRemoved].more = "see the diff of reports/coverage.json"
	inChanges := map[string]bool{}
	for _, c := range sorted {
		i := categoryOf(c)
		item := categories[i].item(c, blobURL)
		switch i {
		case catChanged:
			item += changedDetail(c, d, fileURL)
		case catFailure:
			item += failingFor(c.New, d)
		}
		secs[i].items = append(secs[i].items, "- "+item)
		secs[i].total++
		inChanges[c.ID] = true
	}
	all := secs[:]
	lasting := section{heading: "Still failing", intro: "Failing before this run too; the held bytes, if any, are older."}
	for _, e := range counts.Failing {
		if inChanges[e.ID] {
			continue
		}
		c := report.Change{ID: e.ID, Jurisdiction: e.Jurisdiction, Old: e, New: e}
		lasting.items = append(lasting.items, "- "+who(c)+": **"+string(e.Status)+"**"+why(e)+failingFor(e, d))
		lasting.total++
	}
	// New failures come right after the changed documents; lasting ones
	// after the other changes.
	all = append(all[:catFailure+1:catFailure+1], append([]section{lasting}, all[catFailure+1:]...)...)
	if len(d.Editions) > 0 {
		all = append(all, editionsSection(d.Editions, blobURL))
	}
	if len(counts.Pending) > 0 {
		p := section{heading: "Still pending", intro: "Never checked yet; they are fetched as their hosts' caps and windows allow.", total: len(counts.Pending)}
		for _, id := range counts.Pending[:min(len(counts.Pending), PendingShown)] {
			p.items = append(p.items, "- "+code(id))
		}
		all = append(all, p)
	}

	head := header(sorted, counts, lasting.total, runURL)
	if n := mismatched(sorted); n > 0 {
		what := plural(n, "source", "sources") + " fetched for the first time do not look like what their entries promised"
		if n == 1 {
			what = "1 source fetched for the first time does not look like what its entry promised"
		}
		head += "\n> [!WARNING]\n> " + what + " (a landing page where a file was listed, an index where a table was, another year's edition): each is flagged below. Fix the address in the manifest, or keep it if it is right.\n"
	}
	if d.Files > DiffViewFiles {
		report := "`reports/coverage.md`"
		if u := fileURL("reports/coverage.md"); u != "" {
			report = "[`reports/coverage.md`](" + dest(u) + ")"
		}
		head += fmt.Sprintf("\n> [!NOTE]\n> This pull request changes %d files; GitHub's diff view shows %d of them. Read what changed here and in %s on the branch, not in the diff.\n",
			d.Files, DiffViewFiles, report)
	}
	out := render(head, all, -1)
	if len(out) <= MaxBody {
		return out
	}
	// Find the largest per-section item count that fits: sections longer
	// than it lose their tail, so the longest lose lines first.
	lo, hi := 0, 0
	for _, s := range all {
		hi = max(hi, len(s.items))
	}
	if out = render(head, all, 0); len(out) > MaxBody {
		return hardCut(out)
	}
	for hi-lo > 1 { // render(lo) fits, render(hi) does not
		mid := lo + (hi-lo)/2
		if len(render(head, all, mid)) <= MaxBody {
			lo = mid
		} else {
			hi = mid
		}
	}
	return render(head, all, lo)
}

// header is the body's first lines and its table: a row per kind of
// change, the sources still failing from before (listed below it too)
// and the pending ones.
func header(changes []report.Change, counts Summary, stillFailing int, runURL string) string {
	var b strings.Builder
	b.WriteString("## TaxKernelBot coverage update\n\n")
	fmt.Fprintf(&b, "%s against the base branch", plural(len(changes), "source differs", "sources differ"))
	if counts.Sources > 0 {
		fmt.Fprintf(&b, " (%d sources in all, %d fresh)", counts.Sources, counts.Fresh)
	}
	b.WriteString(".")
	if runURL != "" {
		fmt.Fprintf(&b, " Fetched by [this workflow run](%s).", dest(runURL))
	}
	b.WriteString(" The full report is `reports/coverage.md` on this branch.\n\n")
	b.WriteString("| Change | Sources |\n| --- | ---: |\n")
	n := countOf(changes)
	for i, cat := range categories {
		if n[i] > 0 { // a row of zeros is noise for a reviewer
			fmt.Fprintf(&b, "| %s | %d |\n", cat.heading, n[i])
		}
		if i == catFailure && stillFailing > 0 { // in the order of the sections
			fmt.Fprintf(&b, "| Still failing | %d |\n", stillFailing)
		}
	}
	fmt.Fprintf(&b, "| Still pending (in all) | %d |\n", len(counts.Pending))
	return b.String()
}

// render joins head and the non-empty sections, each showing at most
// limit items (limit < 0: all) and saying how many it left out.
func render(head string, secs []section, limit int) string {
	var b strings.Builder
	b.WriteString(head)
	for _, s := range secs {
		if s.total == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s (%d)\n\n", s.heading, s.total)
		if s.intro != "" {
			b.WriteString(s.intro + "\n\n")
		}
		shown := s.items
		if limit >= 0 && len(shown) > limit {
			shown = shown[:limit]
		}
		for _, it := range shown {
			b.WriteString(it + "\n")
		}
		if left := s.total - len(shown); left > 0 {
			fmt.Fprintf(&b, "- … and %d more (%s)\n", left, cmp.Or(s.more, moreNote))
		}
	}
	return b.String()
}

// hardCut is the last resort, for a body whose fixed parts alone are too
// long (they never should be): it ends at the last whole line that fits.
func hardCut(s string) string {
	const note = "\n… body shortened to GitHub's limit (" + moreNote + ")\n"
	cut := s[:MaxBody-len(note)]
	if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i]
	}
	return cut + note
}

// Per-item lines.

func who(c report.Change) string {
	e := c.New
	if c.Kind == report.KindRemovedSource || e.ID == "" {
		e = c.Old
	}
	s := code(c.ID)
	if c.Jurisdiction != "" {
		s += " (" + text(c.Jurisdiction, 40) + ")"
	}
	if e.Title != "" {
		s += " " + text(e.Title, 120)
	}
	return s
}

func changedItem(c report.Change, blob func(string) string) string {
	s := who(c) + ": " + hash(c.Old.SHA256, blob) + " → " + hash(c.New.SHA256, blob)
	if c.Old.Size != 0 || c.New.Size != 0 {
		s += " (" + size(c.Old.Size) + " → " + size(c.New.Size) + ")"
	}
	return s
}

// changedDetail is what follows a changed document's line: the rules it
// encodes, its gaps, links to the live page and the two texts, and the
// text diff, indented so that it stays inside the list item.
func changedDetail(c report.Change, d Details, fileURL func(string) string) string {
	var parts []string
	if len(c.New.Encodes) > 0 {
		enc := make([]string, len(c.New.Encodes))
		for i, e := range c.New.Encodes {
			enc[i] = code(clip(e, 80))
		}
		parts = append(parts, "encodes "+strings.Join(enc, ", "))
	}
	if len(c.New.Gaps) > 0 {
		gaps := make([]string, len(c.New.Gaps))
		for i, g := range c.New.Gaps {
			gaps[i] = text(g, 120)
		}
		parts = append(parts, "gaps: "+strings.Join(gaps, "; "))
	}
	if c.New.URL != "" {
		parts = append(parts, markdown.Link("live page", c.New.URL))
	}
	tc, ok := d.Texts[c.ID]
	if ok {
		switch o, n := fileURL(tc.OldPath), fileURL(tc.NewPath); {
		case o != "" && n != "":
			parts = append(parts, "full text: [old]("+dest(o)+") → [new]("+dest(n)+")")
		case n != "":
			parts = append(parts, "full text: [new]("+dest(n)+")")
		}
	}
	s := ""
	if len(parts) > 0 {
		s = "\n  " + strings.Join(parts, " · ")
	}
	if ok && tc.Provisions != "" {
		s += "\n  Provisions: " + text(tc.Provisions, 2000)
	}
	switch {
	case ok && tc.Diff.Markdown != "":
		s += "\n\n" + indent(tc.Diff.Markdown, "  ")
	case ok && tc.Why != "":
		s += "\n  " + text(tc.Why, 300)
	}
	return s
}

// editionsSection lists the new editions: for each, the listed address
// and the new one, the held page and line that name it, and the manifest
// entry proposed for it.
func editionsSection(ps []edition.Proposal, blob func(string) string) section {
	s := section{
		heading: "New editions",
		intro: "A held page links to the next edition of a source whose address names its year or edition. " +
			"Each is proposed as a source of its own, beside the listed one (which keeps its year's figures), " +
			"in `manifests/`: nothing is fetched from a new address before a person merges it.",
		total: len(ps),
	}
	for _, p := range ps {
		item := "- " + code(p.Source.ID) + " (" + text(p.Source.Jurisdiction, 40) + ") " + text(p.Source.Title, 120) +
			": " + link(p.Source.URL) + " → " + link(p.URL) +
			"\n  read on the held copy of " + code(p.Evidence.Source) + " " + hash(p.Evidence.SHA256, blob) +
			" (held since " + text(p.Evidence.Date, 20) + "), line " + strconv.Itoa(p.Evidence.Line) + ": " + text(p.Evidence.Text, 200) +
			"\n\n" + indent(markdown.Fence("yaml", edition.Entry(p)), "  ")
		s.items = append(s.items, item)
	}
	return s
}

// indent prefixes every non-empty line of s, without a final newline.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// failingFor says since when a failing source fails and how many checks
// in a row, as far as the state knows.
func failingFor(e report.Entry, d Details) string {
	if e.Since == "" || !e.Status.Failure() {
		return ""
	}
	s := "; failing since " + text(e.Since, 20)
	if n := d.FailedChecks[e.ID]; n > 0 {
		s += ", " + plural(n, "check", "checks")
	}
	return s
}

// statusItem serves new failures and new gaps: what the source became and
// why, as the fetcher recorded it.
func statusItem(c report.Change, _ func(string) string) string {
	return who(c) + ": " + transition(c.Old, c.New) + why(c.New)
}

func recoveredItem(c report.Change, blob func(string) string) string {
	s := who(c) + ": " + transition(c.Old, c.New) + ", "
	switch {
	case c.Old.SHA256 == "":
		s += hash(c.New.SHA256, blob)
	case c.Old.SHA256 == c.New.SHA256:
		s += "same bytes " + hash(c.New.SHA256, blob)
	default:
		s += hash(c.Old.SHA256, blob) + " → " + hash(c.New.SHA256, blob)
	}
	return s
}

func firstItem(c report.Change, blob func(string) string) string {
	return who(c) + ": " + hash(c.New.SHA256, blob) + typeAndSize(c.New) + audited(c.New)
}

func newItem(c report.Change, blob func(string) string) string {
	s := who(c) + ": " + link(c.New.URL) + ", " + string(c.New.Status)
	if c.New.SHA256 != "" {
		s += " " + hash(c.New.SHA256, blob) + typeAndSize(c.New)
	}
	return s + why(c.New) + audited(c.New)
}

// mismatched counts the changes whose first fetch found a mismatch.
func mismatched(changes []report.Change) int {
	n := 0
	for _, c := range changes {
		if i := categoryOf(c); (i == catFirst || i == catNew) && c.New.Audit != nil && len(c.New.Audit.Mismatches) > 0 {
			n++
		}
	}
	return n
}

// audited is what a first fetch found (report.Entry.Audit): what the
// bytes are and call themselves, where they came from, and each way they
// disagree with what the entry promised, flagged for the reviewer. The
// title and the addresses are the server's: inert text.
func audited(e report.Entry) string {
	a := e.Audit
	if a == nil {
		return ""
	}
	s := "; found " + text(a.Form, 60)
	if a.Title != "" {
		s += " titled “" + text(a.Title, 200) + "”"
	}
	if a.FinalURL != "" {
		s += ", served from " + link(a.FinalURL)
	}
	for _, m := range a.Mismatches {
		s += "\n  - :warning: **Check the address:** " + text(m, 400)
	}
	return s
}

func removedItem(c report.Change, _ func(string) string) string {
	return who(c) + ": no longer in a manifest (was " + string(c.Old.Status) + ")"
}

// otherItem describes a status change between two failures, a change of
// URL, or a change of any other field (detail, title, gaps…).
func otherItem(c report.Change, _ func(string) string) string {
	o, n := c.Old, c.New
	s := who(c) + ": "
	switch {
	case o.Status != n.Status:
		return s + transition(o, n) + why(n)
	case o.URL != n.URL:
		return s + "URL " + link(o.URL) + " → " + link(n.URL)
	case o.FinalURL != n.FinalURL && n.FinalURL == "":
		return s + "no longer redirected"
	case o.FinalURL != n.FinalURL:
		// The target is the server's word, shown, never linked.
		return s + "now served from " + code(clip(n.FinalURL, 200)) + ": consider updating the manifest's URL"
	}
	var fields []string
	add := func(name string, differ bool) {
		if differ {
			fields = append(fields, name)
		}
	}
	add("title", o.Title != n.Title)
	add("kind", o.Kind != n.Kind)
	add("HTTP status", o.HTTPStatus != n.HTTPStatus)
	add("sha256", o.SHA256 != n.SHA256)
	add("size", o.Size != n.Size)
	add("content type", o.ContentType != n.ContentType)
	add("encodes", !slices.Equal(o.Encodes, n.Encodes))
	add("gaps", !slices.Equal(o.Gaps, n.Gaps))
	add("since", o.Since != n.Since)
	fields = append(fields, unnamed(o, n)...)
	var parts []string
	if o.Detail != n.Detail {
		parts = append(parts, "detail "+orNone(code(clip(o.Detail, 150)))+" → "+orNone(code(clip(n.Detail, 150))))
	}
	if len(fields) > 0 {
		parts = append(parts, "changed "+strings.Join(fields, ", "))
	}
	if nz := noisyChange(o.Noisy, n.Noisy); nz != "" {
		parts = append(parts, nz)
	}
	if len(parts) == 0 {
		return s + "changed (" + text(c.Kind, 40) + ")"
	}
	return s + strings.Join(parts, "; ")
}

// noisyChange says how a source's blinking changed, "" if it did not.
func noisyChange(o, n *report.Noisy) string {
	const see = "see Noisy sources in reports/coverage.md"
	switch {
	case o == nil && n == nil:
		return ""
	case o == nil:
		return "became noisy since " + text(n.Since, 20) + ": new bytes at each fetch, the same text (" + see + ")"
	case n == nil:
		return "no longer noisy"
	case o.Since != n.Since:
		return "noisy again since " + text(n.Since, 20) + " (" + see + ")"
	case !reflect.DeepEqual(o, n):
		return "another view suggested for its noise (" + see + ")"
	}
	return ""
}

// named are the fields of an entry, by their names in the report file,
// that otherItem has words for.
var named = map[string]bool{
	"id": true, "url": true, "final_url": true, "status": true, "title": true, "kind": true, "http_status": true,
	"sha256": true, "size": true, "content_type": true, "encodes": true, "gaps": true, "since": true, "detail": true, "noisy": true,
}

// unnamed lists, by their names in the report file and sorted, the fields
// of o and n that differ and that otherItem has no words for, so that a
// field added to the report is never shown as a bare "changed".
func unnamed(o, n report.Entry) []string {
	fields := func(e report.Entry) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if b, err := json.Marshal(e); err == nil {
			_ = json.Unmarshal(b, &m) // an Entry always encodes as an object
		}
		return m
	}
	a, b := fields(o), fields(n)
	var out []string
	for k := range a {
		if _, ok := b[k]; !ok {
			b[k] = nil
		}
	}
	for k, v := range b {
		if !named[k] && !bytes.Equal(a[k], v) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func transition(o, n report.Entry) string {
	from := string(o.Status)
	if from == "" {
		from = "none"
	}
	return from + " → **" + string(n.Status) + "**"
}

// why is the HTTP status and detail of e, server text shown as code so
// that nothing in it can render, link or mention anyone.
func why(e report.Entry) string {
	s := ""
	if e.HTTPStatus != 0 {
		s += " (HTTP " + strconv.Itoa(e.HTTPStatus) + ")"
	}
	if e.Detail != "" {
		s += " " + code(clip(e.Detail, 300))
	}
	return s
}

func typeAndSize(e report.Entry) string {
	var parts []string
	if e.ContentType != "" {
		parts = append(parts, text(e.ContentType, 60))
	}
	if e.Size != 0 {
		parts = append(parts, size(e.Size))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Markdown helpers.

// hash shows the first 12 hex digits of a sha256, linked when it can be.
func hash(sum string, blob func(string) string) string {
	if sum == "" {
		return "none"
	}
	short := code(clip(sum, 20)) // not a hash: shown, harmless, as it is
	if len(sum) >= 12 && isHex(sum) {
		short = code(sum[:12])
	}
	if u := blob(sum); u != "" {
		return "[" + short + "](" + dest(u) + ")"
	}
	return short
}

func size(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return strconv.FormatInt(n, 10) + " B"
	case n < k*k:
		return strconv.FormatFloat(float64(n)/k, 'f', 1, 64) + " KiB"
	case n < k*k*k:
		return strconv.FormatFloat(float64(n)/(k*k), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(k*k*k), 'f', 1, 64) + " GiB"
}

// link shows a URL as a link whose text is the URL itself, shortened.
func link(u string) string {
	if u == "" {
		return "none"
	}
	return markdown.Link(markdown.Clip(u, 100), u)
}

// The Markdown of untrusted text is internal/escape/markdown's.
var (
	clip = markdown.Clip
	text = markdown.TextN
	code = markdown.Code
	dest = markdown.Dest
)

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
