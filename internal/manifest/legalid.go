package manifest

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// LegalID is a source's identifier in the law's own terms: the work, in
// FRBR's words, whatever URL serves it.
type LegalID struct {
	Scheme string `json:"scheme"`
	ID     string `json:"id"`
}

// The identifier schemes validate knows. A jurisdiction's own scheme is
// named "<jurisdiction>-<name>" (nz-pco, es-boe) and only checked for
// being one word.
const (
	SchemeELI     = "eli"              // European Legislation Identifier: an http(s) URI
	SchemeURNLex  = "urn-lex"          // RFC 9676: urn:lex:<jurisdiction>:<local name>
	SchemeUSLM    = "uslm"             // United States Legislative Markup path: /us/usc/t26/s1
	SchemeCELEX   = "celex"            // EUR-Lex document number: 32006L0112
	SchemeFedReg  = "federal-register" // Federal Register document number: 2013-28411
	EditionNow    = "current"
	EditionMade   = "as-enacted"
	EditionOnDate = "point-in-time"
)

var schemes = []string{SchemeELI, SchemeURNLex, SchemeUSLM, SchemeCELEX, SchemeFedReg}

// Edition is which expression of the work the URL serves: the text in
// force now (current), as first enacted or made (as-enacted), or as it
// stood on Date (point-in-time).
type Edition struct {
	Type string `json:"edition"`
	Date string `json:"date,omitempty"` // YYYY-MM-DD, point-in-time only
	// FromURL says the edition was read from the URL (the publisher pins
	// it there) rather than written in the manifest.
	FromURL bool `json:"from_url,omitempty"`
}

func (e Edition) String() string {
	if e.Date != "" {
		return e.Type + " " + e.Date
	}
	return e.Type
}

// FRBR places a held document in FRBR's four levels: the work (the legal
// identifier), the expression (the edition), the manifestation (the
// format served) and the item (the exact bytes). A level left out is not
// known.
type FRBR struct {
	Work          *LegalID       `json:"work,omitempty"`
	Expression    *Edition       `json:"expression,omitempty"`
	Manifestation *Manifestation `json:"manifestation,omitempty"`
	Item          *Item          `json:"item,omitempty"`
}

// Manifestation is the form the bytes take.
type Manifestation struct {
	MediaType string `json:"media_type"`
}

// Item is one exemplar: the bytes held, named by their hash.
type Item struct {
	SHA256 string `json:"sha256"`
}

// FRBR returns where the bytes of sum (served as contentType) sit in
// FRBR's levels; nil when neither the work nor the expression is known,
// which is what the levels add to a URL and a hash.
func (s Source) FRBR(contentType, sum string) *FRBR {
	if s.Legal == nil && s.Edition == nil {
		return nil
	}
	f := &FRBR{Work: s.Legal, Expression: s.Edition}
	if mt, _, _ := strings.Cut(contentType, ";"); strings.TrimSpace(mt) != "" {
		f.Manifestation = &Manifestation{MediaType: strings.ToLower(strings.TrimSpace(mt))}
	}
	if sum != "" {
		f.Item = &Item{SHA256: sum}
	}
	return f
}

var (
	uslmPath    = regexp.MustCompile(`^/us(/[A-Za-z0-9][A-Za-z0-9._-]*)+$`)
	uslmUSC     = regexp.MustCompile(`^/us/usc/t[0-9]+[A-Za-z]?(/|$)`)
	celexNumber = regexp.MustCompile(`^[0-9CE][0-9]{4}[A-Z]{1,2}[0-9]{4}[0-9A-Z()_.-]*$`)
	fedRegDoc   = regexp.MustCompile(`^(?:[0-9]{4}|[A-Z][0-9])-[0-9]{4,6}$`)
	// RFC 9676: "urn:lex:" then the jurisdiction code (a country or
	// organisation code, optional -subdivisions and ;units), a colon and
	// the local name (issuer:type:date;number…), without white space.
	urnLex    = regexp.MustCompile(`(?i)^urn:lex:[a-z]{2,3}(?:-[a-z0-9]+)*(?:;[a-z0-9.-]+)*:[^\s:][^\s]*$`)
	ownScheme = regexp.MustCompile(`^([a-z0-9]+)-[a-z0-9-]+$`)
	anyDate   = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// legalIDProblem says what is wrong with id under scheme in a manifest of
// jurisdiction, and what to write ("" when nothing is), and whether it
// is the scheme that is wrong rather than the identifier.
func legalIDProblem(scheme, id, jurisdiction string) (string, bool) {
	switch scheme {
	case SchemeELI:
		u, err := url.Parse(id)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Sprintf("an ELI is an http(s) URI with a path and no query or fragment, e.g. http://www.legislation.gov.uk/id/ukpga/2007/3 or http://data.europa.eu/eli/dir/2006/112/oj; %q is not one", id), false
		}
	case SchemeURNLex:
		if !urnLex.MatchString(id) {
			return fmt.Sprintf("a URN:LEX (RFC 9676) is urn:lex:<jurisdiction>:<local name>, e.g. urn:lex:it:stato:legge:2006-05-14;52; %q is not one", id), false
		}
	case SchemeUSLM:
		if !uslmPath.MatchString(id) {
			return fmt.Sprintf("a USLM identifier is a path under /us/, e.g. /us/usc/t26/s1 or /us/cfr/t26/s31.3402-1; %q is not one", id), false
		}
		if strings.HasPrefix(id, "/us/usc/") && !uslmUSC.MatchString(id) {
			return fmt.Sprintf("a US Code identifier names its title as t<number>, e.g. /us/usc/t26/s1; %q does not", id), false
		}
	case SchemeCELEX:
		if !celexNumber.MatchString(id) {
			return fmt.Sprintf("a CELEX number is a sector, a year, a type letter and a number, e.g. 32006L0112 (or 02006L0112-20240101 for a consolidated text); %q is not one", id), false
		}
	case SchemeFedReg:
		if !fedRegDoc.MatchString(id) {
			return fmt.Sprintf("a Federal Register document number is like 2013-28411 (year, dash, number); %q is not one", id), false
		}
	default:
		m := ownScheme.FindStringSubmatch(scheme)
		switch {
		case slices.Contains(schemes, strings.ToLower(scheme)):
			return fmt.Sprintf("scheme %q is written in lower case: %s", scheme, strings.ToLower(scheme)), true
		case m == nil:
			return fmt.Sprintf("unknown scheme %q; use one of %s, or the jurisdiction's own as %s-<name>, e.g. %s-gazette", scheme, strings.Join(schemes, ", "), jurisdiction, jurisdiction), true
		case m[1] != jurisdiction:
			return fmt.Sprintf("scheme %q is not %s's: a jurisdiction's own scheme starts with its jurisdiction; write %s-%s", scheme, jurisdiction, jurisdiction, strings.TrimPrefix(scheme, m[1]+"-")), true
		case strings.ContainsAny(id, " \t"):
			return fmt.Sprintf("identifier %q holds white space; an identifier is one word (as the publisher writes it, e.g. BOE-A-2006-20764)", id), false
		}
	}
	return "", false
}

// legalID reads legal_id: {scheme: S, id: I}.
func (f *file) legalID(e entry, jurisdiction string) *LegalID {
	fs, ok := f.mapping(e.val, "legal_id", []string{"scheme", "id"})
	if !ok || !f.require(e.val, fs, "legal_id", "scheme", "id") {
		return nil
	}
	scheme, okS := f.str(fs["scheme"])
	id, okI := f.str(fs["id"])
	if !okS || !okI {
		return nil
	}
	if p, ofScheme := legalIDProblem(scheme, id, jurisdiction); p != "" {
		line := fs["id"].val.Line
		if ofScheme {
			line = fs["scheme"].val.Line
		}
		f.errorf(line, "legal_id: %s", p)
		return nil
	}
	return &LegalID{Scheme: scheme, ID: id}
}

// edition reads edition: current | as-enacted | point-in-time YYYY-MM-DD.
func (f *file) edition(e entry) *Edition {
	s, ok := f.str(e)
	if !ok {
		return nil
	}
	const want = "write current, as-enacted or point-in-time YYYY-MM-DD"
	typ, date, _ := strings.Cut(s, " ")
	date = strings.TrimSpace(date)
	switch typ {
	case EditionNow, EditionMade:
		if date != "" {
			f.errorf(e.val.Line, "edition %q: only point-in-time takes a date; %s", s, want)
			return nil
		}
		return &Edition{Type: typ}
	case EditionOnDate:
		if _, err := time.Parse(time.DateOnly, date); err != nil {
			f.errorf(e.val.Line, "edition %q: point-in-time needs the date the text stood at, e.g. point-in-time 2024-04-06", s)
			return nil
		}
		return &Edition{Type: typ, Date: date}
	}
	f.errorf(e.val.Line, "unknown edition %q; %s", s, want)
	return nil
}

// legalFields reads a source's legal_id and edition and holds the edition
// to the one its URL pins, if any: it is inferred from the URL when not
// written, and one that contradicts the URL is an error.
func (f *file) legalFields(s *source, fs fields) {
	if e, ok := fs["legal_id"]; ok {
		s.Legal = f.legalID(e, s.Jurisdiction)
		if s.Legal != nil && s.Parsed != nil {
			if named := LegalIDOfURL(s.Parsed); named != nil && named.Scheme == s.Legal.Scheme && named.ID != s.Legal.ID {
				f.warnf(e.val.Line, "legal_id %s differs from the %s the URL names, %s: a copy of another source's? Write the URL's, or list the URL of %s", s.Legal.ID, named.Scheme, named.ID, s.Legal.ID)
			}
		}
	}
	var pinned *Edition
	if s.Parsed != nil {
		pinned = EditionOfURL(s.Parsed)
	}
	e, ok := fs["edition"]
	if !ok {
		s.Edition = pinned
		return
	}
	ed := f.edition(e)
	if ed == nil {
		return
	}
	if pinned != nil && (pinned.Type != ed.Type || pinned.Date != "" && pinned.Date != ed.Date) {
		f.errorf(e.val.Line, "edition %s contradicts the URL, which serves %s; remove edition (it is read from the URL) or list the URL of the %s edition", ed, pinned, ed)
		return
	}
	s.Edition = ed
}

// EditionOfURL is the edition a publisher's URL pins, nil when the URL
// does not say (or its publisher is not one known here). The rules are
// those of docs/manifests.md, "Legal identifiers and editions".
func EditionOfURL(u *url.URL) *Edition {
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	q := u.Query()
	dated := func() *Edition {
		for _, s := range segs {
			if anyDate.MatchString(s) {
				if _, err := time.Parse(time.DateOnly, s); err == nil {
					return &Edition{Type: EditionOnDate, Date: s, FromURL: true}
				}
			}
		}
		return nil
	}
	has := func(words ...string) bool {
		for _, s := range segs {
			if slices.Contains(words, s) {
				return true
			}
		}
		return false
	}
	now := &Edition{Type: EditionNow, FromURL: true}
	made := &Edition{Type: EditionMade, FromURL: true}
	switch host {
	case "legislation.gov.uk":
		// /ukpga/2007/3/enacted, /uksi/2023/38/made, /ukpga/2007/3/2024-04-06;
		// anything else is the revised text as it stands.
		switch {
		case has("enacted", "made", "created", "adopted"):
			return made
		case dated() != nil:
			return dated()
		}
		return now
	case "legislation.govt.nz":
		// /act/public/2007/97/en/latest/ or a dated version in its place;
		// the version's XML or PDF is its address with the format
		// appended (latest.xml, 2024-03-31.pdf).
		if n := len(segs); n > 0 {
			for _, format := range []string{".xml", ".pdf"} {
				if v, ok := strings.CutSuffix(segs[n-1], format); ok {
					segs[n-1] = v
				}
			}
		}
		if d := dated(); d != nil {
			return d
		}
		if has("latest") {
			return now
		}
	case "legislation.gov.au":
		// /C2004A05138/latest/text, /F2025L01060/asmade/text, or a
		// compilation's date.
		switch {
		case has("asmade"):
			return made
		case has("latest"):
			return now
		}
		return dated()
	case "irishstatutebook.ie":
		// The statute book's eli paths end …/enacted/en/html; the Law
		// Reform Commission's revised acts are kept current.
		if has("eli") && has("enacted") {
			return made
		}
	case "revisedacts.lawreform.ie":
		if has("eli") && has("revised") {
			return now
		}
	case "laws-lois.justice.gc.ca":
		// section-66-20130307.html is the section as it stood on that
		// date; every other page of a consolidated act is current.
		last := segs[len(segs)-1]
		if m := justiceDated.FindStringSubmatch(last); m != nil {
			if t, err := time.Parse("20060102", m[1]); err == nil {
				return &Edition{Type: EditionOnDate, Date: t.Format(time.DateOnly), FromURL: true}
			}
		}
		if has("acts", "regulations") {
			return now
		}
		// The whole consolidation as one file, /eng/XML/I-3.3.xml or
		// /PDF/I-3.3.pdf, is the current one; Legis.xml is the list of
		// them all, no law.
		if n := len(segs); n >= 2 && last != "Legis.xml" &&
			(segs[n-2] == "XML" && strings.HasSuffix(last, ".xml") || segs[n-2] == "PDF" && strings.HasSuffix(last, ".pdf")) {
			return now
		}
	case "boe.es":
		// buscar/act.php is the consolidated text (p=YYYYMMDD: as it stood
		// then); diario_boe/txt.php and buscar/doc.php the text as
		// published in the gazette.
		switch {
		case u.Path == "/buscar/act.php" && q.Get("p") != "":
			if t, err := time.Parse("20060102", q.Get("p")); err == nil {
				return &Edition{Type: EditionOnDate, Date: t.Format(time.DateOnly), FromURL: true}
			}
		case u.Path == "/buscar/act.php" && q.Get("id") != "":
			return now
		case (u.Path == "/diario_boe/txt.php" || u.Path == "/buscar/doc.php") && q.Get("id") != "":
			return made
		}
	case "gesetze-im-internet.de":
		// The federal ministry publishes the current text only.
		if len(segs) > 0 && segs[0] != "" {
			return now
		}
	case "ecfr.gov":
		// /current/title-26/… or /on/2024-01-01/title-26/….
		switch {
		case len(segs) > 1 && segs[0] == "on":
			return dated()
		case len(segs) > 0 && segs[0] == "current":
			return now
		}
	case "uscode.house.gov":
		// The preliminary edition is the Code as currently amended.
		if q.Get("edition") == "prelim" {
			return now
		}
	}
	return nil
}

var justiceDated = regexp.MustCompile(`^[a-z]+-[0-9A-Za-z.]+-([0-9]{8})\.html$`)

var (
	ukItem     = regexp.MustCompile(`^/([a-z]+)/([0-9]{4})/([0-9]+)(?:/|$)`)
	usCodeReq  = regexp.MustCompile(`granuleid:USC-[a-z]+-title([0-9]+[A-Za-z]?)-section([0-9A-Za-z]+)`)
	fedRegFile = regexp.MustCompile(`/FR-[0-9]{4}-[0-9]{2}-[0-9]{2}/[a-z]+/([0-9]{4}-[0-9]{5})\.[a-z]+$`)
	fedRegDocs = regexp.MustCompile(`^/documents/[0-9]{4}/[0-9]{2}/[0-9]{2}/([0-9]{4}-[0-9]{5})(?:/|$)`)
)

// LegalIDOfURL is the identifier a publisher's URL names, for the
// publishers whose addresses spell it out (legislation.gov.uk's items,
// the US Code's sections, Federal Register documents); nil for any other.
func LegalIDOfURL(u *url.URL) *LegalID {
	switch strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") {
	case "legislation.gov.uk":
		if m := ukItem.FindStringSubmatch(u.Path); m != nil {
			return &LegalID{Scheme: SchemeELI, ID: "http://www.legislation.gov.uk/id/" + m[1] + "/" + m[2] + "/" + m[3]}
		}
	case "uscode.house.gov":
		if m := usCodeReq.FindStringSubmatch(u.Query().Get("req")); m != nil {
			return &LegalID{Scheme: SchemeUSLM, ID: "/us/usc/t" + m[1] + "/s" + m[2]}
		}
	case "govinfo.gov":
		if m := fedRegFile.FindStringSubmatch(u.Path); m != nil {
			return &LegalID{Scheme: SchemeFedReg, ID: m[1]}
		}
	case "federalregister.gov":
		if m := fedRegDocs.FindStringSubmatch(u.Path); m != nil {
			return &LegalID{Scheme: SchemeFedReg, ID: m[1]}
		}
	}
	return nil
}
