package textview

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// unifiedOf renders hunks as Diff's unified diff does, uncut.
func unifiedOf(oldName, newName string, hs []Hunk) string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines))
		for _, l := range h.Lines {
			out = append(out, string(l.Op)+l.Text)
		}
	}
	return fmt.Sprintf("--- %s\n+++ %s\n%s\n", oldName, newName, strings.Join(out, "\n"))
}

// TestHunksAreDiffs: the hunks as data are the unified diff's, line for
// line and header for header, and their line numbers point at the lines
// of each text.
func TestHunksAreDiffs(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 5))
	cases := [][2]string{
		{"a\nb\nc\n", "a\nx\nc\n"},
		{"", "a\nb\n"},
		{"a\nb\n", ""},
		{"h\n1\n2\n3\n4\n5\n6\n7\n8\n9\nt\n", "h\n1\n2\n3\nfour\n5\n6\n7\n8\n9\nt\nend\n"},
		{"Basic rate | £12,571 to £50,270 | 20%\n", "Basic rate | £12,571 to £50,270 | 21%\n"},
	}
	for range 200 {
		var a, b []string
		for i := range 30 {
			l := fmt.Sprintf("line %d", rng.IntN(12))
			a = append(a, l)
			switch rng.IntN(6) {
			case 0:
			case 1:
				b = append(b, l, fmt.Sprintf("new %d", i))
			case 2:
				b = append(b, fmt.Sprintf("line %d", rng.IntN(12)))
			default:
				b = append(b, l)
			}
		}
		cases = append(cases, [2]string{strings.Join(a, "\n") + "\n", strings.Join(b, "\n") + "\n"})
	}
	for _, c := range cases {
		d := Diff("a", "b", c[0], c[1], DiffOptions{MaxLines: 1 << 20})
		hs := Hunks(c[0], c[1], DiffOptions{})
		if !d.Changed() {
			if len(hs) != 0 {
				t.Errorf("%q → %q: no change, %d hunks", c[0], c[1], len(hs))
			}
			continue
		}
		if got := unifiedOf("a", "b", hs); got != d.Unified {
			t.Fatalf("%q → %q: the hunks render\n%s\nthe diff is\n%s", c[0], c[1], got, d.Unified)
		}
		oldLines, newLines := splitLines(c[0]), splitLines(c[1])
		for _, h := range hs {
			for _, l := range h.Lines {
				if (l.Old > 0) != (l.Op != '+') || (l.New > 0) != (l.Op != '-') {
					t.Fatalf("%q: line numbers %d/%d for op %q", l.Text, l.Old, l.New, l.Op)
				}
				if l.Old > 0 && oldLines[l.Old-1] != l.Text || l.New > 0 && newLines[l.New-1] != l.Text {
					t.Fatalf("%q at old %d / new %d is not that line of the texts", l.Text, l.Old, l.New)
				}
			}
		}
	}
}

// TestDiffHunksIsDiffAndHunks: one comparison gives what Diff and Hunks
// give apart, so a feed entry and its change document need only one.
func TestDiffHunksIsDiffAndHunks(t *testing.T) {
	pairs := [][2]string{
		{"", ""},
		{"a\nb\n", "a\nb\n"},
		{"Basic rate | £12,571 to £50,270 | 20%\nHigher rate | 40%\n", "Basic rate | £12,571 to £50,270 | 21%\nHigher rate | 40%\nAdditional | 45%\n"},
	}
	var long, rewritten strings.Builder
	for i := range 500 {
		fmt.Fprintf(&long, "line %d rate %d%%\n", i, i%40)
		fmt.Fprintf(&rewritten, "line %d rate %d%%\n", i, (i+i%3)%40)
	}
	pairs = append(pairs, [2]string{long.String(), rewritten.String()})
	for _, p := range pairs {
		d, hs := DiffHunks("a", "b", p[0], p[1], DiffOptions{})
		if !reflect.DeepEqual(d, Diff("a", "b", p[0], p[1], DiffOptions{})) {
			t.Errorf("DiffHunks's diff of %.40q is not Diff's", p[0])
		}
		if !reflect.DeepEqual(hs, Hunks(p[0], p[1], DiffOptions{})) {
			t.Errorf("DiffHunks's hunks of %.40q are not Hunks'", p[0])
		}
	}
}

// TestHunksOfATextRewrittenWholeAreTheScriptsLines: a text whose every
// line changed is one hunk of every line of both texts; its lines are the
// edit script's own, not a copy (appending copied them again and again as
// they grew: five times their size for 400,000 lines), and appending to a
// hunk's lines writes over no other's.
func TestHunksOfATextRewrittenWholeAreTheScriptsLines(t *testing.T) {
	var a, b strings.Builder
	const n = 20_000
	for i := range n {
		fmt.Fprintf(&a, "Section %d (old). The rate is %d per cent.\n", i, i%40)
		fmt.Fprintf(&b, "Section %d (new). The rate is %d per cent.\n", i, i%40)
	}
	ops := diffLines(splitLines(a.String()), splitLines(b.String()), 5000)
	var hs []Hunk
	allocated := allocatedBy(func() { hs = hunkData(ops, 2) })
	if len(hs) != 1 || len(hs[0].Lines) != 2*n {
		t.Fatalf("%d hunks, want 1 of %d lines", len(hs), 2*n)
	}
	if allocated > 4<<10 {
		t.Errorf("hunkData allocated %d bytes for a hunk of %d lines, want its lines to be the script's", allocated, 2*n)
	}
	if hs := hunkData(diffLines(splitLines("a\n"), splitLines("a\n"), 5000), 2); hs != nil {
		t.Errorf("equal texts: %#v, want no hunk (nil)", hs)
	}
	// Two hunks: the first's lines, appended to, leave the second's.
	x := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	y := "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n"
	hs = Hunks(x, y, DiffOptions{})
	if len(hs) != 2 {
		t.Fatalf("%d hunks, want 2", len(hs))
	}
	second := hs[1].Lines[0]
	_ = append(hs[0].Lines, HunkLine{Op: '+', Text: "appended"})
	if hs[1].Lines[0] != second {
		t.Errorf("appending to the first hunk's lines wrote over the second's: %+v, was %+v", hs[1].Lines[0], second)
	}
}
