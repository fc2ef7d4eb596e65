package textview

import (
	"fmt"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
)

// refDiff is Diff as it was before its diff took linear space, with
// refDiffLines and the figures found by a regular expression.
func refDiff(oldName, newName, oldText, newText string, opt DiffOptions) TextDiff {
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
	ops := refDiffLines(a, b, opt.MaxEdits)
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
	var out []string
	for _, h := range hunks(ops, opt.Context) {
		out = append(out, h.header())
		for _, o := range h.ops {
			out = append(out, string(o.Op)+o.Text)
		}
		d.Figures = append(d.Figures, refFigureChanges(h.ops)...)
	}
	// A rate repeated in a table and its notes changed once for a reader.
	seen := map[FigureChange]bool{}
	d.Figures = slices.DeleteFunc(d.Figures, func(f FigureChange) bool {
		dup := seen[f]
		seen[f] = true
		return dup
	})
	if len(out) > opt.MaxLines {
		d.Omitted = len(out) - opt.MaxLines
		out = append(out[:opt.MaxLines], fmt.Sprintf("… %d more lines", d.Omitted))
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

func refFigureChanges(ops []op) []FigureChange {
	var out []FigureChange
	var removed, added []string
	flush := func() {
		for i := 0; i < min(len(removed), len(added)); i++ {
			out = append(out, refLineFigures(removed[i], added[i])...)
		}
		removed, added = nil, nil
	}
	for _, o := range ops {
		switch o.Op {
		case '-':
			if len(added) > 0 {
				flush()
			}
			removed = append(removed, o.Text)
		case '+':
			added = append(added, o.Text)
		default:
			flush()
		}
	}
	flush()
	return out
}

func refLineFigures(oldLine, newLine string) []FigureChange {
	a, b := figurePattern.FindAllString(oldLine, -1), figurePattern.FindAllString(newLine, -1)
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

// refDiffLines is the diff this package had before its linear-space one:
// Myers' greedy algorithm keeping the whole trace of its furthest-reaching
// points, O(D²) memory. The tests hold the new diff to it: the same edit
// count, and (for the goldens) the same script.
func refDiffLines(a, b []string, maxEdits int) []op {
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
		ops = append(ops, op{Op: ' ', Text: a[i], Old: i + 1, New: i + 1})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
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
	mid, ok := refMyers(intern(ma), intern(mb), maxEdits)
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
			ops = append(ops, op{Op: ' ', Text: ma[x], Old: pre + x + 1, New: pre + y + 1})
			x++
			y++
		case '-':
			ops = append(ops, op{Op: '-', Text: ma[x], Old: pre + x + 1})
			x++
		case '+':
			ops = append(ops, op{Op: '+', Text: mb[y], New: pre + y + 1})
			y++
		}
	}
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, op{Op: ' ', Text: a[ai], Old: ai + 1, New: bi + 1})
	}
	return ops
}

func refMyers(a, b []int, maxD int) ([]byte, bool) {
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
				x = prev(d, k+1)
			} else {
				x = prev(d, k-1) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[k+d] = x
			if x >= n && y >= m {
				trace = append(trace, v)
				return refBacktrack(trace, n, m), true
			}
		}
		trace = append(trace, v)
	}
	return nil, false
}

func refBacktrack(trace [][]int, n, m int) []byte {
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
