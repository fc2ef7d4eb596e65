// Package markdown writes untrusted text into Markdown that GitHub
// renders (pull request and issue bodies, comments, the step summary, the
// reports under reports/). Nothing it returns can form a mention, an issue
// reference, an image, a link, an autolink, HTML, an entity or a comment,
// end a table cell, or carry a control character:
//
//   - Text is inline text on one line: every character that opens markup
//     is backslash-escaped, a backslash first of all, and "@" and "#" are
//     followed by a zero-width space so that GitHub sees no mention or
//     reference in the rendered text;
//   - Code is a code span, CellCode one inside a table cell;
//   - Fence is a fenced code block;
//   - Dest is a link destination, Link a whole link whose destination is
//     http, https or mailto.
package markdown

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
)

// Clip collapses white space (no newline survives) and keeps at most n
// characters, marking a cut with "…"; n <= 0 keeps everything.
func Clip(s string, n int) string {
	s = collapse(s)
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// punct is what Text escapes: what opens emphasis, code, links and
// images, HTML, entities, tables, strikethrough, headings and math, and the
// backslash itself.
const punct = "\\`*_[]<>|~#@&$"

// zwsp follows "@" and "#" in rendered text: "@\u200boctocat" notifies
// nobody and "#\u200b12" links no issue, and both read as written.
const zwsp = "&#8203;"

// Text makes s inert inline Markdown on one line: white space collapsed,
// control characters shown as escapes (\x1b), markup characters escaped.
// It is safe in a paragraph, a list item, a heading and a table cell.
func Text(s string) string { return inline(s, true) }

// inline is Text; autolinks false leaves out what only keeps autolinks and
// mentions from forming, which a link's own text never forms (GitHub finds
// no mention inside a link).
func inline(s string, autolinks bool) string {
	s = terminal.Text(collapse(s))
	if inert(s, autolinks) {
		return s // most ids, titles and details: nothing to escape, nothing to copy
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		if r < utf8.RuneSelf && isPunct[r] {
			b.WriteByte('\\')
			b.WriteRune(r)
			if autolinks && (r == '@' || r == '#') {
				b.WriteString(zwsp)
			}
			continue
		}
		// "www." would autolink without a scheme, and "https://",
		// "mailto:" and "xmpp:" with one.
		if autolinks && r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www") ||
			autolinks && r == ':' && (strings.HasPrefix(s[i:], "://") || hasSuffixFold(s[:i], "mailto") || hasSuffixFold(s[:i], "xmpp")) {
			b.WriteByte('\\')
			b.WriteRune(r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isPunct marks the bytes of punct.
var isPunct = func() (t [utf8.RuneSelf]bool) {
	for i := range len(punct) {
		t[punct[i]] = true
	}
	return t
}()

// inert reports whether inline would write s as it is: every character
// it escapes is ASCII, and no byte of a longer UTF-8 sequence is ASCII,
// so the bytes can be looked at one by one.
func inert(s string, autolinks bool) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < utf8.RuneSelf && isPunct[c]:
			return false
		case !autolinks:
		case c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"),
			c == ':' && (strings.HasPrefix(s[i:], "://") || hasSuffixFold(s[:i], "mailto") || hasSuffixFold(s[:i], "xmpp")):
			return false
		}
	}
	return true
}

// collapse is strings.Join(strings.Fields(s), " "), without the copies
// when s is printable ASCII with single spaces between words already.
func collapse(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// TextN is Text of s clipped to n characters.
func TextN(s string, n int) string { return Text(Clip(s, n)) }

// Code wraps s in a code span on one line, its fence longer than any run
// of backticks inside, control characters shown as escapes. Nothing in a
// code span renders, links or mentions. "" stays "".
func Code(s string) string {
	s = terminal.Text(Clip(s, 0))
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ")) {
		s = " " + s + " "
	}
	return fence + s + fence
}

// CodeN is Code of s clipped to n characters.
func CodeN(s string, n int) string { return Code(Clip(s, n)) }

// CellCode is Code for a table cell. A pipe ends a cell even inside a
// code span, and a backslash does not escape there, so text with a pipe
// is shown as Text instead.
func CellCode(s string) string {
	if strings.Contains(s, "|") {
		return Text(s)
	}
	return Code(s)
}

// Fence returns s as a fenced code block, info (a word such as "diff", or
// "") after the opening fence, ending with a newline. Lines are kept;
// control characters are shown as escapes; the fence is longer than any
// run of backticks in s, so no line can close it.
func Fence(info, s string) string {
	s = terminal.Lines(strings.TrimSuffix(s, "\n"))
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	if strings.ContainsAny(info, "`~ \t\n") {
		info = ""
	}
	return fence + info + "\n" + s + "\n" + fence + "\n"
}

func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// destEscapes are what would end a link destination or a table cell, open
// HTML, or start an escape, percent-encoded.
var destEscapes = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "\\", "%5C", "`", "%60", "|", "%7C", "[", "%5B", "]", "%5D", "\"", "%22", "'", "%27")

// Dest makes u safe as a link destination: white space and control
// characters percent-encoded, and whatever would end the destination, a
// cell or open HTML.
func Dest(u string) string {
	if !strings.ContainsFunc(u, func(r rune) bool { return r <= 0x20 || r >= 0x7f }) {
		return destEscapes.Replace(u) // nothing to percent-encode first
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c <= 0x20 || c == 0x7f || c >= 0x80 {
			b.WriteString("%" + strings.ToUpper(hex2(c)))
			continue
		}
		b.WriteByte(c)
	}
	return destEscapes.Replace(b.String())
}

// Linkable reports whether u is a URL a link may point to: http, https or
// mailto, with no control character.
func Linkable(u string) bool {
	p, err := url.Parse(u)
	if err != nil || !terminal.Clean(u) {
		return false
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https":
		return p.Host != ""
	case "mailto":
		return true
	}
	return false
}

// Link is "[label](u)", label as Text; when u is not Linkable, just the
// label, as Text.
func Link(label, u string) string {
	if !Linkable(u) {
		return Text(label)
	}
	return "[" + inline(label, false) + "](" + Dest(u) + ")"
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
