package textview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ledongthuc/pdf"
)

// extractPDF writes the text of each page, in reading order, under a
// "[page N]" line. The library gives glyphs with their positions; the
// layout (lines, table cells, columns) is rebuilt here from those.
//
// A file the reader refuses, fails on, or finds no pages in is read once
// more with its cross-reference rebuilt (repairPDF); when that gives no
// text either, the first failure is what is said.
func extractPDF(ctx context.Context, raw []byte, maxPages int, out *lines) error {
	pages, err, p := readPDF(ctx, raw, maxPages, out)
	if p == nil && (err == nil || pages > 0 || !errors.Is(err, errNoText) && !errors.Is(err, errOpen)) {
		return err
	}
	if fixed, ok := repairPDF(raw); ok && ctx.Err() == nil {
		out.reset()
		_, err2, p2 := readPDF(ctx, fixed, maxPages, out)
		if p2 == nil && (err2 == nil || !errors.Is(err2, errNoText) && !errors.Is(err2, errOpen)) {
			return err2
		}
		out.reset()
	}
	if p != nil {
		panic(p)
	}
	return err
}

// errOpen is the built-in reader refusing a file.
var errOpen = errors.New("open PDF")

// readPDF is one reading of raw by the built-in reader: the pages it
// found, how it ended, and what it panicked with (damaged input makes the
// library panic).
//
//lint:ignore ST1008 the panic is not an error, and comes after it
func readPDF(ctx context.Context, raw []byte, maxPages int, out *lines) (pageCount int, err error, panicked any) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errOpen, err), nil
	}
	// The library's Page(i) walks the page tree from the root, resolving
	// every page before i: quadratic on the flat trees writers produce.
	// The tree is walked once here instead.
	var pages []pdfLeaf
	budget := 4*maxPages + 64
	more := collectPages(r.Trailer().Key("Root").Key("Pages"), 0, 0, maxPages+1, &budget, &pages)
	n, glyphs := len(pages), 0
	for i, pg := range pages {
		if err := ctx.Err(); err != nil {
			return n, err, nil
		}
		if i >= maxPages {
			return n, errPageLimit, nil
		}
		if err := out.add(fmt.Sprintf("[page %d]", i+1)); err != nil {
			return n, err, nil
		}
		text := pdf.Page{V: pg.v}.Content().Text
		glyphs += len(text)
		for _, l := range layoutPage(text, pg.width) {
			if err := out.add(l); err != nil {
				return n, err, nil
			}
		}
	}
	if more {
		return n, errPageLimit, nil
	}
	if glyphs == 0 {
		return n, fmt.Errorf("%w: %d page(s) without any text; a scanned document has images only (no OCR is done)", errNoText, n), nil
	}
	return n, nil, nil
}

// pdfLeaf is a leaf of the page tree and the width of its MediaBox, which
// it may inherit from its parents (0 when there is none).
type pdfLeaf struct {
	v     pdf.Value
	width float64
}

// collectPages appends the leaves of a page tree, in order, up to limit;
// it reports whether it stopped at the limit. Depth and the number of nodes
// visited (budget) are bounded, so a tree whose Kids loop back ends, even
// one that names its own node twice (2^depth paths).
func collectPages(node pdf.Value, width float64, depth, limit int, budget *int, pages *[]pdfLeaf) bool {
	if *budget--; *budget < 0 {
		return true
	}
	if depth > 64 || node.IsNull() {
		return false
	}
	if w := boxWidth(node.Key("MediaBox")); w > 0 {
		width = w
	}
	if node.Key("Type").Name() == "Page" || node.Key("Kids").IsNull() {
		if len(*pages) >= limit {
			return true
		}
		*pages = append(*pages, pdfLeaf{node, width})
		return false
	}
	kids := node.Key("Kids")
	for i := 0; i < kids.Len(); i++ {
		if collectPages(kids.Index(i), width, depth+1, limit, budget, pages) {
			return true
		}
	}
	return false
}

func boxWidth(box pdf.Value) float64 {
	if box.Len() != 4 {
		return 0
	}
	return math.Abs(box.Index(2).Float64() - box.Index(0).Float64())
}

// run is text set in one go on one baseline: a word, a phrase, a cell.
type run struct {
	x0, x1, y, size float64
	text            strings.Builder
}

// segment is the text of a line between two wide gaps: a table cell, or
// one column's part of the line.
type segment struct {
	x0, x1 float64
	text   string
}

// Gaps between runs on a line, in units of the font size: below spaceGap
// the runs touch; below cellGap they are words apart; beyond, they are
// separate cells or columns.
const (
	spaceGap = 0.1
	cellGap  = 1.0
)

// runs joins glyphs, in content-stream order, into runs: consecutive glyphs
// on one baseline that follow each other closely. A glyph without a width
// (a standard font without /Widths) keeps the X of its string, so glyphs at
// the very same place are one string.
func runs(glyphs []pdf.Text) []*run {
	var out []*run
	var cur *run
	var lastX, lastW float64
	for _, g := range glyphs {
		if g.S == "" {
			continue
		}
		size := math.Max(math.Abs(g.FontSize), 1)
		if cur != nil && math.Abs(g.Y-cur.y) < 0.1*size {
			same := lastW == 0 && g.W == 0 && g.X == lastX
			follows := lastW > 0 && g.X >= lastX+lastW-0.2*size && g.X-(lastX+lastW) <= 0.15*size
			if same || follows {
				if follows && g.X-(lastX+lastW) > spaceGap*size && !strings.HasSuffix(cur.text.String(), " ") && g.S != " " {
					cur.text.WriteByte(' ')
				}
				cur.text.WriteString(g.S)
				cur.x1 = math.Max(cur.x1, glyphEnd(g, cur))
				lastX, lastW = g.X, g.W
				continue
			}
		}
		cur = &run{x0: g.X, y: g.Y, size: size}
		cur.x1 = g.X
		cur.text.WriteString(g.S)
		cur.x1 = glyphEnd(g, cur)
		out = append(out, cur)
		lastX, lastW = g.X, g.W
	}
	return out
}

func glyphEnd(g pdf.Text, r *run) float64 {
	if g.W > 0 {
		return g.X + g.W
	}
	w := 0.0
	for _, c := range g.S {
		w += standardWidth(g.Font, c)
	}
	return r.x1 + w*r.size
}

// helvetica holds the widths of Helvetica's printable ASCII characters, in
// thousandths of the font size, from its Adobe font metrics. Only the 14
// standard fonts may leave out their widths, so these (scaled for Times,
// fixed for Courier) are what the extent of such text is estimated with.
var helvetica = [95]uint16{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 to ?
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ to O
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P to _
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` to o
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p to ~
}

// standardWidth estimates the width of c, in font sizes, in a standard
// font without /Widths.
func standardWidth(font string, c rune) float64 {
	f := strings.ToLower(font)
	if strings.Contains(f, "courier") {
		return 0.6
	}
	w := 0.556 // digits and most letters
	if c >= ' ' && c <= '~' {
		w = float64(helvetica[c-' ']) / 1000
	}
	if strings.Contains(f, "times") {
		w *= 0.9
	}
	return w
}

// layoutPage turns a page's glyphs into lines of text in reading order.
// Runs on one baseline form a line; wide gaps split it into segments,
// joined by " | " so a table row keeps its label and its figures together.
// When the page is set in two columns (a white gutter that lines of wide
// text on both sides leave free), each block of such lines is read left
// column first.
func layoutPage(glyphs []pdf.Text, width float64) []string {
	rs := runs(glyphs)
	if len(rs) == 0 {
		return nil
	}
	// Lines: top to bottom (PDF y grows upwards), then left to right.
	slices.SortStableFunc(rs, func(a, b *run) int {
		switch {
		case a.y > b.y:
			return -1
		case a.y < b.y:
			return 1
		}
		return 0
	})
	var rows [][]segment
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[i].y-rs[j].y < 0.3*rs[i].size {
			j++
		}
		line := slices.Clone(rs[i:j])
		slices.SortStableFunc(line, func(a, b *run) int {
			switch {
			case a.x0 < b.x0:
				return -1
			case a.x0 > b.x0:
				return 1
			}
			return 0
		})
		rows = append(rows, segments(line))
		i = j
	}
	if width <= 0 {
		for _, r := range rows {
			for _, s := range r {
				width = math.Max(width, s.x1)
			}
		}
	}
	gutter, ok := findGutter(rows, width)
	var out []string
	for i := 0; i < len(rows); {
		if !ok || crosses(rows[i], gutter) {
			out = append(out, joinSegments(rows[i]))
			i++
			continue
		}
		j, both := i, 0
		for j < len(rows) && !crosses(rows[j], gutter) {
			if wideBoth(rows[j], gutter, width) {
				both++
			}
			j++
		}
		if both < 2 {
			for ; i < j; i++ {
				out = append(out, joinSegments(rows[i]))
			}
			continue
		}
		var right []string
		for ; i < j; i++ {
			l, r := split(rows[i], gutter)
			if len(l) > 0 {
				out = append(out, joinSegments(l))
			}
			if len(r) > 0 {
				right = append(right, joinSegments(r))
			}
		}
		out = append(out, right...)
	}
	return out
}

// segments joins the runs of one line, left to right, into segments.
func segments(line []*run) []segment {
	var out []segment
	for _, r := range line {
		text := strings.TrimSpace(r.text.String())
		if text == "" {
			continue
		}
		if n := len(out); n > 0 {
			last := &out[n-1]
			gap := r.x0 - last.x1
			switch {
			case gap <= spaceGap*r.size:
				last.text += text
				last.x1 = math.Max(last.x1, r.x1)
				continue
			case gap <= cellGap*r.size:
				last.text += " " + text
				last.x1 = math.Max(last.x1, r.x1)
				continue
			}
		}
		out = append(out, segment{x0: r.x0, x1: r.x1, text: text})
	}
	return out
}

func joinSegments(ss []segment) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = strings.Join(strings.FieldsFunc(s.text, isSpace), " ")
	}
	return strings.Join(parts, " | ")
}

const maxPageWidth = 14400

// findGutter looks for the x of a column gutter: a place in the middle of
// the page that at least three lines leave free while setting wide text
// (a quarter of the page or more) on both sides of it. Table rows, whose
// cells are narrow, do not count, so a table is never read column-wise.
func findGutter(rows [][]segment, width float64) (float64, bool) {
	// PDF pages are at most 14,400 units wide (200 inches); a box beyond
	// that (or NaN) is damage, and its votes would not fit in memory.
	if !(width > 0 && width <= maxPageWidth) {
		return 0, false
	}
	lo, hi := int(0.25*width), int(0.75*width)
	votes := make([]int, hi-lo+1)
	for _, r := range rows {
		for k := 1; k < len(r); k++ {
			a, b := r[k-1].x1, r[k].x0
			if r[k-1].x1-r[0].x0 < 0.25*width || r[len(r)-1].x1-r[k].x0 < 0.25*width {
				continue
			}
			for x := max(int(math.Ceil(a)), lo); x <= min(int(b), hi); x++ {
				votes[x-lo]++
			}
		}
	}
	best, at := 0, 0
	for i, v := range votes {
		if v > best {
			best, at = v, i
		}
	}
	if best < 3 {
		return 0, false
	}
	// The middle of the widest stretch with the best count.
	end := at
	for end+1 < len(votes) && votes[end+1] == best {
		end++
	}
	return float64(lo) + float64(at+end)/2, true
}

func crosses(r []segment, x float64) bool {
	for _, s := range r {
		if s.x0 < x && s.x1 > x {
			return true
		}
	}
	return false
}

func wideBoth(r []segment, x, width float64) bool {
	l, rt := split(r, x)
	return len(l) > 0 && len(rt) > 0 &&
		l[len(l)-1].x1-l[0].x0 >= 0.25*width && rt[len(rt)-1].x1-rt[0].x0 >= 0.25*width
}

func split(r []segment, x float64) (left, right []segment) {
	for _, s := range r {
		if s.x1 <= x {
			left = append(left, s)
		} else {
			right = append(right, s)
		}
	}
	return left, right
}
