package textview

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// runPdftotext extracts a PDF with poppler's pdftotext in layout mode,
// which keeps a table row on one line with its cells in order, in a child
// process under the memory and CPU bounds (see childEnv). Its output is
// rewritten in this package's shape: a "[page N]" line before each page
// (pdftotext ends each with a form feed), wide gaps (three spaces or more:
// a cell or a column apart) as " | ", no blank lines.
func runPdftotext(ctx context.Context, path string, in io.Reader, lim Limits) outcome {
	// One page more than the limit is asked for: seeing it tells a
	// document cut at the limit from one that ends there.
	args := []string{"-layout", "-enc", "UTF-8", "-l", strconv.Itoa(lim.MaxPages + 1), "-", "-"}
	cmd := func(ctx context.Context) *exec.Cmd {
		if canWrap && self() != "" {
			js, _ := json.Marshal(childRequest{Mode: "exec", Path: path, Limits: lim})
			c := exec.CommandContext(ctx, self(), args...)
			c.Env = append(parserEnv(), childEnv+"="+string(js))
			return c
		}
		c := exec.CommandContext(ctx, path, args...)
		c.Env = parserEnv()
		return c
	}
	out := &lines{max: lim.MaxText}
	p := &pageWriter{out: out, maxPages: lim.MaxPages}
	r := runChild(ctx, cmd, in, lim.MaxText, p.line)
	if r.stopped == nil {
		if err := p.flush(); err != nil {
			r.stopped = err
		}
	}
	o := outcome{text: out.String(), size: out.size}
	switch {
	case r.startErr != nil:
		return outcome{err: fmt.Errorf("start pdftotext: %w", r.startErr)}
	case r.inputErr != nil:
		return outcome{err: fmt.Errorf("read the held bytes: %w", r.inputErr)}
	case r.stopped != nil:
		o.err = r.stopped
	case ctx.Err() != nil:
		o.err = ctx.Err()
	case r.exit != nil && r.exit.Success():
		if !p.glyphs {
			o.err = fmt.Errorf("%w: %d page(s) without any text; a scanned document has images only (no OCR is done)", errNoText, p.page)
		}
	case overMemory(r.stderr):
		o.err = errMemory
	case r.exit != nil && overCPU(r.exit):
		o.err = errCPU
	case r.exit != nil && nearMemory(r.exit, lim.MaxMemory):
		o.err = errMemory
	default:
		why := lastLine(r.stderr)
		if why == "" {
			why = r.exit.String()
		}
		return outcome{err: fmt.Errorf("pdftotext: %s", why)}
	}
	return o
}

// pageWriter turns pdftotext's lines into this package's. A page's lines
// are held until its end (they are bounded by the text limit), so that a
// page set in two columns of prose can be read column by column.
type pageWriter struct {
	out      *lines
	maxPages int
	page     int  // pages begun
	pending  bool // a form feed ended a page; the next line begins one
	glyphs   bool // some text seen
	held     []string
	heldSize int
}

func (p *pageWriter) line(s string) error {
	parts := strings.Split(s, "\f")
	for i, part := range parts {
		if i > 0 {
			p.pending = true
			if err := p.flush(); err != nil {
				return err
			}
			if i == len(parts)-1 && part == "" {
				break // the form feed ends the line: the page may be the last
			}
		}
		if p.page == 0 || p.pending {
			p.pending = false
			if p.page++; p.page > p.maxPages {
				return errPageLimit
			}
			if err := p.out.add(fmt.Sprintf("[page %d]", p.page)); err != nil {
				return err
			}
		}
		if strings.TrimSpace(part) != "" {
			p.glyphs = true
			p.held = append(p.held, strings.TrimRightFunc(part, isSpace))
			if p.heldSize += len(part) + 1; p.heldSize > p.out.max {
				return p.flush() // past the limit anyway: out says so
			}
		}
	}
	return nil
}

// flush writes the held lines of a page, in reading order.
func (p *pageWriter) flush() error {
	defer func() { p.held, p.heldSize = p.held[:0], 0 }()
	for _, l := range readingOrder(p.held) {
		if err := p.out.add(cells(l)); err != nil {
			return err
		}
	}
	return nil
}

// readingOrder returns a page's layout lines with each block of two
// columns of prose read left column first. A gutter is a character column
// in the middle half of the page that lines leave blank between two wide
// stretches of text (a quarter of the page each, with no wide gap inside:
// prose, not a table's cells); a block is a run of lines that leave it
// blank, read column-wise only when most of its lines with text on both
// sides are such prose. Table rows, whose cells are narrow, stay whole.
func readingOrder(page []string) []string {
	rows := make([][]rune, len(page))
	width := 0
	for i, l := range page {
		rows[i] = []rune(l)
		width = max(width, len(rows[i]))
	}
	if width < 40 {
		return page
	}
	margin := width
	for _, r := range rows {
		if i := strings.IndexFunc(string(r), func(c rune) bool { return !isSpace(c) }); i >= 0 {
			margin = min(margin, len([]rune(string(r)[:i])))
		}
	}
	lo, hi := width/4, width*3/4
	votes := make([]int, hi-lo+1)
	for _, r := range rows {
		for _, g := range proseGaps(r, width, margin, false) {
			for x := max(g[0], lo); x <= min(g[1], hi); x++ {
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
		return page
	}
	end := at
	for end+1 < len(votes) && votes[end+1] == best {
		end++
	}
	gutter := lo + (at+end)/2
	blank := func(r []rune) bool { return gutter >= len(r) || isSpace(r[gutter]) }
	// A line stays in a block when it leaves the gutter blank and is
	// either on one side only or two columns of prose (one of them may
	// be a paragraph's short last line); anything else (a table row
	// across the gutter) ends the block and stays whole.
	inBlock := func(r []rune) (in, prose bool) {
		if !blank(r) {
			return false, false
		}
		l, rt := splitAt(r, gutter)
		if strings.TrimSpace(l) == "" || strings.TrimSpace(rt) == "" {
			return true, false
		}
		if len(proseGaps(r, width, margin, true)) > 0 {
			return true, len(proseGaps(r, width, margin, false)) > 0
		}
		return false, false
	}
	var out []string
	for i := 0; i < len(rows); {
		if in, _ := inBlock(rows[i]); !in {
			out = append(out, page[i])
			i++
			continue
		}
		j, prose := i, 0
		for j < len(rows) {
			in, p := inBlock(rows[j])
			if !in {
				break
			}
			if p {
				prose++
			}
			j++
		}
		if prose < 2 {
			out = append(out, page[i:j]...)
			i = j
			continue
		}
		var right []string
		for ; i < j; i++ {
			l, r := splitAt(rows[i], gutter)
			if strings.TrimSpace(l) != "" {
				out = append(out, l)
			}
			if strings.TrimSpace(r) != "" {
				right = append(right, r)
			}
		}
		out = append(out, right...)
	}
	return out
}

// proseGaps is the wide gap (three spaces or more) of a line of two
// columns of prose, as [first, last] character columns: a line of exactly
// two wide stretches of text (a quarter of the page or more each, without
// a wide gap inside; with oneWide, one of them may be narrow), the first
// starting at the page's left margin. A table row has more cells, or
// narrower ones, or starts indented.
func proseGaps(r []rune, width, margin int, oneWide bool) [][2]int {
	type span struct{ from, to int } // text between wide gaps
	var spans []span
	start, spaces := -1, 0
	for i, c := range r {
		if isSpace(c) {
			spaces++
			continue
		}
		if start < 0 {
			start = i
		} else if spaces >= 3 {
			spans = append(spans, span{start, i - spaces - 1})
			start = i
		}
		spaces = 0
	}
	if start >= 0 {
		spans = append(spans, span{start, len(r) - 1 - spaces})
	}
	if len(spans) != 2 {
		return nil
	}
	a, b := spans[0], spans[1]
	wideA, wideB := 4*(a.to-a.from+1) >= width, 4*(b.to-b.from+1) >= width
	if a.from > margin+width/10 || !(wideA && wideB || oneWide && (wideA || wideB)) {
		return nil
	}
	return [][2]int{{a.to + 1, b.from - 1}}
}

func splitAt(r []rune, x int) (string, string) {
	if x >= len(r) {
		return string(r), ""
	}
	return string(r[:x]), string(r[x:])
}

// cells trims a layout line and joins what wide gaps part with " | ".
func cells(s string) string {
	fields := strings.FieldsFunc(s, isSpace)
	if len(fields) == 0 {
		return ""
	}
	var b strings.Builder
	rest := strings.TrimLeftFunc(s, isSpace)
	for i, f := range fields {
		at := strings.Index(rest, f)
		if i > 0 {
			gap := rest[:at]
			if wide(gap) {
				b.WriteString(" | ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(f)
		rest = rest[at+len(f):]
	}
	return b.String()
}

// wide reports a gap of three or more spaces.
func wide(gap string) bool {
	n := 0
	for _, r := range gap {
		if isSpace(r) {
			n++
		}
	}
	return n >= 3
}
