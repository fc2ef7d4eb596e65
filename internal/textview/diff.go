package textview

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
)

// DiffOptions shape a Diff. Zero fields take the defaults.
type DiffOptions struct {
	// Context is the number of unchanged lines shown around a change
	// (default 2).
	Context int
	// MaxLines caps the lines of the diff shown (default 60); the rest is
	// counted in "… N more lines".
	MaxLines int
	// MaxEdits bounds the work of the line matching (default 5000 edits):
	// past it the differing middle of the two texts is shown as removed and
	// added whole, which is still a correct diff, only not the shortest.
	MaxEdits int
}

// TextDiff is the difference between two normalised texts.
type TextDiff struct {
	// Unified is the unified diff: "---"/"+++" names, "@@" hunks with
	// Context lines around each change, cut after MaxLines lines with a
	// "… N more lines" line.
	Unified string
	// Markdown is Unified in a ```diff block (which GitHub colours), then a
	// line of the figures that changed, e.g. "Changed figures: **£37,700**
	// → **£37,500**". Empty when nothing changed.
	Markdown string
	// Figures lists the changed figures, old → new, in the order met,
	// each pair once.
	Figures []FigureChange
	// Added and Removed count the changed lines; Omitted the diff lines
	// cut by MaxLines.
	Added, Removed, Omitted int
}

// Changed reports whether the texts differ.
func (d TextDiff) Changed() bool { return d.Added+d.Removed > 0 }

// FigureChange is a number that changed on a changed line. Old or New is
// empty for a number that only one side has.
type FigureChange struct {
	Old, New string
}

// Diff compares two normalised texts line by line (Myers' algorithm, after
// the common head and tail are set aside) and renders the changed hunks.
func Diff(oldName, newName, oldText, newText string, opt DiffOptions) TextDiff {
	if opt.Context <= 0 {
		opt.Context = 2
	}
	if opt.MaxLines <= 0 {
		opt.MaxLines = 60
	}
	if opt.MaxEdits <= 0 {
		opt.MaxEdits = 5000
	}
	a, b := splitLines(oldText), splitLines(newText)
	ops := diffLines(a, b, opt.MaxEdits)
	var d TextDiff
	for _, o := range ops {
		switch o.kind {
		case '-':
			d.Removed++
		case '+':
			d.Added++
		}
	}
	if !d.Changed() {
		return d
	}
	// Only the lines shown are rendered; the rest are counted.
	var out []string
	lines := 0
	for _, h := range hunks(ops, opt.Context) {
		if lines < opt.MaxLines {
			out = append(out, h.header())
		}
		for _, o := range h.ops[:max(0, min(len(h.ops), opt.MaxLines-lines-1))] {
			out = append(out, string(o.kind)+o.text)
		}
		lines += 1 + len(h.ops)
		d.Figures = append(d.Figures, figureChanges(h.ops)...)
	}
	// A rate repeated in a table and its notes changed once for a reader.
	seen := map[FigureChange]bool{}
	d.Figures = slices.DeleteFunc(d.Figures, func(f FigureChange) bool {
		dup := seen[f]
		seen[f] = true
		return dup
	})
	if lines > opt.MaxLines {
		d.Omitted = lines - opt.MaxLines
		out = append(out, fmt.Sprintf("… %d more lines", d.Omitted))
	}
	d.Unified = fmt.Sprintf("--- %s\n+++ %s\n%s\n", oldName, newName, strings.Join(out, "\n"))

	var md strings.Builder
	md.WriteString(markdown.Fence("diff", strings.Join(out, "\n")))
	if len(d.Figures) > 0 {
		parts := make([]string, len(d.Figures))
		for i, f := range d.Figures {
			switch {
			case f.Old == "":
				parts[i] = "new **" + markdown.Text(f.New) + "**"
			case f.New == "":
				parts[i] = "**" + markdown.Text(f.Old) + "** removed"
			default:
				parts[i] = "**" + markdown.Text(f.Old) + "** → **" + markdown.Text(f.New) + "**"
			}
		}
		fmt.Fprintf(&md, "\nChanged figures: %s\n", strings.Join(parts, ", "))
	}
	d.Markdown = md.String()
	return d
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// op is one line of an edit script: ' ' kept, '-' removed, '+' added, with
// its 1-based line numbers in the old and new text.
type op struct {
	kind       byte
	text       string
	aLine, bLn int
}

// diffLines returns the edit script from a to b.
func diffLines(a, b []string, maxEdits int) []op {
	// Common head and tail: most changes of a page are a few lines.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', a[i], i + 1, i + 1})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	// Lines as numbers, so the inner loop compares ints.
	ids := map[string]int{}
	intern := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	mid, ok := myers(intern(ma), intern(mb), maxEdits)
	if !ok {
		mid = nil
		for range ma {
			mid = append(mid, '-')
		}
		for range mb {
			mid = append(mid, '+')
		}
	}
	x, y := 0, 0
	for _, k := range mid {
		switch k {
		case ' ':
			ops = append(ops, op{' ', ma[x], pre + x + 1, pre + y + 1})
			x++
			y++
		case '-':
			ops = append(ops, op{'-', ma[x], pre + x + 1, pre + y})
			x++
		case '+':
			ops = append(ops, op{'+', mb[y], pre + x, pre + y + 1})
			y++
		}
	}
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, op{' ', a[ai], ai + 1, bi + 1})
	}
	return ops
}

// myers returns the shortest edit script from a to b as a string of ' ',
// '-' and '+', or false when it needs more than maxD edits.
func myers(a, b []int, maxD int) ([]byte, bool) {
	n, m := len(a), len(b)
	var trace [][]int // trace[d][k+d]: furthest x on diagonal k after d edits
	prev := func(d, k int) int {
		if d == 0 {
			return 0
		}
		return trace[d-1][k+d-1]
	}
	for d := 0; d <= n+m; d++ {
		if d > maxD {
			return nil, false
		}
		v := make([]int, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && prev(d, k-1) < prev(d, k+1)) {
				x = prev(d, k+1) // down: an insertion
			} else {
				x = prev(d, k-1) + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[k+d] = x
			if x >= n && y >= m {
				trace = append(trace, v)
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, v)
	}
	return nil, false // not reached: d = n+m always ends
}

func backtrack(trace [][]int, n, m int) []byte {
	var rev []byte
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		k := x - y
		pv := trace[d-1]
		at := func(k int) int { return pv[k+d-1] }
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, ' ')
			x--
			y--
		}
		if x == px {
			rev = append(rev, '+')
			y--
		} else {
			rev = append(rev, '-')
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, ' ')
		x--
		y--
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

type hunk struct{ ops []op }

// hunks groups the changes with ctx kept lines around each; changes closer
// than 2*ctx lines share a hunk.
func hunks(ops []op, ctx int) []hunk {
	var out []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		out = append(out, hunk{ops[start:end]})
		i = end
	}
	return out
}

// header is the "@@ -a,n +b,m @@" line of a hunk.
func (h hunk) header() string {
	var na, nb int
	aStart, bStart := 0, 0
	for _, o := range h.ops {
		if o.kind != '+' {
			if na == 0 {
				aStart = o.aLine
			}
			na++
		}
		if o.kind != '-' {
			if nb == 0 {
				bStart = o.bLn
			}
			nb++
		}
	}
	if na == 0 {
		aStart = h.ops[0].aLine
	}
	if nb == 0 {
		bStart = h.ops[0].bLn
	}
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", aStart, na, bStart, nb)
}

// nextFigure returns the bounds of the first figure in s at or after i, or
// -1, -1. A figure is a number as a page writes it: an optional currency
// sign, digits with thousands separators or decimals, an optional per
// cent; as the pattern [£$€¥]?\d+(?:[.,]\d+)*%? finds them, leftmost
// first, without a regular expression's cost on a long text.
func nextFigure(s string, i int) (int, int) {
	for ; i < len(s); i++ {
		if !figureStart[s[i]] {
			continue
		}
		j := i
		switch {
		case s[i] == '$':
			j++
		case strings.HasPrefix(s[i:], "£"), strings.HasPrefix(s[i:], "¥"), strings.HasPrefix(s[i:], "€"):
			_, size := utf8.DecodeRuneInString(s[i:])
			j += size
		}
		if j == len(s) || !isDigit(s[j]) {
			continue
		}
		j = skipDigits(s, j)
		for j+1 < len(s) && (s[j] == '.' || s[j] == ',') && isDigit(s[j+1]) {
			j = skipDigits(s, j+1)
		}
		if j < len(s) && s[j] == '%' {
			j++
		}
		return i, j
	}
	return -1, -1
}

// figureStart has the bytes a figure can begin with: a digit, $, and the
// first byte of £, ¥ and € in UTF-8.
var figureStart = func() (t [256]bool) {
	for _, s := range []string{"$", "£", "¥", "€"} {
		t[s[0]] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	return t
}()

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// figures lists the figures of s in order.
func figures(s string) []string {
	var out []string
	for i := 0; ; {
		start, end := nextFigure(s, i)
		if start < 0 {
			return out
		}
		out = append(out, s[start:end])
		i = end
	}
}

// figureChanges pairs the removed and added lines of a hunk, in order, and
// lists the numbers that differ between the two lines of each pair.
func figureChanges(ops []op) []FigureChange {
	var out []FigureChange
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A run of removed lines, then one of added lines.
		removed := i
		for i < len(ops) && ops[i].kind == '-' {
			i++
		}
		added := i
		for i < len(ops) && ops[i].kind == '+' {
			i++
		}
		for k := range min(added-removed, i-added) {
			out = append(out, lineFigures(ops[removed+k].text, ops[added+k].text)...)
		}
	}
	return out
}

func lineFigures(oldLine, newLine string) []FigureChange {
	// Most changed lines keep their figures: the common case allocates
	// nothing.
	for i, j := 0, 0; ; {
		as, ae := nextFigure(oldLine, i)
		bs, be := nextFigure(newLine, j)
		if as < 0 && bs < 0 {
			return nil
		}
		if as < 0 || bs < 0 || oldLine[as:ae] != newLine[bs:be] {
			break
		}
		i, j = ae, be
	}
	a, b := figures(oldLine), figures(newLine)
	var out []FigureChange
	if len(a) == len(b) {
		for i := range a {
			if a[i] != b[i] {
				out = append(out, FigureChange{a[i], b[i]})
			}
		}
		return out
	}
	// Numbers came or went: list those only one side has.
	count := func(xs []string) map[string]int {
		m := map[string]int{}
		for _, x := range xs {
			m[x]++
		}
		return m
	}
	inA, inB := count(a), count(b)
	for _, x := range a {
		if inB[x] > 0 {
			inB[x]--
			continue
		}
		out = append(out, FigureChange{Old: x})
	}
	for _, x := range b {
		if inA[x] > 0 {
			inA[x]--
			continue
		}
		out = append(out, FigureChange{New: x})
	}
	return out
}
