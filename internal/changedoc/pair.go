package changedoc

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// cellSep joins the cells of a table row in a derived text.
const cellSep = " | "

// maxLabel bounds a row label: longer leading text is prose, not a row.
const (
	maxLabelWords = 8
	maxLabelBytes = 80
)

// rowLabel is the label of a line read as a table row: its first cell
// of words (else with a word in it), for a line of cells; else the words before its
// first figure, when there are a few. "" for none.
func rowLabel(line string, figs []figure) string {
	if strings.Contains(line, cellSep) {
		// A cell of words only (a band's name) before one with figures
		// too (£0 to £12,570).
		cells := strings.Split(line, cellSep)
		for _, c := range cells {
			if c = strings.TrimSpace(c); hasLetter(c) && !strings.ContainsAny(c, "0123456789") {
				return clip(c)
			}
		}
		for _, c := range cells {
			if c = strings.TrimSpace(c); hasLetter(c) {
				return clip(c)
			}
		}
		return ""
	}
	lead := line
	if len(figs) > 0 {
		lead = line[:figs[0].start]
	}
	lead = strings.TrimRight(strings.TrimSpace(lead), " :–—-(")
	if !hasLetter(lead) || len(strings.Fields(lead)) > maxLabelWords || len(figs) == 0 {
		return ""
	}
	return clip(lead)
}

func clip(s string) string {
	if len(s) <= maxLabelBytes {
		return s
	}
	cut := strings.LastIndexByte(s[:maxLabelBytes], ' ')
	if cut <= 0 {
		cut = maxLabelBytes
		for !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut] + "…"
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// separators are the offsets of the cell separators of line, in order
// (strings.Split's cuts), nil for a line of one cell.
func separators(line string) []int {
	var at []int
	for i := 0; ; {
		k := strings.Index(line[i:], cellSep)
		if k < 0 {
			return at
		}
		at = append(at, i+k)
		i += k + len(cellSep)
	}
}

// cellOf is the index of the cell that holds byte offset at of a line
// whose separators are seps, 0 for a line of one cell.
func cellOf(seps []int, at int) int {
	return sort.Search(len(seps), func(k int) bool { return seps[k]+len(cellSep) > at })
}

// cell is cell ci of line, whose separators are seps.
func cell(line string, seps []int, ci int) string {
	from, to := 0, len(line)
	if ci > 0 {
		from = seps[ci-1] + len(cellSep)
	}
	if ci < len(seps) {
		to = seps[ci]
	}
	return line[from:to]
}

// textLines is one text of a change, split in lines, as the column
// headings read it: each line is split in cells once, and each heading
// found once, however many figures of a long row ask for it.
type textLines struct {
	// text is split into lines only when a row's heading is looked for
	// above it: the lines of a text of 200,000 lines with no table are
	// never wanted.
	text     string
	split    []string
	isSplit  bool
	seps     map[int][]int     // line index → separators, for the lines split
	headings map[[2]int]string // line index and cell → its heading
	read     *int              // bytes of lines split in cells, for the tests
}

func newTextLines(text string, read *int) *textLines {
	return &textLines{text: text, seps: map[int][]int{}, headings: map[[2]int]string{}, read: read}
}

// lines is the text's lines, split on the first call.
func (t *textLines) lines() []string {
	if !t.isSplit {
		t.split, t.isSplit = lines(t.text), true
	}
	return t.split
}

// separatorsOf is separators(lines[k]), split once.
func (t *textLines) separatorsOf(k int) []int {
	seps, ok := t.seps[k]
	if !ok {
		seps = separators(t.lines()[k])
		t.seps[k] = seps
		if t.read != nil {
			*t.read += len(t.lines()[k])
		}
	}
	return seps
}

// columnHeading is the heading of cell ci of the row at index i of the
// text: the cell ci of the nearest row above it, in the same table (the
// rows of cells just above), with as many cells, that has a word and no
// digit there.
func (t *textLines) columnHeading(i, ci int) string {
	key := [2]int{i, ci}
	if h, ok := t.headings[key]; ok {
		return h
	}
	h := t.findHeading(i, ci)
	t.headings[key] = h
	return h
}

func (t *textLines) findHeading(i, ci int) string {
	n := len(t.separatorsOf(i))
	if n == 0 {
		return ""
	}
	for k := i - 1; k >= 0 && k >= i-50; k-- {
		seps := t.separatorsOf(k)
		if len(seps) == 0 {
			return "" // the table began below
		}
		if len(seps) != n {
			continue
		}
		c := strings.TrimSpace(cell(t.lines()[k], seps, ci))
		if hasLetter(c) && !strings.ContainsAny(c, "0123456789") {
			return clip(c)
		}
	}
	return ""
}

// side is one changed line, read for figures.
type side struct {
	line  int // 1-based, in its text
	text  string
	figs  []figure
	label string
	key   string // the label folded, for pairing
	seps  []int  // its cell separators (separators)
	run   int    // the run of changed lines it is in, counted from 0
}

func read(line int, text string, dec byte) side {
	s := side{line: line, text: text, figs: scan(text, dec), seps: separators(text)}
	s.label = rowLabel(text, s.figs)
	s.key = strings.ToLower(s.label)
	return s
}

// skeleton is the line with each figure as #: two lines with the same
// skeleton say the same with other numbers.
func (s side) skeleton() string {
	var b strings.Builder
	b.Grow(len(s.text))
	at := 0
	for _, f := range s.figs {
		b.WriteString(s.text[at:f.start])
		b.WriteByte('#')
		at = f.end
	}
	b.WriteString(s.text[at:])
	return b.String()
}

// alike reports whether two lines are one line rewritten: the same
// skeleton, or at least half their words in common.
func alike(a, b side) bool {
	sa, sb := a.skeleton(), b.skeleton()
	if sa == sb {
		return true
	}
	wa, wb := words(sa), words(sb)
	if len(wa) == 0 || len(wb) == 0 {
		return len(wa) == len(wb)
	}
	common := 0
	for w := range wa {
		if wb[w] {
			common++
		}
	}
	return 2*common >= max(len(wa), len(wb))
}

// words is the set of words of s, folded to lower case.
func words(s string) map[string]bool {
	m := map[string]bool{}
	start := -1
	add := func(end int) {
		if start >= 0 {
			m[strings.ToLower(s[start:end])] = true
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r):
			if start < 0 {
				start = i
			}
		default:
			add(i)
		}
	}
	add(len(s))
	return m
}

// pairLines pairs the removed lines of a change with the added ones
// that replace them: first those with the same row label, in order (a
// row moved and changed too pairs with its own label); then, within each
// run of removed lines followed by added ones, the lines left, in order,
// where they look alike. It returns, for each removed line, the index of
// its added line or -1.
func pairLines(removed, added []side) []int {
	pair := make([]int, len(removed))
	for i := range pair {
		pair[i] = -1
	}
	byKey := map[string][]int{}
	for j, a := range added {
		if a.key != "" {
			byKey[a.key] = append(byKey[a.key], j)
		}
	}
	paired := make([]bool, len(added))
	for i, r := range removed {
		if js := byKey[r.key]; r.key != "" && len(js) > 0 {
			pair[i], paired[js[0]] = js[0], true
			byKey[r.key] = js[1:]
		}
	}
	// The lines left in each run, in order.
	var ur, ua []int
	flush := func() {
		for k := 0; k < len(ur) && k < len(ua); k++ {
			if alike(removed[ur[k]], added[ua[k]]) {
				pair[ur[k]], paired[ua[k]] = ua[k], true
			}
		}
		ur, ua = ur[:0], ua[:0]
	}
	i, j := 0, 0
	for i < len(removed) || j < len(added) {
		run := -1
		switch {
		case i < len(removed) && (j == len(added) || removed[i].run <= added[j].run):
			run = removed[i].run
		default:
			run = added[j].run
		}
		for ; i < len(removed) && removed[i].run == run; i++ {
			if pair[i] < 0 {
				ur = append(ur, i)
			}
		}
		for ; j < len(added) && added[j].run == run; j++ {
			if !paired[j] {
				ua = append(ua, j)
			}
		}
		flush()
	}
	return pair
}

// texts is the two texts of a change, for the column headings.
type texts struct{ old, new *textLines }

// figureChanges lists the figures that changed in the hunks: each pair
// of lines (pairLines) compared figure by figure, in the order of the new
// text; of a table row only one side has (a row added or removed), each
// figure on its own.
func figureChanges(hs []textview.Hunk, t texts, dec byte) []Figure {
	// Sized once: 10,000 lines a side are read from a text rewritten
	// whole, and appending would copy them again and again as it grew.
	nRemoved, nAdded := 0, 0
	for _, h := range hs {
		for _, l := range h.Lines {
			switch l.Op {
			case '-':
				nRemoved++
			case '+':
				nAdded++
			}
		}
	}
	removed, added := make([]side, 0, nRemoved), make([]side, 0, nAdded)
	run := 0
	for _, h := range hs {
		for k, l := range h.Lines {
			switch l.Op {
			case '-':
				s := read(l.Old, l.Text, dec)
				s.run = run
				removed = append(removed, s)
			case '+':
				s := read(l.New, l.Text, dec)
				s.run = run
				added = append(added, s)
			}
			if l.Op != ' ' && (k+1 == len(h.Lines) || h.Lines[k+1].Op == ' ') {
				run++
			}
		}
	}
	pair := pairLines(removed, added)
	of := make([]int, len(added)) // the removed line each added one replaces
	for j := range of {
		of[j] = -1
	}
	for i, j := range pair {
		if j >= 0 {
			of[j] = i
		}
	}
	var out []Figure
	table := func(s side) bool { return len(s.seps) > 0 }
	i := 0
	for j, a := range added {
		// The rows removed, with no line replacing them, before this one.
		for ; i < len(removed) && removed[i].run <= a.run; i++ {
			if pair[i] < 0 && table(removed[i]) {
				out = append(out, oneSided(removed[i], t.old, true)...)
			}
		}
		switch {
		case of[j] >= 0:
			out = append(out, compare(removed[of[j]], a, t)...)
		case table(a):
			out = append(out, oneSided(a, t.new, false)...)
		}
	}
	for ; i < len(removed); i++ {
		if pair[i] < 0 && table(removed[i]) {
			out = append(out, oneSided(removed[i], t.old, true)...)
		}
	}
	return out
}

// at is one side of a figure as a Figure shows it.
func at(s side, f figure) *Value {
	return &Value{Line: s.line, Text: f.text, Value: f.value, Unit: f.unit}
}

func oneSided(s side, lines *textLines, old bool) []Figure {
	var out []Figure
	for _, f := range s.figs {
		fc := Figure{Row: s.label, Column: heading(lines, s, f)}
		if old {
			fc.Old = at(s, f)
		} else {
			fc.New = at(s, f)
		}
		out = append(out, fc)
	}
	return out
}

func heading(t *textLines, s side, f figure) string {
	if len(s.seps) == 0 || s.line < 1 || s.line > len(t.lines()) {
		return ""
	}
	return t.columnHeading(s.line-1, cellOf(s.seps, f.start))
}

// compare lists the figures that differ between a line and the line that
// replaced it: cell by cell when both are rows of as many cells, else
// along the line; in each, the figures that stayed (a longest common
// sequence) anchor the others, which pair in order where as many are on
// each side between two anchors, else by unit, the rest on one side.
func compare(a, b side, t texts) []Figure {
	type cellFigs struct{ a, b []figure }
	var cells []cellFigs
	if na := len(a.seps); na > 0 && na == len(b.seps) {
		cells = make([]cellFigs, na+1)
		for _, f := range a.figs {
			c := cellOf(a.seps, f.start)
			cells[c].a = append(cells[c].a, f)
		}
		for _, f := range b.figs {
			c := cellOf(b.seps, f.start)
			cells[c].b = append(cells[c].b, f)
		}
	} else {
		cells = []cellFigs{{a.figs, b.figs}}
	}
	row := b.label
	if row == "" {
		row = a.label
	}
	var out []Figure
	emit := func(x, y *figure) {
		switch {
		case x != nil && y != nil:
			if x.text == y.text || x.value != "" && x.value == y.value && x.unit == y.unit {
				return // the same figure, maybe written otherwise
			}
		case x == nil && y == nil:
			return
		}
		fc := Figure{Row: row}
		if x != nil {
			fc.Old = at(a, *x)
			fc.Column = heading(t.old, a, *x)
		}
		if y != nil {
			fc.New = at(b, *y)
			if c := heading(t.new, b, *y); c != "" {
				fc.Column = c
			}
		}
		out = append(out, fc)
	}
	for _, c := range cells {
		alignFigures(c.a, c.b, emit)
	}
	return out
}

// maxAlign bounds the work of aligning the figures of two lines.
const maxAlign = 1 << 16

// alignFigures walks two lists of figures: the longest common sequence of
// equal texts stays; between two of those, as many on each side pair in
// order, else each old one pairs with the next new one of its unit, and
// the rest are on one side.
func alignFigures(a, b []figure, emit func(x, y *figure)) {
	n, m := len(a), len(b)
	if n*m > maxAlign {
		// A line of thousands of figures: in order, the rest on one side.
		for k := range max(n, m) {
			var x, y *figure
			if k < n {
				x = &a[k]
			}
			if k < m {
				y = &b[k]
			}
			emit(x, y)
		}
		return
	}
	// LCS lengths from the end; lines hold few figures.
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].text == b[j].text {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	gap := func(ga, gb []figure) {
		if len(ga) == len(gb) {
			for k := range ga {
				emit(&ga[k], &gb[k])
			}
			return
		}
		used := make([]bool, len(gb))
		from := 0
		for k := range ga {
			paired := false
			for j := from; j < len(gb); j++ {
				if !used[j] && gb[j].unit == ga[k].unit {
					emit(&ga[k], &gb[j])
					used[j], from, paired = true, j+1, true
					break
				}
			}
			if !paired {
				emit(&ga[k], nil)
			}
		}
		for j := range gb {
			if !used[j] {
				emit(nil, &gb[j])
			}
		}
	}
	i, j, gi, gj := 0, 0, 0, 0
	for i < n && j < m {
		switch {
		case a[i].text == b[j].text && l[i][j] == l[i+1][j+1]+1:
			gap(a[gi:i], b[gj:j])
			i, j = i+1, j+1
			gi, gj = i, j
		case l[i+1][j] >= l[i][j+1]:
			i++
		default:
			j++
		}
	}
	gap(a[gi:], b[gj:])
}
