// Package terminal shows untrusted text on a terminal or in a log: every
// character a terminal acts on (C0 and C1 controls, DEL, bytes that are not
// UTF-8, line and paragraph separators, bidirectional overrides) is shown
// as an escape, \x1b or \u202e, so that the text cannot move the cursor,
// clear the screen, recolour, retitle the window, break a line or reorder
// what follows it.
package terminal

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text returns s on one line, every acting character shown as an escape
// ("\n" for a newline, "\x1b" for ESC, "\u0085" for NEL, "\xff" for a byte
// that is not UTF-8). Other text, a backslash included, is unchanged.
func Text(s string) string {
	if Clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case Acts(r):
			b.WriteString(quoteRune(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Lines is Text for several lines: the newlines stay, every other acting
// character is escaped (a carriage return too).
func Lines(s string) string {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = Text(p)
	}
	return strings.Join(parts, "\n")
}

// Clean reports whether s has nothing Text would escape.
func Clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			goto slow
		}
	}
	return true
slow:
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Acts(r) {
			return false
		}
		i += n
	}
	return true
}

// Acts reports whether a terminal, a log viewer or a text layout acts on
// r rather than showing it: the C0 and C1 controls and DEL, the line and
// paragraph separators, and the bidirectional marks, embeddings, overrides
// and isolates.
func Acts(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x2028 && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069,
		r == 0xfeff:
		return true
	}
	return false
}

func quoteRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < 0x80 {
		return `\x` + hex2(byte(r))
	}
	h := strconv.FormatInt(int64(r), 16)
	return `\u` + strings.Repeat("0", 4-len(h)) + h
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
