package textview

import (
	"math/rand/v2"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// normalizeRef is the rule as written first: every line's fields joined
// by one space, blank lines left out.
func normalizeRef(v *View, text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		fields := strings.FieldsFunc(line, isSpace)
		if len(fields) == 0 {
			continue
		}
		s := strings.Join(fields, " ")
		if v != nil && v.ignored(s) {
			continue
		}
		b.WriteString(s + "\n")
	}
	return b.String()
}

// TestNormalizeFastPathIsTheRule: the lines that skip the general rule
// (already collapsed) come out as the rule writes them, and the hash
// computed without building the text is the text's hash, on hand-made
// and seeded random texts.
func TestNormalizeFastPathIsTheRule(t *testing.T) {
	texts := []string{
		"", "\n", "a", "a\n", " a", "a ", "a  b", "a\tb", "a\u00a0b\n", "a\r\nb\r\n", "x\x00y\n",
		"Basic rate £12,571 to £50,270 20%\n\n  Higher rate\t40%  \n", strings.Repeat("word ", 2000) + "\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "  ", "\t", "\n", "\r", "\u00a0", "\u200b", "é", "\x00", "1", "%", "\xff", "\xe2\x80", "\u2007", "\u202f", "\ufeff", "’", "§", "\u00a1"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	views := []*View{nil, {ignore: []*regexp.Regexp{regexp.MustCompile(`^Updated|b a`)}}}
	for _, v := range views {
		for _, text := range texts {
			want := normalizeRef(v, text)
			if got := v.NormalizeText(text); got != want {
				t.Fatalf("NormalizeText(%q) = %q, want %q", text, got, want)
			}
			if got := v.NormalizedHash(text); got != Hash(want) {
				t.Fatalf("NormalizedHash(%q) is not the hash of the normalised text", text)
			}
		}
	}
}

// A long line whose white space needs the general rule (a non-ASCII
// character, a tab) is collapsed in one copy, not listed word by word
// first: an Act's XML on one line of 10 MB took 40 MB to normalise.
func TestNormalizeLongLineInOneCopy(t *testing.T) {
	line := strings.Repeat("<Text>The claimant’s\tweekly  earnings</Text> ", 1<<15)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := (*View)(nil).NormalizeText(line)
	runtime.ReadMemStats(&after)
	if want := normalizeRef(nil, line); got != want {
		t.Fatal("the long line is not normalised as the rule writes it")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 3*uint64(len(line)) {
		t.Errorf("allocated %d bytes to normalise a line of %d bytes", n, len(line))
	}
}

// A line already collapsed but for letters beyond ASCII (’, é, §: an
// Act's XML) is taken as it is, without a copy.
func TestNormalizeTakesNonASCIILettersAsTheyAre(t *testing.T) {
	line := strings.Repeat("<Text>The claimant’s § 3 earnings, 12 € </Text> ", 1<<12) + "end"
	if got, ok := collapsed(line + "\n"); !ok || got != line {
		t.Errorf("a collapsed line with letters beyond ASCII is not taken as it is (%v)", ok)
	}
	for _, sp := range []string{"\u00a0", "\u2007", "\u202f", "\u200b", "\ufeff"} {
		if _, ok := collapsed("a" + sp + "b\n"); ok {
			t.Errorf("%q is taken as collapsed", "a"+sp+"b")
		}
	}
}

// A text normalised already (a kept text, the extraction of a plain text)
// is returned as it is, not copied: a change to a 20 MB text normalised
// both sides into copies of 20 MB. A text that needs the rules from some
// line on is copied from there, and reads as the rule writes it.
func TestNormalizeTextTakesANormalisedTextAsItIs(t *testing.T) {
	var b strings.Builder
	for i := range 50_000 {
		b.WriteString("Section " + strings.Repeat("§", 1+i%3) + " The rate of tax is 20 per cent.\n")
	}
	text := b.String()
	var got string
	n := allocatedBy(func() { got = (*View)(nil).NormalizeText(text) })
	if got != text || unsafe.StringData(got) != unsafe.StringData(text) {
		t.Fatal("a normalised text is not returned as it is")
	}
	if n > 1<<10 {
		t.Errorf("allocated %d bytes to normalise a text of %d bytes normalised already", n, len(text))
	}
	v := &View{ignore: []*regexp.Regexp{regexp.MustCompile(`^Updated`)}}
	for _, tail := range []string{"Updated 1 May\nlast\n", "a  b\n", "\n\nlast", "last"} {
		if got, want := v.NormalizeText(text+tail), normalizeRef(v, text+tail); got != want {
			t.Errorf("with %q at the end: %d bytes, want %d", tail, len(got), len(want))
		}
	}
}
