package textview

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// skipped are elements whose content no reader sees as text, or that only
// carry machinery (tokens, build ids, generation stamps in <meta>).
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Meta: true, atom.Link: true, atom.Base: true,
	atom.Input: true, atom.Select: true, atom.Textarea: true,
	atom.Svg: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Canvas: true, atom.Audio: true, atom.Video: true,
	atom.Img: true, atom.Map: true, atom.Datalist: true,
}

// blocks start and end a line of text.
var blocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Body: true, atom.Caption: true, atom.Dd: true, atom.Details: true,
	atom.Dialog: true, atom.Div: true, atom.Dl: true, atom.Dt: true,
	atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true, atom.Footer: true,
	atom.Form: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true, atom.Legend: true,
	atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true,
	atom.Pre: true, atom.Section: true, atom.Summary: true, atom.Table: true,
	atom.Title: true, atom.Ul: true, atom.Tr: true, atom.Thead: true, atom.Tbody: true,
	atom.Tfoot: true, atom.Html: true, atom.Head: true, atom.Option: true,
}

// extractHTML writes the visible text of an HTML page in reading order.
// Table rows become one line each, their cells joined by " | ".
func extractHTML(ctx context.Context, raw []byte, contentType string, v *View, out *lines) error {
	r, err := charset.NewReader(bytes.NewReader(raw), contentType)
	if err != nil {
		return fmt.Errorf("unknown character set in %q: %w", contentType, err)
	}
	doc, err := html.Parse(r)
	if err != nil {
		return fmt.Errorf("parse HTML: %w", err)
	}
	if v != nil {
		v.dropFrom(doc)
	}
	w := &htmlWriter{ctx: ctx, out: out}
	w.walk(doc)
	if w.err == nil {
		w.flush()
	}
	return w.err
}

// htmlWriter renders a DOM as lines of text.
type htmlWriter struct {
	ctx   context.Context
	out   *lines
	line  strings.Builder
	space bool // a space is due before the next word on this line
	pre   int  // depth of <pre>
	steps int
	err   error
}

func (w *htmlWriter) walk(n *html.Node) {
	if w.err != nil {
		return
	}
	if w.steps++; w.steps%4096 == 0 {
		if w.err = w.ctx.Err(); w.err != nil {
			return
		}
	}
	switch n.Type {
	case html.CommentNode, html.DoctypeNode:
		return
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if skipped[n.DataAtom] || hidden(n) {
			return
		}
		switch n.DataAtom {
		case atom.Br:
			w.flush()
			return
		case atom.Tr:
			w.flush()
			w.row(n)
			return
		case atom.Td, atom.Th:
			// a cell outside a row (broken markup): a line of its own
			w.flush()
			w.children(n)
			w.flush()
			return
		case atom.Pre:
			w.flush()
			w.pre++
			w.children(n)
			w.pre--
			w.flush()
			return
		}
		if blocks[n.DataAtom] {
			w.flush()
			w.children(n)
			w.flush()
			return
		}
	}
	w.children(n)
}

func (w *htmlWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil && w.err == nil; c = c.NextSibling {
		w.walk(c)
	}
}

// row writes a table row as one line: each cell's text on one line, cells
// joined by " | ", empty cells kept (so columns stay in place) but trailing
// ones dropped. A table inside a cell is flattened into the cell.
func (w *htmlWriter) row(tr *html.Node) {
	var cells []string
	for c := tr.FirstChild; c != nil && w.err == nil; c = c.NextSibling {
		if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) || hidden(c) {
			continue
		}
		sub := &lines{max: w.out.max - w.out.size}
		cw := &htmlWriter{ctx: w.ctx, out: sub, steps: w.steps}
		cw.children(c)
		if cw.err == nil {
			cw.flush()
		}
		w.steps = cw.steps
		if cw.err != nil {
			w.err = cw.err
			return
		}
		cells = append(cells, strings.Join(strings.Fields(sub.String()), " "))
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	if len(cells) > 0 {
		if err := w.out.add(strings.Join(cells, " | ")); err != nil {
			w.err = err
		}
	}
}

// text adds a text node: whitespace collapsed to one space, except in <pre>.
func (w *htmlWriter) text(s string) {
	if w.pre > 0 {
		for i, part := range strings.Split(s, "\n") {
			if i > 0 {
				w.flush()
			}
			w.line.WriteString(strings.TrimRight(part, " \t\r"))
		}
		return
	}
	if s == "" {
		return
	}
	if first, _ := utf8.DecodeRuneInString(s); isSpace(first) {
		w.space = true
	}
	for _, f := range strings.FieldsFunc(s, isSpace) {
		if w.space && w.line.Len() > 0 {
			w.line.WriteByte(' ')
		}
		w.line.WriteString(f)
		w.space = true
	}
	if last, _ := utf8.DecodeLastRuneInString(s); !isSpace(last) {
		w.space = false
	}
}

// flush ends the current line, if it has any text.
func (w *htmlWriter) flush() {
	w.space = false
	if w.line.Len() == 0 || w.err != nil {
		w.line.Reset()
		return
	}
	s := strings.TrimSpace(w.line.String())
	w.line.Reset()
	if s != "" {
		w.err = w.out.add(s)
	}
}

// isSpace is HTML's and Unicode's white space, including the no-break
// space pages use to glue a currency sign to its amount.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v', '\u00a0', '\u2007', '\u202f', '\u200b', '\ufeff':
		return true
	}
	return false
}

// hidden reports an element a browser does not show: the hidden attribute,
// an inline display:none or visibility:hidden, an input of type hidden.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "style":
			s := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		case "type":
			if n.DataAtom == atom.Input && strings.EqualFold(a.Val, "hidden") {
				return true
			}
		}
	}
	return false
}
