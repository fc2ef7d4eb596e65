package law

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// HeadingMark starts a line of a legislation text view that is a heading
// of the Act's structure (a Part, a Division, a schedule's title) rather
// than part of a provision: it ends the provision before it, so that a
// Part's new title is not told as a change of the section above it.
const HeadingMark = "# "

// QuoteMark starts a line of a legislation text view that an amending
// provision quotes: the text it puts in place of another ("4 (1) For the
// purposes of section 17 …" inside a schedule's item 1). Such a line
// never starts a provision, however it begins.
const QuoteMark = "> "

// start is where a provision begins in a text's lines, as a reader of the
// structured form or Segment found it.
type start struct {
	line    int // index in the lines
	label   string
	id      string
	heading string
	address string
}

// assemble cuts lines into the provisions that begin at starts (in
// order): each runs from its first line to the line before the next
// provision or the next heading line. IDs met twice in one text (an
// amending Act's section 5 in a schedule beside the Act's own) take the
// occurrence after them, "s. 5 (2)", so that every ID names one
// provision. Linear in the lines.
func assemble(lines []string, starts []start) []Provision {
	out := make([]Provision, 0, len(starts))
	seen := make(map[string]int, len(starts))
	for i, s := range starts {
		// Justice Canada heads each related or not-in-force provision of
		// another Act with that Act's citation ("— 2014, c. 20, s. 371"):
		// that citation names it.
		cited := ""
		if s.line > 0 {
			cited = lines[s.line-1]
		}
		end := len(lines)
		if i+1 < len(starts) {
			end = starts[i+1].line
		}
		for j := s.line + 1; j < end; j++ {
			if strings.HasPrefix(lines[j], HeadingMark) {
				end = j
				break
			}
		}
		body := lines[s.line+1 : end]
		id := s.id
		if m := citedHeading.FindStringSubmatch(cited); m != nil && m[2] == s.label {
			id = m[1] + ", s. " + m[2]
		}
		seen[id]++
		if n := seen[id]; n > 1 {
			id = fmt.Sprintf("%s (occurrence %d)", id, n)
		}
		out = append(out, Provision{
			ID: id, Label: s.label, Heading: s.heading, Address: s.address,
			Text:     strings.Join(lines[s.line:end], "\n"),
			Line:     s.line + 1,
			Repealed: repealed(s.heading, body),
		})
	}
	return out
}

// citedHeading is the heading of a provision of another Act that a
// consolidation reproduces: "# — 2014, c. 20, s. 371".
// The heading may cite a part of it only ("ss. 663(2), (4)"): the
// provision is still that Act's section 663.
var citedHeading = regexp.MustCompile(`^# — (.+?), ss?\. ([0-9]+(?:\.[0-9]+)*)\b`)

// repealNote is a line that only says its provision is gone: Justice
// Canada's "[Repealed, 2024, c. 17, s. 1]", legislation.gov.uk's
// "(Repealed)", New Zealand's "[Repealed]", the US Code's "Repealed.",
// Germany's "(weggefallen)" and "(aufgehoben)".
var repealNote = regexp.MustCompile(`^(?:\[|\()?(?:Repealed|Revoked|Abrogé|Abrogée|weggefallen|aufgehoben|Reserved|\[Reserved\])\b.*$`)

// repealed reports whether a provision holds only a repeal note: its
// lines say so, or its heading does and its lines hold no words (a
// German norm "§ 33 (weggefallen)" over a "-").
func repealed(heading string, body []string) bool {
	if len(body) == 0 || repealNote.MatchString(heading) && !anyWords(body) {
		return heading != "" && repealNote.MatchString(heading)
	}
	for _, l := range body {
		if !repealNote.MatchString(l) {
			return false
		}
	}
	return true
}

func anyWords(lines []string) bool {
	for _, l := range lines {
		for _, r := range l {
			if unicode.IsLetter(r) {
				return true
			}
		}
	}
	return false
}
