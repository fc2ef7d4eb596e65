package refs

import (
	"fmt"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
)

// Kinds of match, best first.
const (
	Exact      = "exact"          // the held URL itself
	Normalised = "normalised"     // the same URL after Canon
	Provision  = "same-provision" // the same provision on another host
	Edition    = "edition"        // another edition of a held document
	Inside     = "inside"         // published inside a held document
	Within     = "within"         // a part of a held whole text
	Sibling    = "sibling"        // in the same folder as a held document
	HostOnly   = "host"           // on a host the archive holds documents of
	None       = "none"           // nothing held is near it
	NoURL      = "no-url"         // the reference names no URL
	NotURL     = "not-url"        // its href is not an http(s) URL
)

// Held reports whether a kind of match means the archive holds the
// document's text: the same bytes, the same provision, another edition of
// it, or a document that contains it.
func Held(kind string) bool {
	switch kind {
	case Exact, Normalised, Provision, Edition, Inside, Within:
		return true
	}
	return false
}

// Kinds lists every kind of match, best first.
var Kinds = []string{Exact, Normalised, Provision, Edition, Inside, Within, Sibling, HostOnly, None, NoURL, NotURL}

// Version is one change in a held source's history: from Date on, the
// source served the bytes with SHA256.
type Version struct {
	Date   string // YYYY-MM-DD, UTC
	SHA256 string
}

// Source is one document the archive lists, with what it holds of it.
type Source struct {
	ID, URL, Kind, Title string
	// History is the index's, oldest first; empty while nothing is held.
	History []Version
	// Checked is the date of the last check that served the held bytes
	// ("" when the state does not say).
	Checked string
	// Text, when set, returns the held text of the newest bytes (to find
	// what a bulletin publishes).
	Text func() (string, bool)
	// Change, when set, returns the change document of the change on
	// date from the bytes from to the bytes to (sha256s of History), when
	// the record holds it: its Provisions say which provisions of a
	// whole text the change touched.
	Change func(date, from, to string) (changedoc.Doc, bool)
}

// Archive is the set of sources refs match against.
type Archive struct {
	sources []Source
	canon   []string
	docs    []Doc
	byCanon map[string][]int
	byWork  map[string][]int
	byDir   map[string][]int
	byHost  map[string][]int
}

// NewArchive indexes sources for Match.
func NewArchive(sources []Source) *Archive {
	a := &Archive{sources: sources, byCanon: map[string][]int{}, byWork: map[string][]int{}, byDir: map[string][]int{}, byHost: map[string][]int{}}
	for i, s := range sources {
		c, _ := Canon(s.URL)
		d := Describe(c)
		a.canon, a.docs = append(a.canon, c), append(a.docs, d)
		if c == "" {
			continue
		}
		a.byCanon[c] = append(a.byCanon[c], i)
		if d.Work != "" {
			a.byWork[d.Work] = append(a.byWork[d.Work], i)
		}
		a.byDir[dirOf(c)] = append(a.byDir[dirOf(c)], i)
		a.byHost[hostOf(c)] = append(a.byHost[hostOf(c)], i)
	}
	return a
}

// Sources are the archive's sources, as given.
func (a *Archive) Sources() []Source { return a.sources }

// Match is how a reference's URL relates to the archive.
type Match struct {
	Kind string `json:"kind"`
	// Source is the id of the held source matched ("" for none).
	Source string `json:"source,omitempty"`
	URL    string `json:"url,omitempty"` // the source's URL
	// How says why, in words.
	How string `json:"how,omitempty"`
	// index of the source in the archive; -1 for none.
	idx int
}

// Index is the matched source's position in Sources (-1 for none).
func (m Match) Index() int { return m.idx }

// Match finds the closest held document for href.
func (a *Archive) Match(href string) Match {
	if strings.TrimSpace(href) == "" {
		return Match{Kind: NoURL, idx: -1}
	}
	c, ok := Canon(href)
	if !ok {
		return Match{Kind: NotURL, How: "not an http(s) URL", idx: -1}
	}
	norm := strings.TrimSpace(href)
	for _, i := range a.byCanon[c] {
		if a.sources[i].URL == norm {
			return a.hit(Exact, i, "")
		}
	}
	if is := a.byCanon[c]; len(is) > 0 {
		return a.hit(Normalised, is[0], "the same URL once scheme, www., fragment, highlight parameters and host aliases are set aside")
	}
	d := Describe(c)
	if d.Work != "" {
		var edition, within, contents = -1, -1, -1
		for _, i := range a.byWork[d.Work] {
			h := a.docs[i]
			switch {
			case h.Part == d.Part && h.Edition == d.Edition && h.container == d.container:
				return a.hit(Provision, i, fmt.Sprintf("the same provision (%s) on another host", workName(d)))
			case h.Part == d.Part && h.container == d.container:
				if edition < 0 {
					edition = i
				}
			case h.container && d.Part != "" && d.Part != "contents" && !(h.bodyOnly && strings.HasPrefix(d.Part, "schedule")):
				if within < 0 {
					within = i
				}
			case (h.Part == "contents" || h.bodyOnly) && contents < 0:
				contents = i
			}
		}
		if edition >= 0 {
			return a.hit(Edition, edition, fmt.Sprintf("another edition of %s: cited %s, held %s", workName(d), editionName(d.Edition), editionName(a.docs[edition].Edition)))
		}
		if within >= 0 {
			how := fmt.Sprintf("%s is part of the held whole text of %s", d.Part, d.Work)
			if e := a.docs[within].Edition; e != d.Edition {
				how += fmt.Sprintf(" (cited %s, held %s)", editionName(d.Edition), editionName(e))
			}
			return a.hit(Within, within, how)
		}
		if strings.HasPrefix(d.Work, "usc/") {
			// A US Code section lies within its held title.
			title, sec, _ := strings.Cut(strings.TrimPrefix(d.Work, "usc/"), "/")
			for _, i := range a.byWork["usc/"+title] {
				if a.docs[i].container {
					return a.hit(Within, i, fmt.Sprintf("%s U.S.C. § %s is in the held title %s", title, sec, title))
				}
			}
		}
		if strings.HasPrefix(d.Work, "cfr/") {
			// A CFR section lies within its held part.
			title, sec, _ := strings.Cut(strings.TrimPrefix(d.Work, "cfr/"), "/")
			p, _, _ := strings.Cut(sec, ".")
			for _, i := range a.byWork["cfr/"+title+"/"+p] {
				if a.docs[i].container {
					return a.hit(Within, i, fmt.Sprintf("%s CFR %s is in the held part %s", title, sec, p))
				}
			}
		}
		if contents >= 0 {
			what := "contents page"
			if a.docs[contents].bodyOnly {
				what = "body without its schedules"
			}
			return a.hit(Sibling, contents, fmt.Sprintf("the held document is %s's %s, which does not hold the text of %s: hold the whole text (%s)", d.Work, what, d.Part, d.Whole))
		}
	}
	if d.Designation != "" {
		for i, s := range a.sources {
			if strings.Contains(s.Title, d.Designation) {
				return a.hit(Inside, i, fmt.Sprintf("%s is published inside the held document, whose title names it", d.Designation))
			}
		}
		for i, s := range a.sources {
			if s.Text == nil || len(s.History) == 0 {
				continue
			}
			if t, ok := s.Text(); ok && strings.Contains(t, d.Designation) {
				return a.hit(Inside, i, fmt.Sprintf("%s is published inside the held document, whose held text names it", d.Designation))
			}
		}
	}
	if is := a.byDir[dirOf(c)]; len(is) > 0 {
		return a.hit(Sibling, is[0], "in the same folder as the held document, not the same document")
	}
	if is := a.byHost[hostOf(c)]; len(is) > 0 {
		return a.hit(HostOnly, is[0], "on a host the archive holds other documents of")
	}
	return Match{Kind: None, idx: -1}
}

func (a *Archive) hit(kind string, i int, how string) Match {
	return Match{Kind: kind, Source: a.sources[i].ID, URL: a.sources[i].URL, How: how, idx: i}
}

func workName(d Doc) string {
	w := d.Work
	switch {
	case strings.HasPrefix(w, "usc/"):
		t, s, _ := strings.Cut(strings.TrimPrefix(w, "usc/"), "/")
		return fmt.Sprintf("%s U.S.C. § %s", t, s)
	case strings.HasPrefix(w, "cfr/"):
		t, s, _ := strings.Cut(strings.TrimPrefix(w, "cfr/"), "/")
		return fmt.Sprintf("%s CFR %s", t, s)
	case strings.HasPrefix(w, "fr/"):
		return "Federal Register document " + strings.TrimPrefix(w, "fr/")
	}
	if d.Part != "" {
		return w + " " + d.Part
	}
	return w
}

func editionName(e string) string {
	if e == "" {
		return "the current edition"
	}
	return e
}
