package edition

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// Page is the held copy of a listed source, as the finder reads it: the
// links it carries, each where it stands.
type Page struct {
	Source string // the id of the listed source whose copy this is
	SHA256 string
	Date   string // the day the copy was first held, YYYY-MM-DD
	Links  []Link
}

// Link is an address a held page names: an HTML link, resolved against
// the address the page was served from, or an address written in its
// text.
type Link struct {
	URL string
	// Text is what the page says with it: a link's text, or the line of
	// text the address is written in.
	Text string
	Line int // the line of the page (its HTML source, or its text) it is on
}

// Proposal is a listed source's next edition, found on a held page: the
// source stays as it is (its year's figures are still cited), and the
// next edition is proposed as a source of its own beside it.
type Proposal struct {
	Source       manifest.Source // the listed source
	URL          string          // the next edition's address
	ID, Title    string          // proposed for the new source
	Year         int             // the newest year the new address names
	Evidence     Evidence
	RegisterText bool // the successor was told by its link's title (a register id)
}

// Evidence is where a proposal was read: a held page and its line.
type Evidence struct {
	Source string // the id of the listed source whose held copy names it
	SHA256 string
	Date   string
	Line   int
	Text   string // the link's text or the line, at most maxEvidenceText bytes
}

// Bounds: a page's links read, and the text of a link kept as evidence.
const (
	MaxLinks        = 20000
	maxEvidenceText = 200
)

// series is the listed sources of one address pattern: the newest is the
// one a later address must pass.
type series struct {
	newest   *manifest.Source
	marks    []Mark
	register bool // the address's edition is a register id
}

// registered says whether marks hold a register id.
func registered(marks []Mark) bool {
	for _, m := range marks {
		if m.Form == RegisterID {
			return true
		}
	}
	return false
}

var siteBuilderVersion = regexp.MustCompile(`([?&]v=)[0-9]+`)

// seriesKey is the key of an address's series: its pattern and, for a
// register id, the pattern of its title (every instrument of the
// register shares the address's).
func seriesKey(u string, marks []Mark, title string) string {
	key := Key(u, marks)
	if strings.Contains(key, "__blob=publicationFile") {
		// The Government Site Builder of the German federal sites (the
		// BMF's) numbers each file's versions in v=: each edition has its
		// own, and it names no edition.
		key = siteBuilderVersion.ReplaceAllString(key, "${1}\x00")
	}
	if registered(marks) {
		title = strings.Join(strings.Fields(title), " ")
		key += "\x01" + Key(title, Marks(title))
	}
	return key
}

// Subject says whether src's address names its edition, and the marks
// that do. Years in the address of a law or a gazette (ukpga/2007/3,
// eli/2024/act/43, a gazette's issue date) name the work, not an edition
// that a later one replaces, so of those only a register id counts: a
// remade instrument's successor is told by its title.
func Subject(src manifest.Source) ([]Mark, bool) {
	marks := Marks(src.URL)
	if len(marks) == 0 {
		return nil, false
	}
	if src.Kind == manifest.Legislation || src.Kind == manifest.Gazette {
		for _, m := range marks {
			if m.Form != RegisterID {
				return nil, false
			}
		}
	}
	return marks, true
}

// seriesOf groups the subjects of set by address pattern.
func seriesOf(set *manifest.Set) map[string]*series {
	all := map[string]*series{}
	for i := range set.Sources {
		src := &set.Sources[i]
		marks, ok := Subject(*src)
		if !ok {
			continue
		}
		key := seriesKey(src.URL, marks, src.Title)
		s := all[key]
		if s == nil {
			s = &series{register: registered(marks)}
			all[key] = s
		}
		if s.newest == nil || later(marks, s.marks) {
			s.newest, s.marks = src, marks
		}
	}
	return all
}

// Find proposes the next edition of each listed source whose address
// names its edition, from what the held pages link to: an address of the
// same pattern (only the edition differs) that names a later edition, not
// listed already. Of a register id, whose numbers are shared by every
// instrument, the link's text must also be the source's title, its year
// moved on or not. Only pages of listed sources count; the newest
// candidate of each pattern is proposed, the first page (by source id)
// and line naming it as evidence. Find reads nothing but its arguments:
// linear in the sources and links.
func Find(set *manifest.Set, pages []Page) []Proposal {
	all := seriesOf(set)
	if len(all) == 0 {
		return nil
	}
	listed := make(map[string]bool, len(set.Sources))
	ids := make(map[string]bool, len(set.Sources))
	for _, src := range set.Sources {
		listed[src.URL] = true
		ids[src.ID] = true
	}
	pages = slices.Clone(pages)
	slices.SortStableFunc(pages, func(a, b Page) int { return strings.Compare(a.Source, b.Source) })
	type candidate struct {
		url   string
		marks []Mark
		link  Link
		page  *Page
	}
	best := map[*series]*candidate{}
	for p := range pages {
		page := &pages[p]
		if !ids[page.Source] {
			continue // only what a listed source served is read
		}
		for _, l := range page.Links[:min(len(page.Links), MaxLinks)] {
			u, err := manifest.NormalizeURL(l.URL)
			if err != nil || listed[u] {
				continue
			}
			marks := Marks(u)
			if len(marks) == 0 {
				continue
			}
			s := all[seriesKey(u, marks, l.Text)]
			if s == nil || !later(marks, s.marks) || s.register && !titled(l.Text, s) {
				continue
			}
			if c := best[s]; c != nil && !later(marks, c.marks) {
				continue
			}
			best[s] = &candidate{url: u, marks: marks, link: l, page: page}
		}
	}
	var out []Proposal
	for _, s := range slices.SortedFunc(maps.Keys(best), func(a, b *series) int {
		return cmp.Or(strings.Compare(a.newest.Jurisdiction, b.newest.Jurisdiction), strings.Compare(a.newest.ID, b.newest.ID))
	}) {
		c := best[s]
		src := *s.newest
		years := newest(c.marks) - newest(s.marks)
		p := Proposal{
			Source: src, URL: c.url, Year: newest(c.marks), RegisterText: s.register,
			Evidence: Evidence{Source: c.page.Source, SHA256: c.page.SHA256, Date: c.page.Date, Line: c.link.Line, Text: clip(c.link.Text)},
		}
		p.Title = Shift(src.Title, years)
		if s.register {
			p.Title = strings.Join(strings.Fields(c.link.Text), " ")
		}
		p.ID = newID(src.ID, years, moved(c.url, c.marks, s.marks), ids)
		ids[p.ID] = true
		out = append(out, p)
	}
	return out
}

// titled says whether a link's text, s's title by its pattern, names
// the same or a later year: a remade instrument is not an older one.
func titled(text string, s *series) bool {
	return newest(Marks(strings.Join(strings.Fields(text), " "))) >= newest(Marks(s.newest.Title))
}

// newID is the id proposed for the next edition of id: its years moved
// on, else id and what moved in the address (a CRA issue's 7-25, a
// register id); never one taken.
func newID(id string, years int, what string, taken map[string]bool) string {
	next := Shift(id, years)
	if next == id || years == 0 {
		next = id + "-" + what
	}
	for n, base := 2, next; taken[next]; n++ {
		next = base + "-" + strconv.Itoa(n)
	}
	return next
}

// moved is the first mark of u that moved on from was's, as an id
// writes it: lower case, letters, digits and hyphens.
func moved(u string, marks, was []Mark) string {
	for i, m := range marks {
		if m.Later(was[i]) {
			return strings.Map(func(r rune) rune {
				switch {
				case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
					return r
				case 'A' <= r && r <= 'Z':
					return r - 'A' + 'a'
				}
				return '-'
			}, u[m.Start:m.End])
		}
	}
	return "next"
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxEvidenceText {
		return s
	}
	cut := maxEvidenceText
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
