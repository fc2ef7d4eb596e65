package law

import (
	"net/url"
	"regexp"
	"strings"
)

// Publisher is whose legislation a text is, as its address tells.
type Publisher string

const (
	PubJusticeCanada Publisher = "laws-lois.justice.gc.ca"
	PubUK            Publisher = "legislation.gov.uk"
	PubNZ            Publisher = "legislation.govt.nz"
	PubUSCode        Publisher = "uscode.house.gov"
	PubECFR          Publisher = "ecfr.gov"
	PubGII           Publisher = "gesetze-im-internet.de"
)

// PublisherOf tells the publisher from a source's address (its host),
// "" for an address that is none of theirs.
func PublisherOf(address string) Publisher {
	u, err := url.Parse(address)
	if err != nil {
		return ""
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	switch host {
	case "laws-lois.justice.gc.ca", "laws.justice.gc.ca", "lois.justice.gc.ca":
		return PubJusticeCanada
	case "legislation.gov.uk":
		return PubUK
	case "legislation.govt.nz":
		return PubNZ
	case "uscode.house.gov", "govinfo.gov":
		return PubUSCode
	case "ecfr.gov":
		return PubECFR
	case "gesetze-im-internet.de":
		return PubGII
	}
	return ""
}

// Label patterns at the start of a line, by publisher: the number a
// provision's first line starts with, and the rest of that line.
var (
	// Justice Laws: "117 (1) …", "44.2 Interpretation".
	// A repealed range is one provision: "154 and 155", "30 to 33".
	canadaLine = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)*(?: (?:and|to) [0-9]+(?:\.[0-9]+)*)?)(?: (.*))?$`)
	// legislation.gov.uk and legislation.govt.nz: "10 Basic rate", "10A",
	// "CB 1 Income from…", or a PDF's "Section 10".
	ukLine = regexp.MustCompile(`^(?:(?:Section|Regulation|Article|Rule) )?([0-9]+[A-Z]*|[A-Z]{2} [0-9]+[A-Z]*)(?: (.*))?$`)
	// uscode: "§ 3402. Income tax collected at source"; a public law:
	// "SEC. 501. …".
	usLine = regexp.MustCompile(`^((?:§|SEC\.|Sec\.) ?[0-9]+[0-9A-Za-z\-–]*\.)(?: (.*))?$`)
	// eCFR: "§ 31.3402(f)(1)-1 Withholding exemptions.".
	ecfrLine = regexp.MustCompile(`^(§§? ?[0-9]+\.[0-9A-Za-z().\-–]+)(?: (.*))?$`)
	// Germany: "§ 32a Einkommensteuertarif", "Art 1".
	giiLine = regexp.MustCompile(`^((?:§|Art\.?|Artikel) ?[0-9]+[a-z]*)(?: (.*))?$`)
	// A schedule's heading line, after which a UK text's provisions are
	// the schedule's paragraphs.
	scheduleHeading = regexp.MustCompile(`^# (?:SCHEDULE|Schedule) ?([0-9]+[A-Z]*)?\b`)
)

// Segment cuts a legislation text (the text view of a publisher's XML,
// or the text of its HTML or PDF pages) into its provisions, by the
// publisher's own way of starting one: a line that begins with the
// provision's label. hint is the source's address: its host says the
// publisher, its path the Act (for the provisions' own addresses).
// Segment returns nil for a text whose publisher it does not know.
//
// A line whose label does not follow the one before (a line "2024 …"
// after section 117) does not start a provision, so that a figure at
// the start of a line is not taken for a section. Lines starting with
// HeadingMark end the provision before them; a heading of an Act's
// related provisions or a schedule restarts the numbering. Of the text
// view of a publisher's XML, Segment gives exactly what Read gives (New
// Zealand's provisions without their addresses). A provision's heading
// is what follows its label on its first line.
// Linear in the text.
func Segment(text, hint string) []Provision {
	pub := PublisherOf(hint)
	if pub == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	// The lines that could start a provision, and the headings that
	// number provisions anew, in order.
	var cands []candidate
	schedule := ""
	article := "" // the German article a paragraph belongs to
	// apart: past the Act's body, in its schedules and the provisions
	// of other Acts it reproduces, which have no page of their own at
	// Justice Laws.
	apart := false
	for i, line := range lines {
		if strings.HasPrefix(line, QuoteMark) {
			continue
		}
		if strings.HasPrefix(line, HeadingMark) {
			reset := restarts(line)
			apart = apart || reset
			if pub == PubUK {
				if m := scheduleHeading.FindStringSubmatch(line); m != nil {
					schedule, reset = m[1], true
					if schedule == "" {
						schedule = "1"
					}
				}
			}
			if pub == PubGII {
				// "# Art 3": an article with no text of its own, whose
				// paragraphs follow ("Art 3 § 1").
				if f := strings.Fields(strings.TrimPrefix(line, HeadingMark)); len(f) >= 2 && giiArticle.MatchString(f[0]+" "+f[1]) {
					article, reset = f[0]+" "+f[1], true
				}
			}
			if reset {
				cands = append(cands, candidate{reset: true})
			}
			continue
		}
		s, ok := startOf(pub, line, schedule)
		if !ok {
			continue
		}
		if pub == PubGII {
			if giiArticle.MatchString(s.label) {
				// An article numbers its paragraphs anew.
				article = s.label
				cands = append(cands, candidate{reset: true})
			} else if article != "" {
				s.id = article + " " + s.id
			}
		}
		s.line = i
		if pub == PubUK && schedule == "" && regulations(hint) {
			s.id = "reg. " + strings.TrimPrefix(s.id, "s. ")
		}
		if !(apart && pub == PubJusticeCanada) {
			s.address, _ = ProvisionAddress(hint, s.id)
		}
		c := candidate{s: s, first: s.id, final: s.id}
		if pub == PubJusticeCanada {
			f := strings.Fields(s.label)
			c.first, c.final = f[0], f[len(f)-1]
		}
		cands = append(cands, c)
		if pub == PubGII && giiArticle.MatchString(s.label) {
			cands = append(cands, candidate{reset: true})
		}
	}
	var starts []start
	var last *candidate
	for i := range cands {
		c := &cands[i]
		if c.reset {
			last = nil
			continue
		}
		if !after(pub, last, c) {
			continue
		}
		// A candidate the next one does not follow, where that one
		// follows the provision before, is a figure at a line's start
		// ("2024 was …" between sections 19 and 20), not a section.
		// With no next one to tell (the text's or the part's last), a
		// leap of more than maxLeap is taken for a figure too.
		out, told := false, false
		for j := i + 1; last != nil && j < len(cands) && j <= i+lookahead && !cands[j].reset; j++ {
			if cands[j].first == c.first {
				// The same number again: the one that reads most like a
				// provision's first line starts it ("5" over "5 per cent
				// of …" after it; "12 Rates" over "12 months after …"
				// before it), the first of equals.
				if startScore(cands[j].s) > startScore(c.s) {
					out, told = true, true
					break
				}
				continue
			}
			if after(pub, last, &cands[j]) {
				out, told = !after(pub, c, &cands[j]), true
				break
			}
		}
		if last != nil && !told {
			out = leap(c, last) > maxLeap || startScore(c.s) == 0 && leap(c, last) > maxSentenceLeap
		}
		if out {
			continue
		}
		last = c
		starts = append(starts, c.s)
	}
	if len(starts) == 0 {
		return nil
	}
	return assemble(lines, starts)
}

// candidate is a line that could start a provision, or (reset) a
// heading after which provisions are numbered anew.
type candidate struct {
	s     start
	first string // the label (or ID) its number is read from
	final string // the last label of a range ("154 and 155": 155)
	reset bool
}

// lookahead is how many candidates after one are read to tell whether
// it is out of the sequence: a bound, so that cutting stays linear.
const lookahead = 8

// startScore is how much a line reads like a provision's first line:
// its label alone; a subsection's "(1)" after it; a heading (no
// sentence's end); a sentence.
func startScore(s start) int {
	h := strings.TrimSpace(s.heading)
	switch {
	case h == "":
		return 3
	case strings.HasPrefix(h, "("):
		return 2
	case !strings.ContainsAny(h[len(h)-1:], ".;:,"):
		return 1
	}
	return 0
}

// maxLeap is the most a provision's number may pass the one before when
// no provision after it confirms it (sections 270 and 275 are neighbours;
// a line "2024 is the year …" after section 300 is no section 2024);
// maxSentenceLeap, when its line reads as a sentence ("90 days after …"
// after section 49).
const (
	maxLeap         = 100
	maxSentenceLeap = 5
)

// leap is how far c's first number passes last's.
func leap(c, last *candidate) int {
	a, b := numbers(c.first), numbers(last.final)
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return a[0] - b[0]
}

// after reports whether c can be the provision after last (nil: the
// first).
func after(pub Publisher, last, c *candidate) bool {
	if last == nil {
		return true
	}
	return follows(pub, numbers(c.first), numbers(last.final), c.first, last.final)
}

// restarts reports whether a heading line begins provisions numbered
// anew: another Act's provision reproduced ("— 2014, c. 20, s. 371"),
// the related provisions, amendments not in force, a schedule.
func restarts(line string) bool {
	h := strings.TrimPrefix(line, HeadingMark)
	for _, p := range []string{"— ", "RELATED PROVISIONS", "AMENDMENTS NOT IN FORCE", "SCHEDULE", "Schedule", "Anlage"} {
		if strings.HasPrefix(h, p) {
			return true
		}
	}
	return false
}

func startOf(pub Publisher, line, schedule string) (start, bool) {
	var re *regexp.Regexp
	switch pub {
	case PubJusticeCanada:
		re = canadaLine
	case PubUK, PubNZ:
		re = ukLine
	case PubUSCode:
		re = usLine
	case PubECFR:
		re = ecfrLine
	case PubGII:
		re = giiLine
	}
	m := re.FindStringSubmatch(line)
	if m == nil || strings.HasPrefix(m[2], "|") || strings.Contains(m[2], " | ") {
		// A table's row ("1987 | 1.9 | 1.9 | 3.8") is no provision.
		return start{}, false
	}
	label := line[:len(m[0])-len(m[2])]
	label = strings.TrimSuffix(label, " ")
	s := start{label: label, heading: m[2]}
	switch pub {
	case PubJusticeCanada:
		s.id = "s. " + m[1]
	case PubUK, PubNZ:
		s.id = "s. " + m[1]
		if schedule != "" {
			s.id = "Sch. " + schedule + " para. " + m[1]
		}
	case PubUSCode:
		s.id = usID(m[1])
	case PubECFR:
		s.id = ecfrLabel(m[1])
		s.label = s.id
	case PubGII:
		s.id = m[1]
	}
	return s, true
}

// numbers are the numbers of a label in order ("44.2" → 44, 2; "10ZA" →
// 10; "§ 31.3402(f)(1)-1" → 31, 3402, 1, 1).
func numbers(label string) []int {
	var out []int
	n, in := 0, false
	for i := 0; i < len(label); i++ {
		c := label[i]
		if c >= '0' && c <= '9' {
			if n < 1e8 {
				n = n*10 + int(c-'0')
			}
			in = true
			continue
		}
		if in {
			out = append(out, n)
			n, in = 0, false
		}
	}
	if in {
		out = append(out, n)
	}
	return out
}

// follows reports whether a label can be the next provision's after
// last: Justice Canada's and eCFR's numbers strictly increase (44, 44.1,
// 44.2, 45);
// elsewhere the first number does not decrease and the label differs
// (10, 10ZA, 10A, 11: the letters of inserted sections sort in no
// simple order).
func follows(pub Publisher, key, last []int, label, lastLabel string) bool {
	if last == nil {
		return true
	}
	if len(key) == 0 {
		return false
	}
	if pub == PubJusticeCanada && canadaAfter(label, lastLabel) {
		return true
	}
	if pub == PubJusticeCanada || pub == PubECFR {
		for i := 0; i < len(key) && i < len(last); i++ {
			if key[i] != last[i] {
				return key[i] > last[i]
			}
		}
		return len(key) > len(last)
	}
	return key[0] > last[0] || key[0] == last[0] && label != lastLabel
}

// canadaAfter reports whether Justice Canada's label a comes after b
// when the digits after a point are a decimal fraction (21.01, 21.02,
// 21.1, 21.11, 21.2, 22). Some Acts number on instead (153.9, 153.10),
// which follows reads as numbers.
func canadaAfter(a, b string) bool {
	ai, af, _ := strings.Cut(a, ".")
	bi, bf, _ := strings.Cut(b, ".")
	if len(ai) != len(bi) {
		return len(ai) > len(bi)
	}
	if ai != bi {
		return ai > bi
	}
	for _, p := range []*string{&af, &bf} {
		*p = strings.ReplaceAll(*p, ".", "")
	}
	for len(af) < len(bf) {
		af += "0"
	}
	for len(bf) < len(af) {
		bf += "0"
	}
	return af > bf
}

// ukDoc is a legislation.gov.uk work's path: /ukpga/2007/3/….
var ukDoc = regexp.MustCompile(`^/([a-z]+)/([0-9]{4}|[A-Za-z0-9]+/[0-9]+)/([0-9]+)(?:/|$)`)

// regulations reports whether a legislation.gov.uk address is of an
// instrument made of regulations.
func regulations(hint string) bool {
	u, err := url.Parse(hint)
	if err != nil {
		return false
	}
	m := ukDoc.FindStringSubmatch(u.Path)
	return m != nil && ukWord(m[1]) == "regulation"
}

// ukWord is what a legislation.gov.uk type calls its provisions.
func ukWord(typ string) string {
	switch typ {
	case "uksi", "ssi", "wsi", "nisr", "nisi":
		return "regulation"
	}
	return "section"
}
