package public

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/feeds"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// Feed files under the reports directory: one of every change, one per
// jurisdiction, one per source; and beside them, under changedoc.Dir, each
// change shown as data (changedoc.Path) that an entry of a feed links.
//
// A feed is a window on the newest entries, as Atom allows (RFC 4287
// asks no feed document to hold every entry; RFC 5005 calls a feed that
// does not say it is complete a sliding window): a reader polling it
// keeps what it saw. The windows bound what the site publishes: ten
// thousand sources over ten years stay within GitHub Pages' 1 GB. Older
// change documents stay in the repository's reports/ (outputs.Kept) and
// in the monthly dataset releases, which ship every change of their
// month.
const (
	FeedAll = "feeds/all.atom"
	// FeedEntries is how many entries, newest first, the feed of every
	// document and each jurisdiction's keep.
	FeedEntries = 50
	// SourceFeedEntries is how many entries, newest first, a source's own
	// feed keeps: a source checked weekly fills it in ten weeks, one
	// checked monthly in ten months.
	SourceFeedEntries = 10
)

// FeedOf is the feed file of a jurisdiction or, with source true, of a
// source.
func FeedOf(name string, source bool) string {
	if source {
		return "feeds/sources/" + name + ".atom"
	}
	return "feeds/" + name + ".atom"
}

// feedEpoch is the <updated> of a feed with no entry yet: a feed's dates
// come from the index, never from the clock.
var feedEpoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// FeedInput is what the change feeds are made of.
type FeedInput struct {
	Set   *manifest.Set
	Index *store.Index
	// Text returns the text derived from the blob sum (served as
	// contentType), false when it cannot be had (the entry then says so
	// instead of showing a diff).
	Text func(sum, contentType string) (string, bool)
	// Blob links the bytes of a hash on the repository's forge (e.g.
	// review.BlobLink of main); nil or "" for no link.
	Blob func(sha256 string) string
	// Done, when set, names the sources whose own feed is already written
	// (SourceFeed, as their history stood final): Feeds leaves those out.
	// Feeds calls it only once the feeds of every document and of each
	// jurisdiction are rendered, so it may wait for those writes to end.
	Done func(id string) bool
	// Editions holds, by source id, the next edition a held page links
	// to (edition.Find): the source's own feed says that a new edition is
	// available, at which address, on the day of the page that names it.
	Editions map[string]edition.Proposal
	// Entries, when set, keeps each entry's rendered XML for every input
	// that shares it, so that the feeds of every document and of each
	// jurisdiction reuse what each source's own feed rendered (its texts
	// read and diffed, its XML written). Share it only between inputs of
	// one Set, Text and Blob.
	Entries *EntryMemo
}

// EntryMemo keeps rendered feed entries (FeedInput.Entries); the zero
// value is empty and ready. It is safe for concurrent use: an entry asked
// for while another goroutine renders it waits for that rendering, so
// its texts are read and diffed once, not once per feed that holds it
// (a source's feed written during the run, its jurisdiction's at the end).
type EntryMemo struct {
	m sync.Map // xmlKey → *memoEntry; entryKey → its change document
}

// memoEntry is one entry's rendering, done once: done is closed when xml,
// doc and err are set.
type memoEntry struct {
	done     chan struct{}
	xml, doc []byte
	err      error
}

// entryKey names an entry: what it shows follows from its source (fixed
// for one Set) and the two entries of the index, which never change once
// added.
type entryKey struct {
	id, date string
	old, new store.Sum
	returned bool
}

// xmlKey names an entry's XML: the entry, the authority of its tag URI
// and the site its change document is linked on.
type xmlKey struct {
	entryKey
	tag, site string
}

// entrySite is what an entry's XML takes from the Rules: the authority of
// its tag URI, and the published site's root, "" for none.
type entrySite struct {
	tag  string
	root *url.URL
}

// link is the address of path on the published site, "" for none.
func (s entrySite) link(path string) string {
	if s.root == nil {
		return ""
	}
	return s.root.ResolveReference(&url.URL{Path: path}).String()
}

func (r Rules) entrySite() entrySite {
	s := entrySite{tag: r.tagAuthority()} // the User-Agent parsed once, not per entry
	if u := r.BotURL(); u != nil {
		s.root = u.ResolveReference(&url.URL{Path: "."})
	}
	return s
}

func (s entrySite) key() string {
	if s.root == nil {
		return ""
	}
	return s.root.String()
}

func (c *change) key() entryKey {
	return entryKey{c.src.ID, c.date, c.old.SHA256, c.new.SHA256, c.returned}
}

// change is one entry: a source served new bytes (or returned to earlier
// ones) on Date. Feeds sort and share them by pointer: the whole source
// and two entries would be copied at each step of a thousand's sort.
type change struct {
	src      *manifest.Source
	date     string
	old, new store.Entry // old.SHA256 is "" for the first copy
	returned bool
}

// Feeds renders the Atom feeds of document changes from the index's
// history: every file, also those with no entry yet, so that a feed
// reader can subscribe before the first change. Nothing in them comes
// from the clock: an entry's id and date are its source, its hash and the
// date of the index, and a feed's date is its newest entry's. A quiet day
// renders the same bytes. After the feeds come the change documents of
// their entries (changedoc), each entry's linked from it.
func (r Rules) Feeds(in FeedInput) ([]File, error) {
	if in.Entries == nil {
		// An entry is in the feed of every document, of its
		// jurisdiction and of its source, and its change document beside
		// them: rendered once.
		in.Entries = &EntryMemo{}
	}
	srcs := in.Set.Sources
	bySource := make([][]change, len(srcs)) // Load refuses a duplicate id
	n := 0
	for i := range srcs {
		bySource[i] = changesOf(in.Index, &srcs[i])
		n += len(bySource[i])
	}
	all := make([]*change, 0, n)
	byJurisdiction := map[string][]*change{}
	for i := range bySource {
		for k := range bySource[i] {
			c := &bySource[i][k]
			all = append(all, c)
			byJurisdiction[c.src.Jurisdiction] = append(byJurisdiction[c.src.Jurisdiction], c)
		}
	}
	files := make([]File, 0, 1+len(in.Set.Manifests)+len(srcs))
	var linked []*change // the entries of the feeds of every document and each jurisdiction
	add := func(name, title, subtitle string, cs []*change) error {
		shown := newestFirst(cs, FeedEntries)
		linked = append(linked, shown...)
		data, err := r.feed(in, name, title, subtitle, shown, nil)
		if err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		files = append(files, File{Name: name, Data: data})
		return nil
	}
	if err := add(FeedAll, "TaxKernelBot: changes of every document", "Every change of the documents TaxKernelBot keeps, newest first.", all); err != nil {
		return nil, err
	}
	for _, m := range in.Set.Manifests {
		if err := add(FeedOf(m.Jurisdiction, false), "TaxKernelBot: changes of "+m.Name+" documents", "Every change of the documents TaxKernelBot keeps for "+m.Name+", newest first.", byJurisdiction[m.Jurisdiction]); err != nil {
			return nil, err
		}
	}
	for i := range srcs {
		src := &srcs[i]
		if in.Done != nil && in.Done(src.ID) {
			continue
		}
		f, err := r.sourceFeed(in, src, bySource[i])
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	// The change documents that an entry links: those of each source's
	// feed, also of one that is Done (its entries are in the memo), and
	// those of the feeds of every document and each jurisdiction, which a
	// source changing more often than the others may have pushed out of
	// its own. No other is published.
	site := r.entrySite()
	named := map[string]bool{}
	write := func(c *change) error {
		if c.old.SHA256 == "" {
			return nil
		}
		name := c.dataPath()
		if named[name] {
			return nil // the same two versions on the same day: one document
		}
		named[name] = true
		data, err := in.doc(c, site)
		if err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		files = append(files, File{Name: name, Data: data})
		return nil
	}
	for i := range bySource {
		for _, c := range sourceWindow(bySource[i]) {
			if err := write(c); err != nil {
				return nil, err
			}
		}
	}
	for _, c := range linked {
		if err := write(c); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// doc is c's change document, from in.Entries when an entry rendered it.
func (in FeedInput) doc(c *change, site entrySite) ([]byte, error) {
	if d, ok := in.Entries.m.Load(c.key()); ok {
		return d.([]byte), nil
	}
	_, d, err := in.entry(c, site)
	return d, err
}

// dataPath is where c's change document is, under the reports directory.
func (c *change) dataPath() string {
	return changedoc.Path(c.src.ID, c.date, c.old.SHA256, c.new.SHA256)
}

// SourceFeed renders the feed of one source, as Feeds does: a run writes
// it as soon as the source's check is recorded, while its hosts wait,
// rather than among a thousand at its end.
func (r Rules) SourceFeed(in FeedInput, src manifest.Source) (File, error) {
	return r.sourceFeed(in, &src, changesOf(in.Index, &src))
}

func (r Rules) sourceFeed(in FeedInput, src *manifest.Source, cs []change) (File, error) {
	name := FeedOf(src.ID, true)
	var lead *leadEntry
	if p, ok := in.Editions[src.ID]; ok {
		x, err := r.editionEntry(p)
		if err != nil {
			return File{}, fmt.Errorf("render %s: %w", name, err)
		}
		lead = &leadEntry{xml: x, date: p.Evidence.Date}
	}
	data, err := r.feed(in, name, "TaxKernelBot: changes of "+src.Title, "Every change of "+src.URL+", newest first.", sourceWindow(cs), lead)
	if err != nil {
		return File{}, fmt.Errorf("render %s: %w", name, err)
	}
	return File{Name: name, Data: data}, nil
}

// changesOf is src's changes in ix, oldest first.
func changesOf(ix *store.Index, src *manifest.Source) []change {
	hist := ix.History(src.ID)
	cs := make([]change, 0, len(hist))
	for i, h := range hist {
		c := change{src: src, date: h.Date, new: h.Entry}
		if i > 0 {
			c.old = hist[i-1].Entry
			c.returned = h.Date != h.Entry.FirstSeen
		}
		cs = append(cs, c)
	}
	return cs
}

// newestFirst is the n newest of cs.
func newestFirst(cs []*change, n int) []*change {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b *change) int {
		return cmp.Or(strings.Compare(b.date, a.date), strings.Compare(a.src.ID, b.src.ID), strings.Compare(string(a.new.SHA256), string(b.new.SHA256)))
	})
	return cs[:min(len(cs), n)]
}

// sourceWindow is what a source's own feed shows of its changes cs: the
// SourceFeedEntries newest.
func sourceWindow(cs []change) []*change {
	ptrs := make([]*change, len(cs))
	for i := range cs {
		ptrs[i] = &cs[i]
	}
	return newestFirst(ptrs, SourceFeedEntries)
}

// tagAuthority names the feeds in their tag: URIs (RFC 4151): the host of
// the bot's page, else its mailbox.
func (r Rules) tagAuthority() string {
	if u := r.BotURL(); u != nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return r.From
}

// siteURL resolves a path of the published site against the bot's page,
// "" when the User-Agent names no page.
func (r Rules) siteURL(path string) string {
	u := r.BotURL()
	if u == nil {
		return ""
	}
	return u.ResolveReference(&url.URL{Path: path}).String()
}

// leadEntry is an entry a feed shows before its changes: a source's new
// edition.
type leadEntry struct {
	xml  []byte
	date string
}

func (r Rules) feed(in FeedInput, name, title, subtitle string, cs []*change, lead *leadEntry) ([]byte, error) {
	updated := feedEpoch
	if len(cs) > 0 {
		updated = day(cs[0].date)
	}
	if lead != nil && day(lead.date).After(updated) {
		updated = day(lead.date)
	}
	site := r.entrySite()
	tag := site.tag
	entries := make([][]byte, len(cs))
	size := 0
	for i, c := range cs {
		x, _, err := in.entry(c, site)
		if err != nil {
			return nil, err
		}
		entries[i] = x
		size += len("\n") + len(x)
	}
	atom := (&feeds.Atom{Feed: &feeds.Feed{
		Title:       title,
		Description: subtitle,
		Author:      &feeds.Author{Name: "TaxKernelBot", Email: r.From},
		Updated:     updated,
	}}).AtomFeed()
	atom.Id = fmt.Sprintf("tag:%s,2026:%s", tag, name)
	atom.Link = nil
	if self := r.siteURL(name); self != "" {
		atom.Link = &feeds.AtomLink{Href: self, Rel: "self", Type: "application/atom+xml"}
	}
	// As feeds.ToXML writes the feed with its entries, but for the
	// entries' XML, rendered once for every feed that shows them: they
	// are the last children of <feed>, each indented there as on its own
	// with a prefix of one indent.
	head, err := xml.MarshalIndent(atom, "", "  ")
	if err != nil {
		return nil, err
	}
	const end = "\n</feed>"
	if !bytes.HasSuffix(head, []byte(end)) {
		return nil, fmt.Errorf("the feed's XML does not end in %q", end)
	}
	head = head[:len(head)-len(end)]
	out := make([]byte, 0, len(xml.Header)+len(head)+size+len(end)+len("\n"))
	out = append(out, xml.Header[:len(xml.Header)-1]...) // without its newline, as ToXML
	out = append(out, head...)
	if lead != nil {
		entries = append([][]byte{lead.xml}, entries...)
	}
	for _, x := range entries {
		out = append(out, '\n')
		out = append(out, x...)
	}
	out = append(out, end...)
	return append(out, '\n'), nil
}

// entry is the <entry> of c in a feed, indented by one level, and its
// change document (nil for a first copy), through in.Entries when set.
func (in FeedInput) entry(c *change, site entrySite) (xmlData, doc []byte, err error) {
	if in.Entries == nil {
		return renderEntry(in, c, site)
	}
	v, rendering := in.Entries.m.LoadOrStore(xmlKey{c.key(), site.tag, site.key()}, &memoEntry{done: make(chan struct{})})
	e := v.(*memoEntry)
	if rendering {
		<-e.done
		return e.xml, e.doc, e.err
	}
	defer close(e.done)
	e.xml, e.doc, e.err = renderEntry(in, c, site)
	if e.err == nil {
		in.Entries.m.Store(c.key(), e.doc)
	}
	return e.xml, e.doc, e.err
}

func renderEntry(in FeedInput, c *change, site entrySite) ([]byte, []byte, error) {
	var dataLink string
	if c.old.SHA256 != "" {
		dataLink = site.link(c.dataPath())
	}
	content, doc, err := entryHTML(in, c, dataLink)
	if err != nil {
		return nil, nil, err
	}
	tag := site.tag
	what := "changed"
	switch {
	case c.old.SHA256 == "":
		what = "first copy"
	case c.returned:
		what = "back to an earlier version"
	}
	item := &feeds.Item{
		Title:       fmt.Sprintf("%s (%s): %s on %s", c.src.Title, c.src.ID, what, c.date),
		Link:        &feeds.Link{Href: c.src.URL},
		Id:          fmt.Sprintf("tag:%s,2026:%s/%s/%s", tag, c.src.ID, c.date, c.new.SHA256),
		Updated:     day(c.date),
		Description: summary(c),
		Content:     content,
	}
	e := (&feeds.Atom{Feed: &feeds.Feed{Items: []*feeds.Item{item}}}).AtomFeed().Entries[0]
	e.Links = append(e.Links, workLinks(c.src)...)
	if dataLink != "" {
		// The change as data: an alternate of the entry in another type
		// (RFC 4287 allows one alternate link per type). Before the live
		// page's, which readers must still take as the entry's link: the
		// JavaScript feedparser takes the last alternate, Python's
		// feedparser the first of an HTML type (the default).
		e.Links = append([]feeds.AtomLink{{Href: dataLink, Rel: "alternate", Type: "application/json"}}, e.Links...)
	}
	x, err := xml.MarshalIndent(e, "  ", "  ")
	return x, doc, err
}

var editionTemplate = template.Must(template.New("edition").Parse(`<p>A new edition of {{.Title}} (<code>{{.ID}}</code>, {{.Jurisdiction}}) is available at <a href="{{.New}}">{{.New}}</a>; the listed address, <a href="{{.Old}}">{{.Old}}</a>, keeps serving the edition it holds.</p>
<p>Read on the held copy of <code>{{.Page}}</code> (sha256 <code>{{.SHA256}}</code>, held since {{.Date}}), line {{.Line}}: <q>{{.Text}}</q>.</p>
<p>Nothing has been fetched from the new address: the bot's pull request proposes it as a source of its own (<code>{{.NewID}}</code>), and it is fetched once a person merges that.</p>
`))

// editionEntry is the entry of a source's feed that says a new edition is
// available: its id names the source and the new address, so that a
// reader sees it once, whatever day the feed is rendered.
func (r Rules) editionEntry(p edition.Proposal) ([]byte, error) {
	var content bytes.Buffer
	if err := editionTemplate.Execute(&content, map[string]any{
		"Title": p.Source.Title, "ID": p.Source.ID, "Jurisdiction": p.Source.Jurisdiction, "New": p.URL, "Old": p.Source.URL,
		"Page": p.Evidence.Source, "SHA256": p.Evidence.SHA256, "Date": p.Evidence.Date, "Line": p.Evidence.Line, "Text": p.Evidence.Text, "NewID": p.ID,
	}); err != nil {
		return nil, err
	}
	site := r.entrySite()
	item := &feeds.Item{
		Title:       fmt.Sprintf("%s (%s): a new edition is available", p.Source.Title, p.Source.ID),
		Link:        &feeds.Link{Href: p.URL},
		Id:          fmt.Sprintf("tag:%s,2026:%s/edition/%s", site.tag, p.Source.ID, p.URL),
		Updated:     day(p.Evidence.Date),
		Description: template.HTMLEscapeString("A new edition is available: " + p.URL),
		Content:     content.String(),
	}
	e := (&feeds.Atom{Feed: &feeds.Feed{Items: []*feeds.Item{item}}}).AtomFeed().Entries[0]
	return xml.MarshalIndent(e, "  ", "  ")
}

func day(date string) time.Time {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return feedEpoch
	}
	return t
}

// summary is the entry's one line of plain text: old → new hash (HTML
// escaped, as Atom's html summaries are read).
func summary(c *change) string {
	if c.old.SHA256 == "" {
		return template.HTMLEscapeString(fmt.Sprintf("First copy held: sha256 %s, %d bytes.", c.new.SHA256.Short(), c.new.Size))
	}
	return template.HTMLEscapeString(fmt.Sprintf("sha256 %s → %s (%d → %d bytes).", c.old.SHA256.Short(), c.new.SHA256.Short(), c.old.Size, c.new.Size))
}

// maxEntryProvisions is how many changed provisions an entry names; its
// change document lists them all.
const maxEntryProvisions = 30

var entryTemplate = template.Must(template.New("entry").Parse(`<p>{{.Title}} (<code>{{.ID}}</code>, {{.Jurisdiction}}) on {{.Date}}: <a href="{{.URL}}">the live page</a>.</p>
<ul>
{{- if .Old}}
<li>before: <code>{{.Old}}</code>{{if .OldBlob}} (<a href="{{.OldBlob}}">bytes</a>){{end}}</li>
{{- end}}
<li>{{if .Old}}after{{else}}first copy{{end}}: <code>{{.New}}</code>, {{.Size}} bytes{{if .ContentType}}, {{.ContentType}}{{end}}{{if .NewBlob}} (<a href="{{.NewBlob}}">bytes</a>){{end}}</li>
</ul>
{{- with .FRBR}}
<p>FRBR: work {{with .Work}}<code>{{.ID}}</code> ({{.Scheme}}){{else}}unknown{{end}}; expression {{with .Expression}}{{.}}{{else}}unknown{{end}}
{{- with .Manifestation}}; manifestation {{.MediaType}}{{end}}{{with .Item}}; item sha256 <code>{{.SHA256}}</code>{{end}}.</p>
{{- end}}
{{- if .Provisions}}
<p>Provisions: {{.Provisions}}.</p>
{{- end}}
{{- if .Diff}}
<pre>{{.Diff}}</pre>
{{- else if .Why}}
<p>{{.Why}}</p>
{{- end}}
{{- if .Data}}
<p>This change as data (its hunks, and each changed figure old → new with its row): <a href="{{.Data}}">JSON</a>.</p>
{{- end}}
`))

// entryHTML is the entry's content, and c's change document (nil for a
// first copy), linked at dataLink ("" for no link): the texts are read
// once for both.
func entryHTML(in FeedInput, c *change, dataLink string) (string, []byte, error) {
	blob := func(e store.Entry) string {
		if in.Blob == nil || !e.SHA256.Valid() {
			return ""
		}
		return in.Blob(string(e.SHA256))
	}
	data := map[string]any{
		"Title": c.src.Title, "ID": c.src.ID, "Jurisdiction": c.src.Jurisdiction, "Date": c.date,
		"URL": c.src.URL, "Old": string(c.old.SHA256), "OldBlob": blob(c.old),
		"New": string(c.new.SHA256), "NewBlob": blob(c.new), "Size": c.new.Size, "ContentType": c.new.ContentType,
		"FRBR": c.src.FRBR(c.new.ContentType, string(c.new.SHA256)),
		"Data": dataLink,
	}
	var doc []byte
	if c.old.SHA256 != "" {
		oldText, okOld := text(in, c.old)
		newText, okNew := text(in, c.new)
		ci := changedoc.Input{
			Source: c.src.ID, URL: c.src.URL, Date: c.date, Returned: c.returned, Old: c.old, New: c.new,
			OldText: oldText, NewText: newText, TextOK: okOld && okNew,
		}
		switch {
		case !okOld || !okNew:
			data["Why"] = "No text diff: the text of one of the two could not be read."
		default:
			// One comparison for the entry's diff and the change document.
			var d textview.TextDiff
			// The entry shows the unified diff; its change document has
			// the figures.
			d, ci.Hunks = textview.DiffHunks(c.old.SHA256.Short(), c.new.SHA256.Short(), oldText, newText, textview.DiffOptions{NoFigures: true})
			ci.Compared = true
			if d.Changed() {
				data["Diff"] = d.Unified
			} else {
				data["Why"] = "The text reads the same: only the bytes changed."
			}
		}
		cd := changedoc.Of(ci)
		// A legislative text says which provisions changed before any
		// diff: "s. 113 amended; s. 662 repealed".
		if p := cd.ProvisionSummary(maxEntryProvisions); p != "" {
			data["Provisions"] = p
		}
		var err error
		if doc, err = cd.JSON(); err != nil {
			return "", nil, err
		}
	}
	var buf bytes.Buffer
	if err := entryTemplate.Execute(&buf, data); err != nil {
		return "", nil, err
	}
	return buf.String(), doc, nil
}

func text(in FeedInput, e store.Entry) (string, bool) {
	if in.Text == nil {
		return "", false
	}
	return in.Text(string(e.SHA256), e.ContentType)
}
