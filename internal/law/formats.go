package law

import (
	"encoding/xml"
	"net/url"
	"regexp"
	"strings"
)

// Format is a structured form of legislation a reader knows.
type Format string

const (
	JusticeCanada Format = "justice-canada" // laws-lois.justice.gc.ca's XML
	CLML          Format = "clml"           // legislation.gov.uk's data.xml
	USLM          Format = "uslm"           // uscode.house.gov, govinfo
	ECFR          Format = "ecfr"           // ecfr.gov's XML
	NewZealand    Format = "nz"             // legislation.govt.nz's XML
	GII           Format = "gii"            // gesetze-im-internet.de's XML
)

const (
	nsCLML      = "http://www.legislation.gov.uk/namespaces/legislation"
	nsUSLM      = "http://xml.house.gov/schemas/uslm/1.0"
	nsUSLMGPO   = "http://schemas.gpo.gov/xml/uslm"
	nsLIMS      = "http://justice.gc.ca/lims"
	nsUSLM2Pref = "http://xml.house.gov/schemas/uslm/"
)

// formatOf tells the form from the root element.
func formatOf(root xml.StartElement) Format {
	name, ns := root.Name.Local, root.Name.Space
	hasAttr := func(local string) bool { return attr(root.Attr, local) != "" }
	declares := func(uri string) bool {
		for _, a := range root.Attr {
			if (a.Name.Space == "xmlns" || a.Name.Local == "xmlns") && strings.HasPrefix(a.Value, uri) {
				return true
			}
		}
		return false
	}
	switch {
	case (name == "Statute" || name == "Regulation") && (declares(nsLIMS) || ns == nsLIMS):
		return JusticeCanada
	case name == "Legislation" && ns == nsCLML:
		return CLML
	case ns == nsUSLM || ns == nsUSLMGPO || strings.HasPrefix(ns, nsUSLM2Pref):
		return USLM
	case name == "ECFR" || name == "CFRGRANULE" || name == "DLPSTEXTCLASS" ||
		strings.HasPrefix(name, "DIV") && len(name) == 4 && name[3] >= '1' && name[3] <= '9' && hasAttr("TYPE"):
		return ECFR
	case (name == "act" || name == "regulation") && (hasAttr("act.no") || hasAttr("sr.no") || hasAttr("year") && hasAttr("id")):
		return NewZealand
	case name == "dokumente":
		return GII
	}
	return ""
}

// spec is how a reader reads one form.
type spec struct {
	// skip: elements left out with their content (metadata);
	// skipIf decides by attributes too.
	skip   map[string]bool
	skipIf func(name string, attrs []xml.Attr) bool
	// meta: elements whose text is kept aside under a key (an Act's
	// number, for addresses); metaOnly: keys whose text is not also
	// part of the text view.
	meta     map[string]string
	metaOnly map[string]bool
	onStart  func(w *walker, name string, attrs []xml.Attr)
	// isProvision: an element (outside any provision) that is one.
	isProvision func(name string, attrs []xml.Attr) bool
	// groupHeading: an element (outside provisions) whose text is the
	// heading of the provision that follows it.
	groupHeading func(parent, name string) bool
	// label and heading: the provision's label and heading when they
	// come first in it; elsewhere a label starts a line and a heading is
	// a line, outside provisions a heading line. headBlock: elements
	// whose whole text is a heading line outside provisions.
	label, heading, headBlock map[string]bool
	block, cell               map[string]bool
	// levels: where labels and headings outside provisions make heading
	// lines (nil: anywhere); elsewhere they are text.
	levels map[string]bool
	// quote: elements of text an amendment quotes (see QuoteMark).
	quote map[string]bool
	// splitHead cuts a heading that holds the label too (eCFR's "§ 1.61-1
	// Gross income.").
	splitHead func(heading string) (label, rest string)
	// wrapLabels: labels inside a provision are printed in parentheses
	// (the XML has "1", the page "(1)").
	wrapLabels bool
	labelOf    func(label string) string
	identify   func(w *walker, label string, p *provState) (id, address string)
	// fields: elements read by name (provState.fields) before the
	// provision's text; compose makes its label and heading of them.
	fields  map[string]bool
	compose func(p *provState) (label, heading string)
}

var specs = map[Format]*spec{
	JusticeCanada: {
		skip: set("BillHistory", "RunningHead", "RecentAmendments", "ConsolidationDate",
			"EnablingAuthority", "RegulationMakerOrder", "ReaderNote", "ImageGroup", "AnnualStatuteId"),
		meta:        map[string]string{"ConsolidatedNumber": "number", "InstrumentNumber": "number"},
		metaOnly:    map[string]bool{"number": true},
		onStart:     canadaStart,
		isProvision: func(name string, _ []xml.Attr) bool { return name == "Section" },
		label:       set("Label"),
		heading:     set("MarginalNote", "TitleText"),
		headBlock:   set("Heading", "LongTitle", "ShortTitle", "ScheduleFormHeading", "Part"),
		block: set("Text", "Subsection", "Paragraph", "Subparagraph", "Clause", "Subclause", "Subsubclause",
			"Definition", "HistoricalNote", "FormulaGroup", "Formula", "FormulaText", "FormulaDefinition",
			"FormulaParagraph", "FormulaTerm", "ContinuedSectionSubsection", "ContinuedParagraph",
			"ContinuedSubparagraph", "ContinuedClause", "ContinuedDefinition", "ContinuedFormulaParagraph",
			"Provision", "List", "Item", "Footnote", "Note", "BillPiece", "AmendedText", "Repealed",
			"Schedule", "RelatedOrNotInForce", "Order", "Preamble", "Enacts", "TableGroup", "OriginatingRef"),
		cell:     set("HistoricalNoteSubItem"),
		quote:    set("AmendedText", "ReadAsText"),
		identify: canadaIdentify,
		// A section's label may carry the mark of a note ("* 55.11",
		// the note reading "* [Note: Section 55.11 in force …]"): the
		// section is 55.11.
		labelOf: func(label string) string { return strings.TrimLeft(label, "* ") },
	},
	CLML: {
		// The metadata, the contents, the editors' commentaries and
		// footnote marks, the signatures and the explanatory notes are
		// no part of the law's text.
		skip: set("Metadata", "Contents", "Commentaries", "CommentaryRef", "Versions", "Resources", "FootnoteRef",
			"Footnotes", "SignedSection", "ExplanatoryNotes", "EarlierOrders", "MadeDate", "LaidDate", "ComingIntoForce"),
		meta:        map[string]string{"identifier": "identifier"},
		isProvision: func(name string, _ []xml.Attr) bool { return name == "P1" },
		groupHeading: func(parent, name string) bool {
			return parent == "P1group" && name == "Title"
		},
		label:      set("Pnumber", "Number"),
		heading:    set("Title", "Subtitle"),
		headBlock:  set("PrimaryPrelims", "SecondaryPrelims", "LongTitle", "Pblock", "PsubBlock"),
		wrapLabels: true,
		block: set("Text", "P2", "P3", "P4", "P5", "P6", "P2para", "P3para", "P4para", "P5para", "P1para",
			"Para", "UnorderedList", "OrderedList", "ListItem", "BlockAmendment", "Formula", "Footnote",
			"DateOfEnactment", "EnactingText", "Schedule", "Part", "Chapter", "Tabular"),
		quote:    set("BlockAmendment"),
		identify: clmlIdentify,
	},
	USLM: {
		// Page breaks, margin notes and the preface are the printer's;
		// the Code's notes are the editors'.
		skip:        set("meta", "notes", "note", "toc", "layout", "page", "sidenote", "preface"),
		isProvision: func(name string, _ []xml.Attr) bool { return name == "section" },
		label:       set("num"),
		heading:     set("heading"),
		headBlock:   set("docTitle", "longTitle"),
		levels: set("title", "subtitle", "chapter", "subchapter", "part", "subpart", "division", "subdivision",
			"appropriations", "level", "article"),
		block: set("content", "chapeau", "continuation", "subsection", "paragraph", "subparagraph", "clause",
			"subclause", "item", "subitem", "sourceCredit", "quotedContent", "p", "proviso", "column"),
		quote:    set("quotedContent"),
		identify: uslmIdentify,
	},
	ECFR: {
		// The table of contents, the amendment date and the page breaks
		// are the publisher's; the authority and source notes are kept,
		// as lines of their part.
		skip: set("HEADER", "FDSYS", "CFRTOC", "AMDDATE", "PRTPAGE"),
		isProvision: func(name string, attrs []xml.Attr) bool {
			return name == "DIV8" || attr(attrs, "TYPE") == "SECTION"
		},
		onStart: func(w *walker, name string, attrs []xml.Attr) {
			if attr(attrs, "TYPE") == "TITLE" {
				w.meta["title"] = attr(attrs, "N")
			}
		},
		label:   set("SECTNO"),
		heading: set("HEAD", "SUBJECT"),
		block: set("P", "FP", "HD1", "HD2", "HD3", "EXTRACT", "NOTE", "GPOTABLE", "MATH", "FP-1", "FP-2", "EXAMPLE",
			"APPENDIX", "AUTH", "SOURCE", "CITA", "EDNOTE", "EFFDNOT", "SECAUTH", "FTNT", "PSPACE"),
		splitHead: splitSectionHead,
		identify:  ecfrIdentify,
	},
	NewZealand: {
		skip: set("history", "history-note", "notes", "end", "cover.reprint-note", "reprint-note", "amend",
			"editorial-note", "toc", "contents"),
		onStart: func(w *walker, name string, attrs []xml.Attr) {
			if len(w.stack) == 0 {
				w.meta["type"] = name
				w.meta["kind"] = attr(attrs, "act.type")
				w.meta["year"] = attr(attrs, "year")
				w.meta["no"] = attr(attrs, "act.no")
				if w.meta["no"] == "" {
					w.meta["no"] = attr(attrs, "sr.no")
				}
			}
		},
		isProvision: func(name string, _ []xml.Attr) bool { return name == "prov" },
		label:       set("label"),
		heading:     set("heading"),
		headBlock:   set("title", "long-title", "crosshead"),
		wrapLabels:  true,
		block: set("text", "para", "subprov", "label-para", "def-para", "def-term", "prov.body", "part", "subpart",
			"schedule", "quote.in", "example"),
		quote:    set("quote.in", "amend.in"),
		identify: nzIdentify,
	},
	GII: {
		skip: set("jurabk", "amtabk", "ausfertigung-datum", "fundstelle", "kurzue", "standangabe",
			"gliederungskennzahl", "fussnoten", "Footnotes", "FnR", "TOC", "Revision", "builddate"),
		isProvision: func(name string, _ []xml.Attr) bool { return name == "norm" },
		fields:      set("enbez", "titel", "langue", "gliederungsbez", "gliederungstitel"),
		compose:     giiCompose,
		// A list item's number runs on with its text ("1. bis 12 348
		// Euro …"), as the page shows it.
		label: set("DT"),
		// Sentence numbers (superscript "1", "2") are the editors' and
		// would glue digits to words.
		skipIf: func(name string, attrs []xml.Attr) bool {
			return name == "SUP" && attr(attrs, "class") == "Rec"
		},
		block: set("P", "DL", "DD", "LA", "Title", "Subtitle", "text", "Content", "row"),
		identify: func(_ *walker, label string, p *provState) (string, string) {
			if p.idPrefix != "" {
				return p.idPrefix + " " + label, ""
			}
			return label, ""
		},
	},
}

// giiArticle is an article of a German law: "Art 1", "Artikel 2".
var giiArticle = regexp.MustCompile(`^(?:Art\.?|Artikel) ?[0-9]+[a-z]*$`)

// giiCompose makes a German norm's label and heading of its metadata: a
// paragraph "§ 32a" or an article "Art 1" is a provision, headed by its
// title (a paragraph of an article is that article's: "Art 2 § 1"); an
// article with no text of its own, a part ("Abschnitt 1"), the
// enacting formula and the law's title are heading lines.
func giiCompose(p *provState) (label, heading string) {
	f := p.fields
	join := func(a, b string) string { return strings.TrimSpace(a + " " + b) }
	enbez, bez := f["enbez"], f["gliederungsbez"]
	switch {
	case strings.HasPrefix(enbez, "§") || giiArticle.MatchString(enbez):
		if giiArticle.MatchString(bez) {
			p.idPrefix = bez
		}
		return enbez, f["titel"]
	case enbez != "":
		return "", join(enbez, f["titel"])
	case giiArticle.MatchString(bez) && len(p.body) > 0:
		return bez, f["gliederungstitel"]
	case bez != "" && bez != "-":
		return "", join(bez, f["gliederungstitel"])
	}
	return "", f["langue"]
}

// canadaStart keeps what addresses need: the document's kind and
// language.
func canadaStart(w *walker, name string, attrs []xml.Attr) {
	if len(w.stack) == 0 {
		w.meta["root"] = name
		w.meta["lang"] = attr(attrs, "lang")
	}
}

// canadaIdentify: "s. 19", at
// https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html for the
// sections of an Act's or a regulation's body (a schedule's sections have
// no page of their own).
func canadaIdentify(w *walker, label string, p *provState) (string, string) {
	id := "s. " + label
	for _, a := range p.ancestors {
		if a == "Schedule" || a == "RelatedOrNotInForce" {
			return id, ""
		}
	}
	first, _, _ := strings.Cut(label, " ") // "154 and 155": the page of 154
	return id, canadaAddress(w.meta["root"] == "Regulation", w.meta["lang"] == "fr", w.meta["number"], first)
}

func canadaAddress(regulation, french bool, number, label string) string {
	if number == "" {
		return ""
	}
	number = strings.NewReplacer("/", "-", " ", "_").Replace(number)
	switch {
	case french && regulation:
		return "https://laws-lois.justice.gc.ca/fra/reglements/" + number + "/article-" + label + ".html"
	case french:
		return "https://laws-lois.justice.gc.ca/fra/lois/" + number + "/article-" + label + ".html"
	case regulation:
		return "https://laws-lois.justice.gc.ca/eng/regulations/" + number + "/section-" + label + ".html"
	}
	return "https://laws-lois.justice.gc.ca/eng/acts/" + number + "/section-" + label + ".html"
}

// clmlIdentify names a P1 by its IdURI's tail (section/10 → "s. 10",
// regulation/10 → "reg. 10", schedule/1/paragraph/3 → "Sch. 1 para. 3")
// and addresses it there; without one, by its id ("regulation-1") under
// the document's dc:identifier.
func clmlIdentify(w *walker, label string, p *provState) (string, string) {
	uri := attr(p.attrs, "IdURI")
	if uri == "" {
		uri = attr(p.attrs, "DocumentURI")
	}
	if id := attr(p.attrs, "id"); uri == "" && id != "" && w.meta["identifier"] != "" {
		uri = strings.TrimSuffix(w.meta["identifier"], "/") + "/" + strings.ReplaceAll(id, "-", "/")
	}
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "s. " + label, ""
	}
	path := strings.TrimPrefix(u.Path, "/id")
	id := ukID(path)
	if id == "" {
		id = "s. " + label
	}
	return id, "https://www.legislation.gov.uk" + path
}

// ukParts are legislation.gov.uk's provision words, as a citation
// abbreviates them.
var ukParts = map[string]string{
	"section": "s.", "regulation": "reg.", "article": "art.", "rule": "r.",
	"schedule": "Sch.", "paragraph": "para.", "part": "Pt.",
}

// ukID turns the provision part of a legislation.gov.uk path into its
// citation: /ukpga/2007/3/section/10 → "s. 10".
func ukID(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range parts {
		if _, ok := ukParts[p]; ok && i >= 3 {
			var b []string
			for j := i; j+1 < len(parts); j += 2 {
				w, ok := ukParts[parts[j]]
				if !ok {
					break
				}
				b = append(b, w+" "+parts[j+1])
			}
			return strings.Join(b, " ")
		}
	}
	return ""
}

var uslmSection = regexp.MustCompile(`^/us/usc/t([0-9A-Za-z]+)/s([0-9A-Za-z.\-–]+)$`)

// uslmIdentify: "§ 3402" for a section of the Code, at
// uscode.house.gov's page of it; "sec. 501" for a section of a public
// law ("SEC. 501.").
func uslmIdentify(_ *walker, label string, p *provState) (string, string) {
	id := usID(label)
	m := uslmSection.FindStringSubmatch(attr(p.attrs, "identifier"))
	if m == nil {
		return id, ""
	}
	return "§ " + m[2], uscodeAddress(m[1], m[2])
}

// usID is the ID of a US section by its label: "§ 3402." → "§ 3402",
// "SEC. 501." → "sec. 501".
func usID(label string) string {
	l := strings.TrimSpace(label)
	word := "§ "
	for _, p := range []string{"§", "SEC.", "Sec.", "Section"} {
		if strings.HasPrefix(l, p) {
			if p != "§" {
				word = "sec. "
			}
			l = strings.TrimPrefix(l, p)
			break
		}
	}
	return word + strings.TrimSuffix(strings.TrimSpace(l), ".")
}

func uscodeAddress(title, section string) string {
	return "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title" + title + "-section" + section + "&num=0&edition=prelim"
}

// sectionHead is eCFR's "§ 1.61-1   Gross income." (or "Sec. 1.61-1"),
// and a range of reserved sections "§§ 457.104-457.109 [Reserved]".
var sectionHead = regexp.MustCompile(`^((?:§§?|Sec\.)\s*[0-9][0-9A-Za-z.()\-–]*)\s*(.*)$`)

func splitSectionHead(h string) (string, string) {
	m := sectionHead.FindStringSubmatch(h)
	if m == nil {
		return "", h
	}
	return ecfrLabel(m[1]), m[2]
}

// ecfrLabel writes a section's number as eCFR heads it: "§ 1.61-1",
// "§§ 457.104-457.109".
func ecfrLabel(raw string) string {
	mark := "§ "
	switch {
	case strings.HasPrefix(raw, "§§"):
		mark, raw = "§§ ", strings.TrimPrefix(raw, "§§")
	case strings.HasPrefix(raw, "Sec."):
		raw = strings.TrimPrefix(raw, "Sec.")
	default:
		raw = strings.TrimPrefix(raw, "§")
	}
	return mark + strings.TrimSuffix(strings.TrimSpace(raw), ".")
}

// ecfrIdentify: "§ 31.3402(f)(1)-1", at ecfr.gov's page of the section.
func ecfrIdentify(w *walker, label string, _ *provState) (string, string) {
	return label, ecfrAddress(w.meta["title"], label)
}

// ecfrAddress is ecfr.gov's page of a section of a title ("" for a
// range of sections, which has none).
func ecfrAddress(title, label string) string {
	if title == "" || !strings.HasPrefix(label, "§ ") {
		return ""
	}
	return "https://www.ecfr.gov/current/title-" + title + "/section-" + strings.TrimPrefix(label, "§ ")
}

// nzIdentify: "s. 10" ("r. 10" in regulations), at
// legislation.govt.nz's page of the provision.
func nzIdentify(w *walker, label string, p *provState) (string, string) {
	id := "s. " + label
	if w.meta["type"] == "regulation" {
		id = "r. " + label
	}
	pid := attr(p.attrs, "id")
	if pid == "" || w.meta["year"] == "" || w.meta["no"] == "" {
		return id, ""
	}
	kind := w.meta["kind"]
	if kind == "" {
		kind = "public"
	}
	typ := "act/" + kind
	if w.meta["type"] == "regulation" {
		typ = "regulation/public"
	}
	no := w.meta["no"]
	for len(no) < 4 {
		no = "0" + no
	}
	return id, "https://www.legislation.govt.nz/" + typ + "/" + w.meta["year"] + "/" + no + "/latest/" + pid + ".html"
}
