package textview

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
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
			c.Env = append(os.Environ(), childEnv+"="+string(js))
			return c
		}
		return exec.CommandContext(ctx, path, args...)
	}
	out := &lines{max: lim.MaxText}
	p := &pageWriter{out: out, maxPages: lim.MaxPages}
	r := runChild(ctx, cmd, in, lim.MaxText, p.line)
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

// pageWriter turns pdftotext's lines into this package's.
type pageWriter struct {
	out      *lines
	maxPages int
	page     int  // pages begun
	pending  bool // a form feed ended a page; the next line begins one
	glyphs   bool // some text seen
}

func (p *pageWriter) line(s string) error {
	parts := strings.Split(s, "\f")
	for i, part := range parts {
		if i > 0 {
			p.pending = true
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
		if l := cells(part); l != "" {
			p.glyphs = true
			if err := p.out.add(l); err != nil {
				return err
			}
		}
	}
	return nil
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
