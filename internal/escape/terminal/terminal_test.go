package terminal

import (
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
)

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain, with a \\ backslash": "plain, with a \\ backslash",
		"\x1b[2J\x1b[H\x1b[31mred":   `\x1b[2J\x1b[H\x1b[31mred`,
		"a\nb\r\tc\x00":              `a\nb\r\tc\x00`,
		"nel\u0085 rlo\u202e ok é":   `nel\u0085 rlo\u202e ok é`,
		"bad \xff byte":              `bad \xff byte`,
		"\x7f\u2028":                 `\x7f\u2028`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Lines("a\x1b\nb\r\n"); got != "a\\x1b\nb\\r\n" {
		t.Errorf("Lines = %q", got)
	}
}

// FuzzText: whatever the input, Text leaves no control character and no
// line break, Lines none but its newlines, and clean text is unchanged.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b]0;title\x07", "\x1b[2J", "a\nb", "\xc2\x9b31m", "\u202egnp.exe", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if c := escapetest.Controls(out); len(c) > 0 || strings.ContainsAny(out, "\n\t") {
			t.Fatalf("Text(%q) = %q leaves %v", s, out, c)
		}
		if !Clean(out) {
			t.Fatalf("Text(%q) = %q is not clean", s, out)
		}
		if Clean(s) && out != s {
			t.Fatalf("clean %q changed to %q", s, out)
		}
		lines := Lines(s)
		if c := escapetest.Controls(lines); len(c) > 0 {
			t.Fatalf("Lines(%q) = %q leaves %v", s, lines, c)
		}
		if strings.Count(lines, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Lines(%q) = %q changed the lines", s, lines)
		}
	})
}
