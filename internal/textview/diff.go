package textview

import (
	"fmt"
	"hash/maphash"
	"math"
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
	// From 8192 up, a part of the texts that needs more than 4096 steps of
	// the search each way may be matched less well instead (GNU diff's
	// "too expensive" heuristic): correct again, maybe not the shortest.
	MaxEdits int
	// VerdictOnly asks Compare only whether the texts differ: no diff is
	// made (Comparison.Diff stays empty), for a caller that shows none
	// (the run, which decides whether to keep new bytes; the feed and the
	// pull request make their own diffs).
	VerdictOnly bool
	// NoFigures leaves the changed figures out of the diff (Figures, and
	// the Markdown's line of them), for a caller that shows the unified
	// diff only: the feed, whose change document has the figures.
	NoFigures bool
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

// Diff compares two normalised texts line by line (Myers' algorithm in
// linear space, after the common head and tail are set aside, as GNU diff
// does it) and renders the changed hunks.
func Diff(oldName, newName, oldText, newText string, opt DiffOptions) TextDiff {
	opt = opt.withDefaults()
	return renderDiff(oldName, newName, diffLines(splitLines(oldText), splitLines(newText), opt.MaxEdits), opt)
}

// DiffHunks is Diff and Hunks of the same two texts, compared once.
func DiffHunks(oldName, newName, oldText, newText string, opt DiffOptions) (TextDiff, []Hunk) {
	opt = opt.withDefaults()
	ops := diffLines(splitLines(oldText), splitLines(newText), opt.MaxEdits)
	return renderDiff(oldName, newName, ops, opt), hunkData(ops, opt.Context)
}

func (opt DiffOptions) withDefaults() DiffOptions {
	if opt.Context <= 0 {
		opt.Context = 2
	}
	if opt.MaxLines <= 0 {
		opt.MaxLines = 60
	}
	if opt.MaxEdits <= 0 {
		opt.MaxEdits = 5000
	}
	return opt
}

// renderDiff is the TextDiff of the edit script ops.
func renderDiff(oldName, newName string, ops []op, opt DiffOptions) TextDiff {
	var d TextDiff
	for _, o := range ops {
		switch o.Op {
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
			out = append(out, string(o.Op)+clipShown(o.Text))
		}
		lines += 1 + len(h.ops)
		if !opt.NoFigures {
			d.Figures = append(d.Figures, figureChanges(h.ops)...)
		}
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

// maxShownLine bounds the bytes of a line a diff shows: a line of
// megabytes (an Act's XML on one line) is shown by its start, and the
// rest counted, so that the diff a reader gets is no copy of the texts.
const maxShownLine = 2000

// clipShown is line cut after maxShownLine bytes (at a character's
// start), with how many bytes were left out.
func clipShown(line string) string {
	if len(line) <= maxShownLine {
		return line
	}
	cut := maxShownLine
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d more bytes on this line]", line[:cut], len(line)-cut)
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// op is one line of an edit script: ' ' kept, '-' removed, '+' added, with
// its 1-based line numbers in the old and new text, 0 on the side that
// lacks it. It is a HunkLine, so that the hunks as data are the script's
// own lines, not a copy of them: a text rewritten whole is a script of
// 400,000 lines, and one hunk of them all.
type op = HunkLine

// diffLines returns the edit script from a to b: the shortest one when it
// has at most maxEdits edits, else the differing middle (all but the common
// head and tail) removed and added whole.
//
// Its memory is linear in the lines, and so is its time but for the search
// among the lines both sides have: O((N+M)·D) at worst (see changes).
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
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ca, cb := changes(ma, mb, maxEdits)
	added := 0
	for _, c := range cb {
		if c {
			added++
		}
	}
	ops := make([]op, 0, len(a)+added)
	for i := 0; i < pre; i++ {
		ops = append(ops, op{Op: ' ', Text: a[i], Old: i + 1, New: i + 1})
	}
	// Between two kept lines, the removed lines come before the added
	// ones.
	x, y := 0, 0
	for x < len(ma) || y < len(mb) {
		if x < len(ma) && y < len(mb) && !ca[x] && !cb[y] {
			ops = append(ops, op{Op: ' ', Text: ma[x], Old: pre + x + 1, New: pre + y + 1})
			x++
			y++
			continue
		}
		for ; x < len(ma) && ca[x]; x++ {
			ops = append(ops, op{Op: '-', Text: ma[x], Old: pre + x + 1})
		}
		for ; y < len(mb) && cb[y]; y++ {
			ops = append(ops, op{Op: '+', Text: mb[y], New: pre + y + 1})
		}
	}
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, op{Op: ' ', Text: a[ai], Old: ai + 1, New: bi + 1})
	}
	return ops
}

// changes marks the lines of a and b that a shortest edit script from a to
// b removes (ca) and adds (cb), or every line when that script would have
// more than maxEdits edits. a and b have no common head or tail.
//
// It is GNU diff's way, in memory linear in the lines. A line that the
// other side does not have cannot be kept: it is marked at once and left
// out of the search (so a text rewritten line by line is mostly decided
// here, in linear time, and one with more such lines than maxEdits at
// once). The rest is Myers' linear-space refinement ("An O(ND) Difference
// Algorithm and Its Variations", 1986, section 4b): the middle snake of a
// shortest path, searched from both ends at once, splits the texts in two
// that are compared in turn. The search costs O((N+M)·D) time in the worst
// case: maxEdits bounds D; past tooExpensive steps each way, a part of the
// texts is split at the furthest point reached instead (GNU diff's "too
// expensive" heuristic), which only a maxEdits of 2·tooExpensive or more
// lets happen and which gives a correct script, though maybe not the
// shortest.
func changes(a, b []string, maxEdits int) (ca, cb []bool) {
	ca, cb = make([]bool, len(a)), make([]bool, len(b))
	all := func() ([]bool, []bool) {
		for i := range ca {
			ca[i] = true
		}
		for i := range cb {
			cb[i] = true
		}
		return ca, cb
	}
	if len(a) == 0 || len(b) == 0 {
		return all()
	}
	if len(a)+len(b) > math.MaxInt32 {
		return all()
	}
	xa, xb, sides := number(a, b)
	// The lines left for the search, and where each stands in a or b.
	discarded := 0
	keep := func(xs []int32, other uint8, changed []bool) (kept, at []int32) {
		for i, x := range xs {
			if sides[x]&other == 0 {
				changed[i] = true
				discarded++
				continue
			}
			kept = append(kept, x)
			at = append(at, int32(i))
		}
		return kept, at
	}
	ka, atA := keep(xa, inB, ca)
	kb, atB := keep(xb, inA, cb)
	sides = nil
	if discarded > maxEdits {
		return all()
	}
	s := newSearch(ka, kb)
	if !s.compare(0, len(ka), 0, len(kb), false, maxEdits-discarded) {
		return all()
	}
	for i, c := range s.ca {
		if c {
			ca[atA[i]] = true
		}
	}
	for i, c := range s.cb {
		if c {
			cb[atB[i]] = true
		}
	}
	keepEarliest(xa, ca)
	keepEarliest(xb, cb)
	return ca, cb
}

// keepEarliest keeps the same sequence of lines, each at the first line
// equal to it after the one kept before. Where a change sits next to a line
// equal to one of its own, the first of them is kept, as Myers' greedy
// search forward (this package's diff until it took linear space) keeps
// it; the search from both ends may have kept the other, an edit script as
// short but shown differently.
func keepEarliest(xs []int32, changed []bool) {
	var kept []int32
	for i, x := range xs {
		if !changed[i] {
			kept = append(kept, x)
		}
	}
	for i, x := range xs {
		changed[i] = len(kept) == 0 || x != kept[0]
		if !changed[i] {
			kept = kept[1:]
		}
	}
}

// Which sides have a line.
const (
	inA = 1 << iota
	inB
)

// number gives each line of a and b, so that the search compares ints,
// the index of its first occurrence in a then b; and says, by that number,
// which of a and b have the line (inA, inB).
func number(a, b []string) (xa, xb []int32, sides []uint8) {
	n := len(a) + len(b)
	sides = make([]uint8, n)
	// An open-addressing hash table, half full at most (a map would take
	// a lookup and an insert for each new line): each slot holds the top
	// 32 bits of a line's hash and its number + 1; 0 is empty.
	size := 1
	for size < 2*n {
		size <<= 1
	}
	slots := make([]uint64, size)
	mask := uint64(size - 1)
	seed := maphash.MakeSeed()
	line := func(x int32) string {
		if int(x) < len(a) {
			return a[x]
		}
		return b[int(x)-len(a)]
	}
	numbers := func(ls []string, first int, side uint8) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			h := maphash.String(seed, l)
			tag := h >> 32
			x := int32(first + i)
			for j := h & mask; ; j = (j + 1) & mask {
				e := slots[j]
				if e == 0 {
					slots[j] = tag<<32 | uint64(x+1)
					break
				}
				if y := int32(uint32(e) - 1); e>>32 == tag && line(y) == l {
					x = y
					break
				}
			}
			out[i] = x
			sides[x] |= side
		}
		return out
	}
	xa = numbers(a, 0, inA)
	xb = numbers(b, len(a), inB)
	return xa, xb, sides
}

// search is the state of the middle-snake search on two lists of line
// numbers: the furthest points reached on each diagonal k = x−y, forward
// (fd) and backward (bd), indexed by k+off.
type search struct {
	a, b         []int32
	ca, cb       []bool
	fd, bd       []int
	off          int
	tooExpensive int
}

func newSearch(a, b []int32) *search {
	n := len(a) + len(b) + 3
	// GNU diff's bound: about the square root of the diagonals, and at
	// least 4096.
	tooExpensive := 1
	for d := n; d != 0; d >>= 2 {
		tooExpensive <<= 1
	}
	return &search{
		a: a, b: b,
		ca: make([]bool, len(a)), cb: make([]bool, len(b)),
		fd: make([]int, n), bd: make([]int, n),
		off:          len(b) + 1,
		tooExpensive: max(tooExpensive, 4096),
	}
}

// compare marks the changed lines of a[xoff:xlim] against b[yoff:ylim],
// with no heuristic if minimal. With budget ≥ 0 it gives up, returning
// false, as soon as it is clear that they need more than budget edits.
func (s *search) compare(xoff, xlim, yoff, ylim int, minimal bool, budget int) bool {
	// The loop is the second half of each split; the first recurses.
	for {
		for xoff < xlim && yoff < ylim && s.a[xoff] == s.b[yoff] {
			xoff++
			yoff++
		}
		for xlim > xoff && ylim > yoff && s.a[xlim-1] == s.b[ylim-1] {
			xlim--
			ylim--
		}
		if xoff == xlim || yoff == ylim {
			if budget >= 0 && (xlim-xoff)+(ylim-yoff) > budget {
				return false
			}
			for ; xoff < xlim; xoff++ {
				s.ca[xoff] = true
			}
			for ; yoff < ylim; yoff++ {
				s.cb[yoff] = true
			}
			return true
		}
		p, ok := s.split(xoff, xlim, yoff, ylim, minimal, budget)
		if !ok {
			return false
		}
		s.compare(xoff, p.x, yoff, p.y, p.loMinimal, -1)
		xoff, yoff, minimal, budget = p.x, p.y, p.hiMinimal, -1
	}
}

// part is where split cuts the texts, and whether the search in each half
// must find the shortest script (no heuristic).
type part struct {
	x, y                 int
	loMinimal, hiMinimal bool
}

// split finds the point where a shortest edit script of a[xoff:xlim] and
// b[yoff:ylim] crosses the middle of its edits: the end of the forward
// path or the start of the backward one where the two first overlap. The
// ranges have no common head or tail and neither is empty. It returns
// false if the script needs more than budget edits (budget ≥ 0); past
// tooExpensive steps each way, unless minimal, it cuts at the point
// reached that got furthest instead.
func (s *search) split(xoff, xlim, yoff, ylim int, minimal bool, budget int) (part, bool) {
	a, b, fd, bd, off := s.a, s.b, s.fd, s.bd, s.off
	dmin, dmax := xoff-ylim, xlim-yoff // the diagonals of the rectangle
	fmid, bmid := xoff-yoff, xlim-ylim // where each search starts
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[off+fmid] = xoff
	bd[off+bmid] = xlim
	for c := 1; ; c++ {
		// After c steps forward the script has at least 2c−1 edits, after
		// c backward at least 2c.
		if budget >= 0 && 2*c-1 > budget {
			return part{}, false
		}
		// One more edit forward, on every other diagonal, each step a
		// removal (right) or an addition (down) and then the run of equal
		// lines after it. A removal wins a tie, as in Myers' paper.
		if fmin > dmin {
			fmin--
			fd[off+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[off+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fd[off+k-1], fd[off+k+1]
			x := hi
			if lo >= hi {
				x = lo + 1
			}
			y := x - k
			for x < xlim && y < ylim && a[x] == b[y] {
				x++
				y++
			}
			fd[off+k] = x
			if odd && bmin <= k && k <= bmax && bd[off+k] <= x {
				return part{x, y, true, true}, true
			}
		}
		if budget >= 0 && 2*c > budget {
			return part{}, false
		}
		// One more edit backward, the mirror image.
		if bmin > dmin {
			bmin--
			bd[off+bmin-1] = maxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[off+bmax+1] = maxInt
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bd[off+k-1], bd[off+k+1]
			x := hi - 1
			if lo < hi {
				x = lo
			}
			y := x - k
			for x > xoff && y > yoff && a[x-1] == b[y-1] {
				x--
				y--
			}
			bd[off+k] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[off+k] {
				return part{x, y, true, true}, true
			}
		}
		if minimal || c < s.tooExpensive {
			continue
		}
		// Too expensive: cut at the point furthest from the start forward
		// or from the end backward, whichever got further; the half
		// behind it was searched to the end, the other is not.
		fxy, fx := -1, 0
		for k := fmax; k >= fmin; k -= 2 {
			x := min(fd[off+k], xlim)
			y := x - k
			if y > ylim {
				x, y = ylim+k, ylim
			}
			if x+y > fxy {
				fxy, fx = x+y, x
			}
		}
		bxy, bx := maxInt, 0
		for k := bmax; k >= bmin; k -= 2 {
			x := max(xoff, bd[off+k])
			y := x - k
			if y < yoff {
				x, y = yoff+k, yoff
			}
			if x+y < bxy {
				bxy, bx = x+y, x
			}
		}
		if (xlim+ylim)-bxy < fxy-(xoff+yoff) {
			return part{fx, fxy - fx, true, false}, true
		}
		return part{bx, bxy - bx, false, true}, true
	}
}

const maxInt = int(^uint(0) >> 1)

// hunk is a group of an edit script's lines, and how many lines of each
// text come before it (where a side with no line in it starts).
type hunk struct {
	ops                  []op
	oldBefore, newBefore int
}

// hunks groups the changes with ctx kept lines around each; changes closer
// than 2*ctx lines share a hunk.
func hunks(ops []op, ctx int) []hunk {
	var out []hunk
	counted, oldBefore, newBefore := 0, 0, 0 // the lines of ops[:counted] on each side
	for i := 0; i < len(ops); {
		if ops[i].Op == ' ' {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].Op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].Op == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		// Hunks are more than 2*ctx lines apart: start is past the last
		// hunk's end, and the lines before it are counted once in all.
		for ; counted < start; counted++ {
			if ops[counted].Op != '+' {
				oldBefore++
			}
			if ops[counted].Op != '-' {
				newBefore++
			}
		}
		out = append(out, hunk{ops: ops[start:end:end], oldBefore: oldBefore, newBefore: newBefore})
		i = end
	}
	return out
}

// header is the "@@ -a,n +b,m @@" line of a hunk.
func (h hunk) header() string {
	oldStart, oldLines, newStart, newLines := h.span()
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", oldStart, oldLines, newStart, newLines)
}

// span is where the hunk starts in each text and how many lines of each
// it holds; a side with no line starts at the line before, as in a
// unified diff's header.
func (h hunk) span() (oldStart, oldLines, newStart, newLines int) {
	oldStart, newStart = h.oldBefore, h.newBefore
	for _, o := range h.ops {
		if o.Op != '+' {
			if oldLines == 0 {
				oldStart = o.Old
			}
			oldLines++
		}
		if o.Op != '-' {
			if newLines == 0 {
				newStart = o.New
			}
			newLines++
		}
	}
	return oldStart, oldLines, newStart, newLines
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
		if ops[i].Op == ' ' {
			i++
			continue
		}
		// A run of removed lines, then one of added lines.
		removed := i
		for i < len(ops) && ops[i].Op == '-' {
			i++
		}
		added := i
		for i < len(ops) && ops[i].Op == '+' {
			i++
		}
		for k := range min(added-removed, i-added) {
			out = append(out, lineFigures(ops[removed+k].Text, ops[added+k].Text)...)
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
