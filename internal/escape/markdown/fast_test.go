package markdown

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
)

// The shortcuts of inline, Clip and Dest (text with nothing to escape,
// white space already collapsed) write what the plain loops below, as
// they were before them, write.

func plainInline(s string, autolinks bool) string {
	s = terminal.Text(strings.Join(strings.Fields(s), " "))
	var b strings.Builder
	for i, r := range s {
		if r < utf8.RuneSelf && strings.IndexByte(punct, byte(r)) >= 0 {
			b.WriteByte('\\')
			b.WriteRune(r)
			if autolinks && (r == '@' || r == '#') {
				b.WriteString(zwsp)
			}
			continue
		}
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

func plainClip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func plainDest(u string) string {
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

// pieces are what the strings below are made of: plain words, every
// character that is escaped, the starts of autolinks, white space of
// every kind, and what is not ASCII or not UTF-8.
var pieces = []string{
	"a", "Rates", "2026", "-", ".", ":", "/", "//", "www", "WwW", "mailto", "XMPP", "https", "://",
	" ", "  ", "\t", "\n", "\r", "\v", "\f", "\u0085", "\u00a0", "\u2028", "\u3000",
	"\\", "`", "*", "_", "[", "]", "<", ">", "|", "~", "#", "@", "&", "$", "(", ")", "\"", "'", "%",
	"é", "日本", "\x1b", "\x7f", "\x00", "\xff", "\xe2\x80", "\ufffd", "\u202e", "\ufeff",
}

func TestShortcutsWriteWhatThePlainLoopsWrite(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 7))
	for range 200_000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		for _, autolinks := range []bool{true, false} {
			if got, want := inline(s, autolinks), plainInline(s, autolinks); got != want {
				t.Fatalf("inline(%q, %v) = %q, want %q", s, autolinks, got, want)
			}
		}
		if n := r.IntN(8); Clip(s, n) != plainClip(s, n) {
			t.Fatalf("Clip(%q, %d) = %q, want %q", s, n, Clip(s, n), plainClip(s, n))
		}
		if got, want := Dest(s), plainDest(s); got != want {
			t.Fatalf("Dest(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzShortcuts is TestShortcutsWriteWhatThePlainLoopsWrite on the
// fuzzer's strings.
func FuzzShortcuts(f *testing.F) {
	for _, s := range append(hostile, pieces...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, autolinks := range []bool{true, false} {
			if got, want := inline(s, autolinks), plainInline(s, autolinks); got != want {
				t.Fatalf("inline(%q, %v) = %q, want %q", s, autolinks, got, want)
			}
		}
		if Clip(s, 0) != plainClip(s, 0) || Clip(s, 5) != plainClip(s, 5) {
			t.Fatalf("Clip(%q) differs", s)
		}
		if got, want := Dest(s), plainDest(s); got != want {
			t.Fatalf("Dest(%q) = %q, want %q", s, got, want)
		}
	})
}
