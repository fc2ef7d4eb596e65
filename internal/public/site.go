package public

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// The site people browse, under the reports directory: a page per
// source, per jurisdiction and per host, an index with a search, and a
// Memento TimeMap per source. Pages link the bytes where the stores serve
// them (SiteInput.BytesURL) and never hold them.
const (
	SiteDir = "site"
	// SiteInputs records, per page, the digest of what it was rendered
	// from, so that a later build renders only the pages whose inputs
	// changed (SiteInput.Prior).
	SiteInputs = SiteDir + "/inputs.json"
	// TimeMapType is a TimeMap's media type (RFC 7089, section 5.1.1).
	TimeMapType = "application/link-format"
	// SiteChanges is how many changes a source's page shows in full
	// (provisions, figures and text diff), newest first; older changes
	// are in its timeline, and the newest of those in its feed with their
	// change documents (SourceFeedEntries).
	SiteChanges = 5
	// SiteDiffLines bounds the diff lines a change shows on the page;
	// the change document holds the rest.
	SiteDiffLines = 120
	// SiteFigures bounds the figures a change shows on the page.
	SiteFigures = 20
	// SiteRecent is how many recent changes a jurisdiction's page lists.
	SiteRecent = 25
)

// SourcePage, JurisdictionPage, HostPage and TimeMapOf name the site's
// files under the reports directory.
func SourcePage(id string) string          { return SiteDir + "/sources/" + id + ".html" }
func TimeMapOf(id string) string           { return SiteDir + "/sources/" + id + ".wlnk" }
func JurisdictionPage(j string) string     { return SiteDir + "/jurisdictions/" + j + ".html" }
func HostPage(host string) string          { return SiteDir + "/hosts/" + hostFile(host) + ".html" }
func hostFile(host string) string          { return strings.ReplaceAll(host, ":", "_") }
func sourceFeedRel(from, id string) string { return siteRel(from, FeedOf(id, true)) }

// siteRel is the relative link from the page from to the file to, both
// named under the reports directory, so that the site works wherever it
// is served from (GitHub Pages' project path, a file:// copy).
func siteRel(from, to string) string {
	dir := strings.Split(from, "/")
	dir = dir[:len(dir)-1]
	target := strings.Split(to, "/")
	common := 0
	for common < len(dir) && common < len(target)-1 && dir[common] == target[common] {
		common++
	}
	return strings.Repeat("../", len(dir)-common) + strings.Join(target[common:], "/")
}

// SiteInput is what the site is rendered from: the record only (the
// manifests, the hash index, the coverage report with what it observed of
// each host, and the change documents), never the clock.
type SiteInput struct {
	Feed   FeedInput
	Report *report.Report
	// BytesURL is where the stores serve a hash's bytes (a release asset
	// named by the hex digest, or the repository's snapshots/ path until
	// then); nil or "" for no link.
	BytesURL func(sha256 string) string
	// Prior, when set, is the SiteInputs of the last build: a page whose
	// inputs' digest is the same is not rendered again (its file stands).
	// Nil renders every page.
	Prior map[string]string
}

//go:embed templates/site.html.tmpl templates/site.css templates/search.js
var siteFiles embed.FS

// siteVersion is the digest of the templates: a page rendered by other
// templates is rendered again.
var siteVersion = func() string {
	h := sha256.New()
	for _, name := range []string{"templates/site.html.tmpl", "templates/site.css", "templates/search.js"} {
		b, _ := siteFiles.ReadFile(name)
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}()

var siteTemplate = template.Must(template.New("site").Funcs(template.FuncMap{
	"rel":   siteRel,
	"delay": fmtDelay,
	"dur":   fmtDuration,
	"add":   func(a, b int) int { return a + b },
}).ParseFS(siteFiles, "templates/site.html.tmpl"))

// Site renders the site: every page whose inputs changed since Prior (all
// without it), the style sheet and script, and SiteInputs.
func (r Rules) Site(in SiteInput) ([]File, error) {
	if in.Feed.Entries == nil {
		// The change documents the feeds render are read back here:
		// rendered once when the caller shares the feeds' memo.
		in.Feed.Entries = &EntryMemo{}
	}
	b := siteBuild{r: r, in: in, digests: map[string]string{}, site: r.entrySite()}
	b.entries = make(map[string]report.Entry, len(in.Report.Sources))
	for _, e := range in.Report.Sources {
		b.entries[e.ID] = e
	}
	b.seen = make(map[string]report.HostSeen, len(in.Report.Hosts))
	for _, h := range in.Report.Hosts {
		b.seen[h.Host] = h
	}
	css, _ := siteFiles.ReadFile("templates/site.css")
	js, _ := siteFiles.ReadFile("templates/search.js")
	b.files = append(b.files, File{Name: SiteDir + "/site.css", Data: css}, File{Name: SiteDir + "/search.js", Data: js})

	set := in.Feed.Set
	histories := make(map[string][]change, len(set.Sources))
	for i := range set.Sources {
		src := &set.Sources[i]
		histories[src.ID] = changesOf(in.Feed.Index, src)
		if err := b.source(src, histories[src.ID]); err != nil {
			return nil, err
		}
	}
	for _, m := range set.Manifests {
		if err := b.jurisdiction(m, histories); err != nil {
			return nil, err
		}
	}
	for _, h := range r.Hosts {
		if err := b.host(h); err != nil {
			return nil, err
		}
	}
	if err := b.index(); err != nil {
		return nil, err
	}
	if err := b.searchIndex(); err != nil {
		return nil, err
	}
	inputs, err := json.MarshalIndent(b.digests, "", " ")
	if err != nil {
		return nil, err
	}
	b.files = append(b.files, File{Name: SiteInputs, Data: append(inputs, '\n')})
	return b.files, nil
}

type siteBuild struct {
	r       Rules
	in      SiteInput
	site    entrySite
	entries map[string]report.Entry
	seen    map[string]report.HostSeen
	digests map[string]string
	files   []File
}

// digester hashes what a page is rendered from: the templates, then
// each input written with its length, so that no two inputs read alike.
type digester struct{ h hash.Hash }

func newDigester() digester {
	d := digester{sha256.New()}
	d.add(siteVersion)
	return d
}

func (d digester) add(ss ...string) {
	for _, s := range ss {
		d.h.Write(strconv.AppendInt(nil, int64(len(s)), 10))
		d.h.Write([]byte{':'})
		io.WriteString(d.h, s)
	}
}

func (d digester) json(v any) {
	b, _ := json.Marshal(v)
	d.add(string(b))
}

func (d digester) sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// page renders name with the template named tmpl unless its inputs'
// digest is Prior's.
func (b *siteBuild) page(name, digest, tmpl string, data func() (any, error)) error {
	b.digests[name] = digest
	if b.in.Prior != nil && b.in.Prior[name] == digest {
		return nil
	}
	v, err := data()
	if err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := siteTemplate.ExecuteTemplate(&buf, tmpl, v); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	b.files = append(b.files, File{Name: name, Data: buf.Bytes()})
	return nil
}

// raw adds a file that is not a template's, unless Prior has its digest.
func (b *siteBuild) raw(name, digest string, data func() ([]byte, error)) error {
	b.digests[name] = digest
	if b.in.Prior != nil && b.in.Prior[name] == digest {
		return nil
	}
	d, err := data()
	if err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	b.files = append(b.files, File{Name: name, Data: d})
	return nil
}

func (b *siteBuild) bytesURL(sum store.Sum) string {
	if b.in.BytesURL == nil || !sum.Valid() {
		return ""
	}
	return b.in.BytesURL(string(sum))
}

// Version is one distinct set of bytes in a source's timeline.
type timelineVersion struct {
	SHA256, Short, ContentType, Bytes, FirstSeen, Until string
	Size                                                int64
	Returned                                            []string
	Current                                             bool
}

type siteChange struct {
	Date, What, Doc, Cite string
	From, To              siteSide
	Provisions            []string
	Figures               []siteFigure
	FiguresMore           int
	Diff                  []changedoc.Line
	DiffMore              int
	Text                  string
}

type siteSide struct{ Short, Bytes string }

type siteFigure struct{ Where, Old, New string }

// source renders a source's page and its TimeMap.
func (b *siteBuild) source(src *manifest.Source, cs []change) error {
	entry := b.entries[src.ID]
	d := newDigester()
	d.json(src.Legal)
	d.json(src.Edition)
	// What the page shows of the report: not its week, which would
	// render every page again each Monday.
	d.add(src.ID, src.Title, string(src.Kind), src.Jurisdiction, src.URL, src.Host, b.site.key(), string(entry.Status), entry.Since)
	d.json(entry.Usage)
	for i := range cs {
		c := &cs[i]
		d.add(c.date, string(c.new.SHA256), c.new.ContentType, c.new.Fetched, b.bytesURL(c.new.SHA256))
	}
	// The change documents' texts follow from the hashes above.
	digest := d.sum()
	name := SourcePage(src.ID)
	if err := b.page(name, digest, "source", func() (any, error) { return b.sourceData(name, src, entry, cs) }); err != nil {
		return err
	}
	return b.raw(TimeMapOf(src.ID), digest, func() ([]byte, error) {
		return TimeMap(src.URL, b.site.link(TimeMapOf(src.ID)), b.in.Feed.Index.Entries(src.ID), b.in.BytesURL), nil
	})
}

func (b *siteBuild) sourceData(name string, src *manifest.Source, entry report.Entry, cs []change) (any, error) {
	var versions []timelineVersion
	for i := range cs {
		c := &cs[i]
		if c.returned {
			continue
		}
		v := timelineVersion{
			SHA256: string(c.new.SHA256), Short: c.new.SHA256.Short(), ContentType: c.new.ContentType,
			Bytes: b.bytesURL(c.new.SHA256), FirstSeen: c.date, Size: c.new.Size, Returned: c.new.Returned,
		}
		versions = append(versions, v)
	}
	// Until: the day a later change replaced each served period.
	for i := range cs {
		if i+1 < len(cs) {
			for k := range versions {
				if versions[k].SHA256 == string(cs[i].new.SHA256) && (versions[k].Until == "" || versions[k].Until < cs[i+1].date) {
					versions[k].Until = cs[i+1].date
				}
			}
		}
	}
	if n := len(cs); n > 0 {
		for k := range versions {
			if versions[k].SHA256 == string(cs[n-1].new.SHA256) {
				versions[k].Current, versions[k].Until = true, ""
			}
		}
	}
	slices.Reverse(versions)

	fed := sourceWindow(cs) // the changes whose documents are published
	var changes []siteChange
	for i, c := range fed {
		if c.old.SHA256 == "" || i >= SiteChanges {
			continue
		}
		sc := siteChange{
			Date: c.date, What: "changed",
			From: siteSide{c.old.SHA256.Short(), b.bytesURL(c.old.SHA256)},
			To:   siteSide{c.new.SHA256.Short(), b.bytesURL(c.new.SHA256)},
			Doc:  siteRel(name, c.dataPath()),
			Cite: fmt.Sprintf("taxkernelbot cite %s --at %s", src.ID, c.date),
		}
		if c.returned {
			sc.What = "back to an earlier version"
		}
		raw, err := b.in.Feed.doc(c, b.site)
		if err != nil {
			return nil, err
		}
		var doc changedoc.Doc
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("read the change document of %s on %s: %w", src.ID, c.date, err)
		}
		for _, p := range doc.Provisions {
			sc.Provisions = append(sc.Provisions, p.ID+" "+p.Change)
		}
		sc.FiguresMore = max(len(doc.Figures)-SiteFigures, 0) + doc.OmittedFigures
		for _, f := range doc.Figures[:min(len(doc.Figures), SiteFigures)] {
			sf := siteFigure{Where: strings.TrimSpace(f.Row + " " + f.Column), Old: "—", New: "—"}
			if f.Old != nil {
				sf.Old = f.Old.Text
			}
			if f.New != nil {
				sf.New = f.New.Text
			}
			if sf.Where == "" && f.New != nil {
				sf.Where = fmt.Sprintf("line %d", f.New.Line)
			} else if sf.Where == "" && f.Old != nil {
				sf.Where = fmt.Sprintf("line %d (before)", f.Old.Line)
			}
			sc.Figures = append(sc.Figures, sf)
		}
		switch doc.Text {
		case changedoc.TextSame:
			sc.Text = "The text reads the same: only the bytes changed."
		case changedoc.TextUnreadable:
			sc.Text = "No text diff: the text of one of the two could not be read."
		}
		shown := 0
		for _, h := range doc.Hunks {
			for _, l := range h.Lines {
				if shown == SiteDiffLines {
					sc.DiffMore++
					continue
				}
				sc.Diff = append(sc.Diff, l)
				shown++
			}
		}
		sc.DiffMore += doc.OmittedLines
		changes = append(changes, sc)
	}
	older := 0
	for _, c := range cs {
		if c.old.SHA256 != "" {
			older++
		}
	}
	older -= len(changes)
	inFeed := 0 // of the older changes, those the source's feed still shows
	for _, c := range fed[min(len(fed), SiteChanges):] {
		if c.old.SHA256 != "" {
			inFeed++
		}
	}

	var prefs []string
	if entry.Usage != nil {
		for _, k := range slices.Sorted(maps.Keys(entry.Usage.Usage)) {
			prefs = append(prefs, "Content-Usage "+k+"="+entry.Usage.Usage[k])
		}
		for _, k := range slices.Sorted(maps.Keys(entry.Usage.Signal)) {
			prefs = append(prefs, "Content-Signal "+k+"="+entry.Usage.Signal[k])
		}
	}
	data := map[string]any{
		"Page": name, "Title": src.Title, "Src": src, "Entry": entry,
		"Versions": versions, "Changes": changes, "Older": older, "InFeed": inFeed, "Prefs": prefs,
		"TimeMap": siteRel(name, TimeMapOf(src.ID)), "Feed": sourceFeedRel(name, src.ID),
		"Host": siteRel(name, HostPage(src.Host)), "Jurisdiction": siteRel(name, JurisdictionPage(src.Jurisdiction)),
	}
	if src.Legal != nil {
		data["Legal"] = src.Legal.ID + " (" + src.Legal.Scheme + ")"
	}
	if src.Edition != nil {
		data["Edition"] = src.Edition.String()
	}
	return data, nil
}

// TimeMap is a source's Memento TimeMap (RFC 7089, section 5.1.1) in
// application/link-format: the original resource, the TimeMap itself at
// self ("" leaves its link out), and a memento per distinct set of bytes
// the source served, at the time they were first captured, whose URI is
// where the stores serve those bytes. Bytes no store serves (bytesURL
// nil or "") have no memento.
func TimeMap(original, self string, entries []store.Entry, bytesURL func(sha256 string) string) []byte {
	type memento struct {
		at   time.Time
		href string
	}
	var ms []memento
	for _, e := range entries {
		if e.NotDocument != "" || bytesURL == nil {
			continue
		}
		href := bytesURL(string(e.SHA256))
		if href == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339, e.Fetched)
		if err != nil {
			at, _ = time.Parse(time.DateOnly, e.FirstSeen)
		}
		ms = append(ms, memento{at.UTC(), href})
	}
	slices.SortStableFunc(ms, func(a, b memento) int { return a.at.Compare(b.at) })
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>; rel=\"original\"", linkTarget(original))
	if self != "" {
		fmt.Fprintf(&b, ",\n<%s>; rel=\"self\"; type=\"%s\"", linkTarget(self), TimeMapType)
		if len(ms) > 0 {
			fmt.Fprintf(&b, "; from=\"%s\"; until=\"%s\"", httpDate(ms[0].at), httpDate(ms[len(ms)-1].at))
		}
	}
	for i, m := range ms {
		rel := "memento"
		switch {
		case len(ms) == 1:
			rel = "first last memento"
		case i == 0:
			rel = "first memento"
		case i == len(ms)-1:
			rel = "last memento"
		}
		fmt.Fprintf(&b, ",\n<%s>; rel=\"%s\"; datetime=\"%s\"", linkTarget(m.href), rel, httpDate(m.at))
	}
	b.WriteString("\n")
	return []byte(b.String())
}

// linkTarget keeps a URI within its angle brackets: the manifests'
// addresses are normalised URLs, which hold no '>', but a bad one must
// not end the link early.
func linkTarget(u string) string {
	return strings.NewReplacer(">", "%3E", "<", "%3C", "\n", "", "\r", "").Replace(u)
}

func httpDate(t time.Time) string { return t.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT") }

type siteRow struct {
	ID, Title, Kind, Status, Since, Page, Legal string
}

type siteRecent struct {
	Date, ID, Title, Page, What string
}

// jurisdiction renders a jurisdiction's page: its sources and what
// changed lately.
func (b *siteBuild) jurisdiction(m manifest.Manifest, histories map[string][]change) error {
	name := JurisdictionPage(m.Jurisdiction)
	d := newDigester()
	d.add(m.Jurisdiction, m.Name)
	var rows []siteRow
	var recent []*change
	for i := range m.Sources {
		src := &m.Sources[i]
		e := b.entries[src.ID]
		row := siteRow{ID: src.ID, Title: src.Title, Kind: string(src.Kind), Status: string(e.Status), Since: e.Since, Page: siteRel(name, SourcePage(src.ID))}
		if src.Legal != nil {
			row.Legal = src.Legal.ID
		}
		rows = append(rows, row)
		d.json(row)
		for k := range histories[src.ID] {
			recent = append(recent, &histories[src.ID][k])
		}
	}
	recent = newestFirst(recent, SiteRecent)
	var lately []siteRecent
	for _, c := range recent {
		what := "changed"
		switch {
		case c.old.SHA256 == "":
			what = "first copy"
		case c.returned:
			what = "back to an earlier version"
		}
		r := siteRecent{Date: c.date, ID: c.src.ID, Title: c.src.Title, Page: siteRel(name, SourcePage(c.src.ID)), What: what}
		lately = append(lately, r)
		d.json(r)
	}
	return b.page(name, d.sum(), "jurisdiction", func() (any, error) {
		return map[string]any{
			"Page": name, "Title": m.Name + " (" + m.Jurisdiction + ")", "Name": m.Name, "Code": m.Jurisdiction,
			"Rows": rows, "Recent": lately, "Feed": siteRel(name, FeedOf(m.Jurisdiction, false)),
		}, nil
	})
}

// chart is the SVG bar chart of a host's requests per day.
type chart struct {
	Width, Height, Top, Base int
	Max                      int
	Bars                     []bar
	Ticks                    []tick
}

type bar struct {
	X, Y, W, H int
	Day        string
	N          int
}

type tick struct {
	X    int
	Text string
}

// dayChart draws n per day from the first day on: bars on a fixed scale
// whose top is the largest count, labelled with the first day of each
// week.
func dayChart(first time.Time, days []int) chart {
	const width, height, top, base = 560, 160, 16, 136
	c := chart{Width: width, Height: height, Top: top, Base: base}
	for _, n := range days {
		c.Max = max(c.Max, n)
	}
	step := width / max(len(days), 1)
	for i, n := range days {
		h := 0
		if c.Max > 0 {
			h = int(math.Round(float64(n) / float64(c.Max) * float64(base-top)))
		}
		day := first.AddDate(0, 0, i).Format(time.DateOnly)
		c.Bars = append(c.Bars, bar{X: i * step, Y: base - h, W: max(step-2, 1), H: h, Day: day, N: n})
		if i%7 == 0 {
			c.Ticks = append(c.Ticks, tick{X: i * step, Text: day[5:]})
		}
	}
	return c
}

// host renders a host's page for its operator.
func (b *siteBuild) host(h HostRules) error {
	name := HostPage(h.Host.Name)
	seen := b.seen[h.Host.Name]
	d := newDigester()
	d.json(h)
	d.json(seen)
	d.add(b.in.Report.Week, b.r.From, b.r.ProductToken, b.r.RobotsTTL.String())
	return b.page(name, d.sum(), "host", func() (any, error) {
		var hints []gate.Hint
		for _, p := range seen.Pace {
			hints = append(hints, gate.Hint{Source: p.Signal, Gap: time.Duration(math.Round(p.Seconds * float64(time.Second))), Text: p.Value})
		}
		pace := gate.PaceOf(h.Host.Delay, hints...)
		var rows []siteRow
		for _, id := range h.Sources {
			src, _ := b.in.Feed.Set.Source(id)
			rows = append(rows, siteRow{ID: id, Title: src.Title, Status: string(b.entries[id].Status), Page: siteRel(name, SourcePage(id))})
		}
		robots := seen.Robots
		if robots == "" {
			robots = "not contacted yet"
		}
		data := map[string]any{
			"Page": name, "Title": "Requests to " + h.Host.Name, "Host": h.Host, "Rules": b.r, "Rows": rows,
			"Robots": robots, "Override": h.Host.Override != nil,
			"Pace": fmtDelay(policy.Delay{Min: pace.Min, Max: pace.Max}), "PaceWhy": paceSource(pace), "FromPolicy": pace.Source == gate.FromPolicy,
			"Windows": fmtWindows(h.Host), "Week": b.in.Report.Week,
		}
		if asOf, err := b.in.Report.AsOf(time.Time{}); err == nil && b.in.Report.Week != "" && len(seen.Daily) > 0 {
			weeks := report.CompleteWeeks(asOf, len(seen.Daily)/7)
			first, _ := time.Parse(time.DateOnly, weeks[0].From)
			c := dayChart(first, seen.Daily)
			total := 0
			for _, n := range seen.Daily {
				total += n
			}
			data["Chart"], data["Total"], data["From"], data["To"] = c, total, weeks[0].From, weeks[len(weeks)-1].To
		}
		return data, nil
	})
}

// index renders the site's front page: the jurisdictions, and a search
// that works once its script runs (without it, the jurisdictions' pages
// list every source).
func (b *siteBuild) index() error {
	name := SiteDir + "/index.html"
	d := newDigester()
	type jur struct {
		Code, Name, Page string
		Sources          int
	}
	var js []jur
	for _, m := range b.in.Feed.Set.Manifests {
		j := jur{m.Jurisdiction, m.Name, siteRel(name, JurisdictionPage(m.Jurisdiction)), len(m.Sources)}
		js = append(js, j)
		d.json(j)
	}
	type hostLink struct{ Name, Page string }
	var hs []hostLink
	for _, h := range b.r.Hosts {
		hs = append(hs, hostLink{h.Host.Name, siteRel(name, HostPage(h.Host.Name))})
		d.add(h.Host.Name)
	}
	return b.page(name, d.sum(), "index", func() (any, error) {
		return map[string]any{"Page": name, "Title": "Documents and their history", "Jurisdictions": js, "Hosts": hs, "Sources": len(b.in.Feed.Set.Sources)}, nil
	})
}

// searchIndex is what the search reads: each source's id, title, legal
// identifier and jurisdiction, its page relative to the site's root.
func (b *siteBuild) searchIndex() error {
	name := SiteDir + "/search.json"
	rows := make([][4]string, 0, len(b.in.Feed.Set.Sources))
	d := newDigester()
	for _, src := range b.in.Feed.Set.Sources {
		legal := ""
		if src.Legal != nil {
			legal = src.Legal.ID
		}
		row := [4]string{src.ID, src.Title, legal, src.Jurisdiction}
		rows = append(rows, row)
		d.add(row[:]...)
	}
	return b.raw(name, d.sum(), func() ([]byte, error) {
		data, err := json.Marshal(rows)
		return append(data, '\n'), err
	})
}

// ParseSiteInputs reads the SiteInputs file of a build: the digest of
// each page's inputs, by the page's name.
func ParseSiteInputs(data []byte) (map[string]string, error) {
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w (delete it: the next build renders every page again)", SiteInputs, err)
	}
	return m, nil
}
