package refs

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/law"
)

// What a provision's ChangedAfter was read from (HeldBytes.ChangedBy).
const (
	ChangedByProvision = "provision"
	ChangedByDocument  = "document"
)

// Where a reference's date comes from.
const (
	DateFromURL     = "url"      // the URL pins a dated version
	DateFromDateKey = "date-key" // the reference is written under a date
	DateFromGit     = "git"      // the day its line was committed (git blame, author date)
)

// Dater returns, for lines of a file (slash path relative to the scanned
// directory), the UTC date (YYYY-MM-DD) each was written; a line it cannot
// date is left out.
type Dater func(file string, lines []int) (map[int]string, error)

// Row is one reference and what the archive holds of it.
type Row struct {
	Ref
	Match Match `json:"match"`
	// Held is set when the match is one whose text the archive holds
	// (Held(kind)).
	Held *HeldBytes `json:"held,omitempty"`
}

// HeldBytes is what the archive holds of a matched reference's document.
type HeldBytes struct {
	// Status is "held" when bytes are in the index, "listed" when the
	// source is in a manifest but no run has fetched it yet.
	Status    string `json:"status"`
	SHA256    string `json:"sha256,omitempty"`    // the newest held bytes
	Retrieved string `json:"retrieved,omitempty"` // the last check that served them (else when first retrieved)
	// RefDate is the reference's date and RefDateFrom where it comes
	// from (url, date-key or git); "" when none could be found.
	RefDate     string `json:"ref_date,omitempty"`
	RefDateFrom string `json:"ref_date_from,omitempty"`
	// OnRefDate is the sha256 of the bytes held on RefDate ("" when none
	// were held yet: FirstRetrieved says from when).
	OnRefDate      string `json:"on_ref_date,omitempty"`
	FirstRetrieved string `json:"first_retrieved,omitempty"`
	// ChangedAfter is "yes" when the source served other bytes after
	// RefDate (ChangedOn the first date), "no" when not, and "unknown"
	// when there is no RefDate, or when RefDate is before the first bytes
	// held and the archive has seen no change since. A change the archive
	// saw after a reference older than its first bytes is a change after
	// that reference too: "yes", with BeforeFirst set, since what the
	// reference cited may differ from both sides of it.
	ChangedAfter string `json:"changed_after,omitempty"`
	ChangedOn    string `json:"changed_on,omitempty"`
	// BeforeFirst is set when RefDate is before the first bytes held
	// (FirstRetrieved).
	BeforeFirst bool `json:"before_first_retrieved,omitempty"`
	// ChangeFrom and ChangeTo are the two sides of the change on
	// ChangedOn (the sha256 held before it, and the one served from
	// then), and ChangeFromDate the day the earlier bytes were first
	// served (or served again): what cite --at and the change document
	// name.
	ChangeFrom     string `json:"change_from,omitempty"`
	ChangeFromDate string `json:"change_from_date,omitempty"`
	ChangeTo       string `json:"change_to,omitempty"`
	// Provision is the provision the reference cites, when its URL is a
	// provision page of a held whole text (law.ProvisionOfURL, or for a
	// page named by an internal id, the address a change document gives
	// the provision): ChangedAfter then says whether that provision
	// changed after RefDate, read from the change documents' provisions,
	// and ChangedOn, ChangeFrom and ChangeTo name the change that touched
	// it. ProvisionChange says how (amended, added, repealed) and
	// ProvisionAddress is the publisher's page of it, when known.
	Provision        string `json:"provision,omitempty"`
	ProvisionChange  string `json:"provision_change,omitempty"`
	ProvisionAddress string `json:"provision_address,omitempty"`
	// ChangedBy says what ChangedAfter was read from, for a reference to
	// a provision: "provision" when from the provisions the change
	// documents list, "document" when a change after RefDate has no
	// change document that lists provisions (a text not read as law, an
	// older document, none in the record), so that, as for any other
	// reference, any change of the document counts.
	ChangedBy string `json:"changed_by,omitempty"`
	// first is the day the archive first held the document.
	first string
	// Note says in words what is known, and what is not, of the bytes the
	// reference cited.
	Note string `json:"note,omitempty"`
}

// Count is the number of references of one kind of match.
type Count struct {
	Kind       string `json:"kind"`
	References int    `json:"references"`
	URLs       int    `json:"urls"`
}

// Document is one cited document (its URL after Canon) and how often it
// is cited.
type Document struct {
	URL        string `json:"url"`   // as most often written, without fragment
	Title      string `json:"title"` // its most frequent title
	Files      int    `json:"files"` // files citing it
	References int    `json:"references"`
	Match      Match  `json:"match"`
	Held       bool   `json:"held"` // Held(Match.Kind)
}

// Report is what refs says of a checkout.
type Report struct {
	References int `json:"references"`
	// URLs counts distinct cited URLs (after Canon).
	URLs    int        `json:"urls"`
	Files   int        `json:"files"` // files with at least one reference
	Matched []Count    `json:"matched"`
	Top     []Document `json:"top"`
	// TopHeld is how many of Top the archive holds.
	TopHeld  int       `json:"top_held"`
	Rows     []Row     `json:"references_list"`
	Problems []Problem `json:"problems"`
	// Watch says which references the archive can tell of a change.
	Watch Watch `json:"watch"`
}

// Watch counts the references by what the archive can tell of them: those
// it watches (a held document, a date) and those it cannot (the document
// not held or not fetched yet, no date).
type Watch struct {
	// Watched counts the references to a held document that have a
	// date: Changed of them cite a document that changed after it,
	// Unchanged one that has not, Waiting one first held after their date
	// that the archive has not seen change since.
	Watched   int `json:"watched"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
	Waiting   int `json:"waiting"`
	// Since lists, by the day the archive first held them, the watched
	// documents and the references to them, oldest first.
	Since []Since `json:"since"`
	// NoDate counts references to a held document that have no date,
	// Listed those to a document listed but not fetched yet, NotHeld the
	// rest (a document the archive does not hold, or no URL).
	NoDate  int `json:"no_date"`
	Listed  int `json:"listed"`
	NotHeld int `json:"not_held"`
}

// Since is the number of watched documents, and references to them, the
// archive first held on Date.
type Since struct {
	Date       string `json:"date"`
	Documents  int    `json:"documents"`
	References int    `json:"references"`
}

// watch counts rows as Watch says.
func watch(rows []Row) Watch {
	w := Watch{Since: []Since{}}
	docs := map[string]map[string]bool{} // first date → sources
	refs := map[string]int{}
	for _, r := range rows {
		h := r.Held
		switch {
		case h == nil:
			w.NotHeld++
			continue
		case h.Status != "held":
			w.Listed++
			continue
		case h.RefDate == "":
			w.NoDate++
			continue
		}
		w.Watched++
		switch {
		case h.ChangedAfter == "yes":
			w.Changed++
		case h.ChangedAfter == "no":
			w.Unchanged++
		default:
			w.Waiting++
		}
		first := h.first
		if docs[first] == nil {
			docs[first] = map[string]bool{}
		}
		docs[first][r.Match.Source] = true
		refs[first]++
	}
	for _, d := range slices.Sorted(maps.Keys(docs)) {
		w.Since = append(w.Since, Since{Date: d, Documents: len(docs[d]), References: refs[d]})
	}
	return w
}

// Build matches every reference and summarises. top is how many of the
// most-cited documents to list; dater, when not nil, dates the lines of
// matched references that neither pin a version nor sit under a date.
func Build(refs []Ref, a *Archive, top int, dater Dater) (Report, error) {
	// Lists are empty, never null, in the JSON a script reads.
	r := Report{References: len(refs), Rows: make([]Row, len(refs)), Matched: []Count{}, Problems: []Problem{}}
	byURL := map[string]Match{}
	files := map[string]bool{}
	for i, ref := range refs {
		m, ok := byURL[ref.Href]
		if !ok {
			m = a.Match(ref.Href)
			byURL[ref.Href] = m
		}
		r.Rows[i] = Row{Ref: ref, Match: m}
		files[ref.File] = true
	}
	r.Files = len(files)
	if err := date(r.Rows, a, dater); err != nil {
		return Report{}, err
	}
	counts := map[string]*Count{}
	urls := map[string]map[string]bool{}
	for _, row := range r.Rows {
		c := counts[row.Match.Kind]
		if c == nil {
			c = &Count{Kind: row.Match.Kind}
			counts[row.Match.Kind] = c
			urls[row.Match.Kind] = map[string]bool{}
		}
		c.References++
		if cu, ok := Canon(row.Href); ok {
			urls[row.Match.Kind][cu] = true
		}
	}
	for _, k := range Kinds {
		if c := counts[k]; c != nil {
			c.URLs = len(urls[k])
			r.Matched = append(r.Matched, *c)
		}
	}
	docs := Documents(r.Rows)
	r.URLs = len(docs)
	if len(docs) > top {
		docs = docs[:top]
	}
	r.Top = docs
	for _, d := range docs {
		if d.Held {
			r.TopHeld++
		}
	}
	r.Watch = watch(r.Rows)
	return r, nil
}

// date fills in Held for the rows whose match holds the text.
func date(rows []Row, a *Archive, dater Dater) error {
	need := map[string][]int{} // file → lines to date
	for i := range rows {
		row := &rows[i]
		if !Held(row.Match.Kind) {
			continue
		}
		src := a.sources[row.Match.idx]
		h := &HeldBytes{Status: "listed"}
		if n := len(src.History); n > 0 {
			h.Status, h.SHA256 = "held", src.History[n-1].SHA256
			h.Retrieved = cmp.Or(src.Checked, src.History[n-1].Date)
		}
		c, _ := Canon(row.Href)
		switch d := Describe(c); {
		case d.Date != "":
			h.RefDate, h.RefDateFrom = d.Date, DateFromURL
		case row.DateKey != "":
			h.RefDate, h.RefDateFrom = row.DateKey, DateFromDateKey
		default:
			need[row.File] = append(need[row.File], row.Line)
		}
		row.Held = h
	}
	if dater != nil {
		dates := map[string]map[int]string{}
		for _, f := range slices.Sorted(maps.Keys(need)) {
			lines := slices.Compact(slices.Sorted(slices.Values(need[f])))
			got, err := dater(f, lines)
			if err != nil {
				return err
			}
			dates[f] = got
		}
		for i := range rows {
			if h := rows[i].Held; h != nil && h.RefDateFrom == "" {
				if d := dates[rows[i].File][rows[i].Line]; d != "" {
					h.RefDate, h.RefDateFrom = d, DateFromGit
				}
			}
		}
	}
	for i := range rows {
		h := rows[i].Held
		if h == nil || h.Status != "held" {
			continue
		}
		src := a.sources[rows[i].Match.idx]
		if p, ok := a.provisionOf(rows[i]); ok && h.RefDate != "" {
			onDateOfProvision(h, src, p)
			continue
		}
		onDate(h, src.History)
	}
	return nil
}

// citedProvision is the provision a reference cites: its ID, when its
// URL names it, else the URL (Canon) that a provision's address must
// have.
type citedProvision struct{ id, canon string }

// provisionOf is the provision row cites, when its URL is a provision
// page and its match a held whole text that holds it.
func (a *Archive) provisionOf(row Row) (citedProvision, bool) {
	if !a.docs[row.Match.idx].container {
		return citedProvision{}, false
	}
	if id, ok := law.ProvisionOfURL(Clean(row.Href) + fragment(row.Href)); ok {
		return citedProvision{id: id}, true
	}
	// A part named by an internal id (legislation.govt.nz's DLM… pages):
	// matched by the provision's address.
	c, _ := Canon(row.Href)
	if d := Describe(c); row.Match.Kind == Within && d.Part != "" && d.Part != "contents" {
		return citedProvision{canon: c}, true
	}
	return citedProvision{}, false
}

// fragment is the "#…" of raw, "" for none (Clean drops it; a Justice
// Canada anchor #s-19 names a section).
func fragment(raw string) string {
	if _, f, ok := strings.Cut(strings.TrimSpace(raw), "#"); ok {
		return "#" + f
	}
	return ""
}

// onDateOfProvision is onDate for a reference to provision p of a held
// whole text: of the changes after RefDate, the first whose change
// document lists p is the change after the reference; one whose text
// reads the same changed no provision; one whose document lists no
// provisions (or that the record lacks) is a change of the whole
// document, as for any reference, and says so.
func onDateOfProvision(h *HeldBytes, src Source, p citedProvision) {
	history := src.History
	h.ChangedAfter, h.first = "unknown", history[0].Date
	h.Provision, h.ChangedBy = p.id, ChangedByProvision
	from := heldOnRefDate(h, history)
	others := 0 // changes after RefDate that left the provision as it was
	for j := from + 1; j < len(history); j++ {
		if history[j].SHA256 == history[j-1].SHA256 {
			continue
		}
		var doc changedoc.Doc
		ok := false
		if src.Change != nil {
			doc, ok = src.Change(history[j].Date, history[j-1].SHA256, history[j].SHA256)
		}
		switch {
		case ok && len(doc.Provisions) > 0:
			pc, found := findProvision(doc.Provisions, p)
			if !found {
				others++
				continue
			}
			h.Provision = pc.ID
			h.ProvisionChange, h.ProvisionAddress = pc.Change, pc.Address
		case ok && doc.Text == changedoc.TextSame:
			others++ // only the bytes changed: the text, so each provision, reads the same
			continue
		default:
			h.ChangedBy = ChangedByDocument
		}
		h.ChangedAfter, h.ChangedOn = "yes", history[j].Date
		h.ChangeFrom, h.ChangeFromDate, h.ChangeTo = history[j-1].SHA256, history[j-1].Date, history[j].SHA256
		break
	}
	what := cmpOr(h.Provision, "the provision cited")
	switch {
	case h.ChangedBy == ChangedByDocument:
		h.Note = fmt.Sprintf("the document changed on %s, after your reference of %s; its change document names no provisions (the text is not read as law, or the record's document is older or missing), so the archive cannot tell whether %s changed and reports the change of the whole document", h.ChangedOn, h.RefDate, what)
	case h.ChangedAfter == "yes" && h.BeforeFirst:
		h.Note = fmt.Sprintf("%s %s on %s; the archive holds this document since %s, after your reference of %s, so what you cited may differ from both", what, h.ProvisionChange, h.ChangedOn, h.FirstRetrieved, h.RefDate)
	case h.ChangedAfter == "yes":
		h.Note = fmt.Sprintf("%s %s on %s, after your reference of %s; the archive held the bytes you cited", what, h.ProvisionChange, h.ChangedOn, h.RefDate)
	case h.BeforeFirst:
		h.Note = fmt.Sprintf("the archive holds this document since %s, after your reference of %s, and has seen no change since in %s (%d change(s) of the document left it as it was): it will tell you of the first", h.FirstRetrieved, h.RefDate, what, others)
	case others > 0:
		h.Note = fmt.Sprintf("%s unchanged since your reference of %s: the document changed %d time(s) since, none of them in %s", what, h.RefDate, others, what)
	}
}

// findProvision is the change of p among a change document's provisions:
// by ID, else (a provision page named by an internal id) by address.
func findProvision(changes []changedoc.ProvisionChange, p citedProvision) (changedoc.ProvisionChange, bool) {
	for _, pc := range changes {
		if p.id != "" && law.Covers(pc.ID, p.id) {
			return pc, true
		}
		if p.id == "" && pc.Address != "" {
			if c, _ := Canon(pc.Address); c == p.canon {
				return pc, true
			}
		}
	}
	return changedoc.ProvisionChange{}, false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// onDate says which bytes were held on h.RefDate and whether the source
// changed after it, as `cite --at` picks them: the last change by then.
// For a reference dated before the first bytes held, the first change the
// archive saw is a change after it: the bytes first held and those after
// differ, and what the reference cited cannot be both.
func onDate(h *HeldBytes, history []Version) {
	h.ChangedAfter, h.first = "unknown", history[0].Date
	if h.RefDate == "" {
		h.Note = "the reference has no date (none in its URL or key, and git could not date its line): the archive cannot tell whether the document changed after it"
		return
	}
	from := heldOnRefDate(h, history)
	for j := from + 1; j < len(history); j++ {
		if history[j].SHA256 != history[from].SHA256 {
			h.ChangedAfter, h.ChangedOn = "yes", history[j].Date
			h.ChangeFrom, h.ChangeFromDate, h.ChangeTo = history[j-1].SHA256, history[j-1].Date, history[j].SHA256
			break
		}
	}
	switch {
	case h.BeforeFirst && h.ChangedAfter == "yes":
		h.Note = fmt.Sprintf("changed on %s; the archive holds this document since %s, after your reference of %s, so what you cited may differ from both", h.ChangedOn, h.FirstRetrieved, h.RefDate)
	case h.BeforeFirst:
		h.Note = fmt.Sprintf("the archive holds this document since %s, after your reference of %s, and has seen no change since: it will tell you of the first", h.FirstRetrieved, h.RefDate)
	case h.ChangedAfter == "yes":
		h.Note = fmt.Sprintf("changed on %s, after your reference of %s; the archive held the bytes you cited", h.ChangedOn, h.RefDate)
	}
}

// Documents groups rows by cited URL (after Canon), most files first
// (then most references, then URL).
func Documents(rows []Row) []Document {
	type acc struct {
		Document
		files  map[string]bool
		titles map[string]int
		hrefs  map[string]int
	}
	by := map[string]*acc{}
	for _, row := range rows {
		c, ok := Canon(row.Href)
		if !ok {
			continue
		}
		d := by[c]
		if d == nil {
			d = &acc{files: map[string]bool{}, titles: map[string]int{}, hrefs: map[string]int{}}
			d.Match = row.Match
			by[c] = d
		}
		if slices.Index(Kinds, row.Match.Kind) < slices.Index(Kinds, d.Match.Kind) {
			d.Match = row.Match
		}
		d.files[row.File] = true
		d.References++
		if row.Title != "" {
			d.titles[row.Title]++
		}
		href, _, _ := strings.Cut(strings.TrimSpace(row.Href), "#")
		d.hrefs[href]++
	}
	out := make([]Document, 0, len(by))
	for _, d := range by {
		d.Files = len(d.files)
		d.Title = mostFrequent(d.titles)
		d.URL = mostFrequent(d.hrefs)
		d.Held = Held(d.Match.Kind)
		out = append(out, d.Document)
	}
	slices.SortFunc(out, func(a, b Document) int {
		return cmp.Or(b.Files-a.Files, b.References-a.References, strings.Compare(a.URL, b.URL))
	})
	return out
}

func mostFrequent(m map[string]int) string {
	best, n := "", 0
	for k, c := range m {
		if c > n || c == n && k < best {
			best, n = k, c
		}
	}
	return best
}

// Suggestion is a drafted manifest entry for a cited document not held.
type Suggestion struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// Files and References count what cites it (or any part of it).
	Files      int `json:"files"`
	References int `json:"references"`
	// Cited are the cited URLs it covers (the parts of a whole text).
	Cited    []string `json:"cited"`
	Official bool     `json:"official"`
	// Why says why this URL rather than the one cited, if it differs.
	Why string `json:"why,omitempty"`
}

// Suggest drafts manifest entries for the n documents not held that the
// most files cite: a part of a work whose whole text is known is folded
// into that whole text, which is suggested instead. jurisdiction prefixes
// the ids ("" guesses from the host).
func Suggest(rows []Row, n int, jurisdiction string) []Suggestion {
	type acc struct {
		Suggestion
		files  map[string]bool
		titles map[string]int
		cited  map[string]bool
	}
	by := map[string]*acc{}
	for _, row := range rows {
		if Held(row.Match.Kind) {
			continue
		}
		c, ok := Canon(row.Href)
		if !ok {
			continue
		}
		d := Describe(c)
		target, why := "", ""
		switch {
		case d.Whole != "" && (d.Part != "" || d.container || strings.HasPrefix(d.Work, "usc/")):
			target = d.Whole
			if wc, _ := Canon(d.Whole); wc != c {
				why = "the whole text, which holds the parts cited"
				if strings.HasPrefix(d.Work, "usc/") && d.Part == "" {
					why = "the section as the Government Publishing Office serves it (latest annual edition)"
				}
			}
		default:
			target = Clean(row.Href)
		}
		key, _ := Canon(target)
		s := by[key]
		if s == nil {
			s = &acc{files: map[string]bool{}, titles: map[string]int{}, cited: map[string]bool{}}
			s.URL, s.Why = target, why
			s.Official = Official(hostOf(key))
			s.Kind = guessKind(key, d)
			by[key] = s
		}
		s.files[row.File] = true
		s.References++
		s.cited[c] = true
		if row.Title != "" {
			s.titles[row.Title]++
		}
	}
	out := make([]Suggestion, 0, len(by))
	for _, s := range by {
		s.Files = len(s.files)
		s.Title = mostFrequent(s.titles)
		s.Cited = slices.Sorted(maps.Keys(s.cited))
		out = append(out, s.Suggestion)
	}
	slices.SortFunc(out, func(a, b Suggestion) int {
		return cmp.Or(b.Files-a.Files, b.References-a.References, strings.Compare(a.URL, b.URL))
	})
	if len(out) > n {
		out = out[:n]
	}
	// Ids are made once the order is fixed, so that a repeated one gets
	// its number in rank order.
	seen := map[string]int{}
	for i := range out {
		id := suggestID(cmp.Or(jurisdiction, guessJurisdiction(hostOf(out[i].Cited[0]))), out[i].Title, out[i].URL)
		if seen[id]++; seen[id] > 1 {
			id = fmt.Sprintf("%s-%d", id, seen[id])
		}
		out[i].ID = id
	}
	return out
}

func guessKind(canon string, d Doc) string {
	switch {
	case strings.HasPrefix(d.Work, "fr/") || d.Designation != "" || strings.Contains(canon, "gazette") || strings.Contains(canon, "/irb/"):
		return "gazette"
	case d.Work != "" && !strings.HasPrefix(d.Work, "irs/") && !strings.HasPrefix(d.Work, "cra/") && strings.Contains(d.Work, "/") && !strings.Contains(d.Work, "{year}"):
		return "legislation"
	case strings.Contains(canon, "legislation") || strings.Contains(canon, "/laws/") || strings.Contains(canon, "statute") || strings.Contains(canon, "/acts/"):
		return "legislation"
	case strings.HasSuffix(canon, ".pdf") && (strings.Contains(canon, "instruction") || strings.Contains(canon, "forms") || strings.Contains(canon, "irs-pdf")):
		return "tax-table"
	}
	return "rates-page"
}

func guessJurisdiction(host string) string {
	switch {
	case strings.HasSuffix(host, ".uk") || strings.HasSuffix(host, ".scot") || strings.HasSuffix(host, ".wales"):
		return "uk"
	case strings.HasSuffix(host, ".nz"):
		return "nz"
	case strings.HasSuffix(host, ".ca"):
		return "ca"
	case strings.HasSuffix(host, ".gov") || strings.HasSuffix(host, ".us") || strings.HasSuffix(host, "cornell.edu"):
		return "us"
	}
	return "xx"
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// suggestID makes an id from the jurisdiction and the title (else the URL's
// last path segment), at most 60 characters, cut at a dash.
func suggestID(jurisdiction, title, u string) string {
	base := title
	if base == "" {
		base = strings.TrimSuffix(u, "/")
		base = base[strings.LastIndex(base, "/")+1:]
	}
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(base), "-"), "-")
	slug = strings.TrimPrefix(slug, jurisdiction+"-")
	id := jurisdiction + "-" + slug
	if len(id) > 60 {
		id = id[:60]
		if i := strings.LastIndex(id, "-"); i > len(jurisdiction) {
			id = id[:i]
		}
	}
	return strings.TrimRight(id, "-")
}

// SuggestYAML renders suggestions as manifest entries to paste under
// `sources:`, each after a comment saying what cites it.
func SuggestYAML(ss []Suggestion) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "  # cited by %d file(s), %d reference(s)", s.Files, s.References)
		if len(s.Cited) > 1 {
			fmt.Fprintf(&b, ", as %d URLs", len(s.Cited))
		}
		if !s.Official {
			b.WriteString("; not an authority's own host: check it is an official source")
		}
		if s.Why != "" {
			fmt.Fprintf(&b, "; %s", s.Why)
		}
		fmt.Fprintf(&b, "\n  - id: %s\n    url: %s\n    kind: %s\n    title: %s\n\n", s.ID, s.URL, s.Kind, yamlString(s.Title))
	}
	return b.String()
}

func yamlString(s string) string {
	if s == "" {
		return `""`
	}
	if strings.ContainsAny(s, ":#'\"{}[],&*!|>%@`\n\t") || strings.TrimSpace(s) != s {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// heldOnRefDate records the bytes held on the reference's date, or that
// the reference is older than the first copy, and returns the index of
// the version the changes after the reference are counted from.
func heldOnRefDate(h *HeldBytes, history []Version) int {
	i := -1
	for j, v := range history {
		if v.Date <= h.RefDate {
			i = j
		}
	}
	if i < 0 {
		h.FirstRetrieved, h.BeforeFirst = history[0].Date, true
		return 0
	}
	h.OnRefDate = history[i].SHA256
	h.ChangedAfter = "no"
	return i
}
