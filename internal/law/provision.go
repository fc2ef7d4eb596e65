package law

import (
	"strconv"
	"strings"
)

// Provision is one provision of a legislative text: a section, a
// regulation, a paragraph of the US Code.
type Provision struct {
	// ID names the provision stably across consolidations: its label
	// path in the form a citation writes it ("s. 113", "s. 44.2",
	// "reg. 10", "§ 3402", "§ 32a"), so the same provision in two
	// versions, and a reference's citation of it, compare equal.
	ID string
	// Label is the label as the text writes it at the start of the
	// provision's first line ("113", "44.2", "Section 10", "§ 32a").
	Label string
	// Heading is the provision's heading or marginal note, if any.
	Heading string
	// Address is the publisher's own URL for the provision, where it has
	// one (…/section-117.html, …/section/10); empty otherwise.
	Address string
	// Text is the provision's text as the text view writes it, lines
	// joined by "\n", its first line starting with Label.
	Text string
	// Line is the line of the text view (from 1) that the provision
	// begins on, so a figure found in Text can be placed in the whole
	// text.
	Line int
	// Repealed says the text holds only a repeal note ("[Repealed, 2019,
	// c. 29, s. 10]"): the provision exists as a label, not as law.
	Repealed bool
}

// The kinds of a provision's change.
const (
	Amended  = "amended"
	Added    = "added"
	Repealed = "repealed"
)

// Covers says whether the provision named id is, or includes, the one
// named cited: the same ID, or a group a consolidation prints under one
// label ("s. 154 and 155", "s. 168 to 186") that holds cited's label, so
// that a reference to section 170 is matched to the change of
// "s. 168 to 186".
func Covers(id, cited string) bool {
	if id == cited {
		return true
	}
	kind, labels, ok := strings.Cut(id, " ")
	ckind, label, cok := strings.Cut(cited, " ")
	if !ok || !cok || kind != ckind {
		return false
	}
	if lo, hi, ok := strings.Cut(labels, " to "); ok {
		l, okl := labelKey(lo)
		h, okh := labelKey(hi)
		c, okc := labelKey(label)
		return okl && okh && okc && !c.less(l) && !h.less(c)
	}
	for _, member := range strings.Split(labels, " and ") {
		if strings.TrimSpace(member) == label {
			return true
		}
	}
	return false
}

// key is a numeric label as consolidations number sections: 44 before
// 44.1 before 44.2 before 45.
type key []int

func labelKey(s string) (key, bool) {
	var k key
	for part := range strings.SplitSeq(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return nil, false
		}
		k = append(k, n)
	}
	return k, len(k) > 0
}

func (a key) less(b key) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}
