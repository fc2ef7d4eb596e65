// Package escapetest holds the checks that the fuzz targets of the escape
// packages and the commands' hostile tests share: which lines of a log a
// GitHub runner would execute, which control bytes are left in a text,
// and what Markdown is live in a document (a mention, an issue reference,
// an image, a link, an autolink, HTML). It is for tests only.
package escapetest

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Commands returns the lines of log that a runner would take for a
// workflow command: "::" at the start once white space is trimmed, or
// "##[" anywhere.
func Commands(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		t := strings.TrimLeftFunc(l, func(r rune) bool { return unicode.IsSpace(r) || r == 0x180e || r == 0x200b || r == 0xfeff })
		if strings.HasPrefix(t, "::") || strings.Contains(l, "##[") {
			out = append(out, l)
		}
	}
	return out
}

// Controls returns a description of each control character left in s
// other than a newline and a tab: C0, DEL, C1, a byte that is not UTF-8, a line or
// paragraph separator, a bidirectional control.
func Controls(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, fmt.Sprintf("byte %#x at %d", s[i], i))
		case r == '\n', r == '\t':
		case r < 0x20, r >= 0x7f && r < 0xa0, r == 0x061c, r == 0x200e, r == 0x200f,
			r >= 0x2028 && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			out = append(out, fmt.Sprintf("%U at %d in %q", r, i, around(s, i)))
		}
		i += n
	}
	return out
}

func around(s string, i int) string {
	return s[max(0, i-30):min(len(s), i+30)]
}

// Options say what live Markdown a document may hold of its own.
type Options struct {
	// Link reports whether a link or autolink to dest is one the
	// document means to have; nil allows none.
	Link func(dest string) bool
	// HTML is the raw HTML the document means to have (its marker
	// comments); nil allows none.
	HTML *regexp.Regexp
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// mention and reference are GitHub's patterns for "@user", "@org/team"
// and "#12", on the rendered text outside code.
var (
	mention   = regexp.MustCompile(`(?:^|[^0-9A-Za-z_\x60])@[0-9A-Za-z]`)
	reference = regexp.MustCompile(`(?:^|[^0-9A-Za-z_&\x60])#[0-9]`)
	// unescape resolves backslash escapes, as rendering does.
	unescape = regexp.MustCompile(`\\([!-/:-@\[-\x60{-~])`)
)

// Live returns what is live in doc, rendered as GitHub renders Markdown,
// beyond what opts allow: images, links, autolinks, HTML, and mentions and
// issue references in text outside code.
func Live(doc string, opts Options) []string {
	src := []byte(doc)
	root := md.Parser().Parse(text.NewReader(src))
	var out []string
	allowed := func(dest string) bool { return opts.Link != nil && opts.Link(dest) }
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Image:
			out = append(out, fmt.Sprintf("image %q", n.Destination))
		case *ast.Link:
			if !allowed(string(n.Destination)) {
				out = append(out, fmt.Sprintf("link to %q", n.Destination))
			}
		case *ast.AutoLink:
			if u := string(n.URL(src)); !allowed(u) {
				out = append(out, fmt.Sprintf("autolink %q", u))
			}
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(src))
			}
			if opts.HTML == nil || !opts.HTML.MatchString(b.String()) {
				out = append(out, fmt.Sprintf("inline HTML %q", b.String()))
			}
		case *ast.HTMLBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(src))
			}
			if opts.HTML == nil || !opts.HTML.MatchString(strings.TrimSpace(b.String())) {
				out = append(out, fmt.Sprintf("HTML block %q", b.String()))
			}
		case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, t := range visibleText(root, src) {
		if m := mention.FindString(t); m != "" {
			out = append(out, fmt.Sprintf("mention %q in %q", m, t))
		}
		if m := reference.FindString(t); m != "" {
			out = append(out, fmt.Sprintf("issue reference %q in %q", m, t))
		}
	}
	return out
}

// visibleText is the text of each paragraph-like block outside code, as
// the reader sees it (escapes and entities resolved), one string per
// block, which is what GitHub scans for mentions.
func visibleText(root ast.Node, src []byte) []string {
	var out []string
	var b bytes.Buffer
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.RawHTML, *ast.Link:
				// Code breaks the text in two; GitHub sees no mention in
				// code or in a link's text.
				b.WriteString("\x00")
			case *ast.Text:
				b.Write(unescape.ReplaceAll(c.Segment.Value(src), []byte("$1")))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			default:
				walk(c)
			}
		}
	}
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.Paragraph, *ast.TextBlock, *ast.Heading, *east.TableCell:
			b.Reset()
			walk(n)
			out = append(out, strings.Split(html.UnescapeString(b.String()), "\x00")...)
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// Cells returns the number of cells of each row (the header's first) of
// every table in doc, a table after another.
func Cells(doc string) []int {
	src := []byte(doc)
	root := md.Parser().Parse(text.NewReader(src))
	var out []int
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch n.(type) {
			case *east.TableRow, *east.TableHeader:
				out = append(out, n.ChildCount())
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// Hostile are the strings a security review sent through every field a
// server or a contributor writes.
var Hostile = []string{
	"1 cc @octocat @github/security ![pixel](https://evil.example/p.png) [re-verify](https://evil.example/phish)",
	"Rates <!-- @octocat ![t](https://evil.example/t.png)",
	`a\|b`,
	"30 ##[error title=TaxKernelBot;]spoofed ##[add-mask]fetch",
	"::error title=Spoofed::from the bytes\n::stop-commands::tok",
	"\x1b[2J\x1b[H\x1b[31mred\x1b]0;title\x07",
	"see https://evil.example/x, www.evil.example, evil@evil.example, #12",
	"```\n# Heading\n```\n~~~",
	"<img src=x onerror=alert(1)> &#64;octocat",
}

var tag = regexp.MustCompile(`<[^>]*>`)

// CellTexts returns the text a reader sees in each cell of each row of
// the tables in doc.
func CellTexts(doc string) [][]string {
	src := []byte(doc)
	root := md.Parser().Parse(text.NewReader(src))
	var out [][]string
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *east.TableRow, *east.TableHeader:
			var row []string
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				var b bytes.Buffer
				for k := c.FirstChild(); k != nil; k = k.NextSibling() {
					md.Renderer().Render(&b, src, k)
				}
				row = append(row, html.UnescapeString(tag.ReplaceAllString(b.String(), "")))
			}
			out = append(out, row)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// PlayScreen replays what a command wrote to a terminal, line by line and
// with the "\033[NF\033[J" redraws of a live view, and returns what the
// terminal shows at the end and every line it showed on the way. Any
// other escape, an escape inside a line or a last line without its
// newline fails tb.
func PlayScreen(tb testing.TB, out string) (shown, ever []string) {
	tb.Helper()
	shown, ever, err := playScreen(out)
	if err != nil {
		tb.Fatal(err)
	}
	return shown, ever
}

func playScreen(out string) (shown, ever []string, err error) {
	for len(out) > 0 {
		if i := strings.Index(out, "\033["); i == 0 {
			var n int
			if _, err := fmt.Sscanf(out, "\033[%dF\033[J", &n); err != nil {
				return nil, nil, fmt.Errorf("unexpected escape at %q", out[:min(len(out), 12)])
			}
			esc := fmt.Sprintf("\033[%dF\033[J", n)
			if n > len(shown) {
				return nil, nil, fmt.Errorf("escape erases %d lines, only %d shown", n, len(shown))
			}
			shown = shown[:len(shown)-n]
			out = out[len(esc):]
			continue
		}
		line, rest, ok := strings.Cut(out, "\n")
		if !ok || strings.Contains(line, "\033") {
			return nil, nil, fmt.Errorf("partial line or escape inside a line: %q", line)
		}
		shown = append(shown, line)
		ever = append(ever, line)
		out = rest
	}
	return shown, ever, nil
}
