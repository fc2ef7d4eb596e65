package textview

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestDiffRatesChange(t *testing.T) {
	old := "Income Tax rates\nBand | Taxable income | Tax rate\nPersonal Allowance | Up to £12,570 | 0%\nBasic rate | £12,571 to £50,270 | 20%\nHigher rate | £50,271 to £125,140 | 40%\nAdditional rate | over £125,140 | 45%\nBasic rate limit: £37,700\nScotland has its own rates.\nWales: see Welsh rates.\nContact us\n"
	new := strings.Replace(old, "£37,700", "£37,500", 1)
	new = strings.Replace(new, "Contact us\n", "Contact us\nLast reviewed 2026\n", 1)
	new = strings.Replace(new, "Income Tax rates\n", "Income Tax rates 2026\n", 1)
	d := Diff("a/uk-rates.txt", "b/uk-rates.txt", old, new, DiffOptions{})
	want := "```diff\n" +
		"@@ -1,3 +1,3 @@\n" +
		"-Income Tax rates\n" +
		"+Income Tax rates 2026\n" +
		" Band | Taxable income | Tax rate\n" +
		" Personal Allowance | Up to £12,570 | 0%\n" +
		"@@ -5,6 +5,7 @@\n" +
		" Higher rate | £50,271 to £125,140 | 40%\n" +
		" Additional rate | over £125,140 | 45%\n" +
		"-Basic rate limit: £37,700\n" +
		"+Basic rate limit: £37,500\n" +
		" Scotland has its own rates.\n" +
		" Wales: see Welsh rates.\n" +
		" Contact us\n" +
		"+Last reviewed 2026\n" +
		"```\n" +
		"\nChanged figures: new **2026**, **£37,700** → **£37,500**\n"
	if d.Markdown != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", d.Markdown, want)
	}
	if d.Added != 3 || d.Removed != 2 || d.Omitted != 0 {
		t.Errorf("added %d removed %d omitted %d", d.Added, d.Removed, d.Omitted)
	}
	if !strings.HasPrefix(d.Unified, "--- a/uk-rates.txt\n+++ b/uk-rates.txt\n@@ -1,3 +1,3 @@\n") {
		t.Errorf("unified:\n%s", d.Unified)
	}
}

func TestDiffSame(t *testing.T) {
	d := Diff("a", "b", "x\ny\n", "x\ny\n", DiffOptions{})
	if d.Changed() || d.Markdown != "" || d.Unified != "" {
		t.Errorf("got %+v", d)
	}
}

func TestDiffCap(t *testing.T) {
	var a, b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "line %d changed\n", i)
	}
	d := Diff("a", "b", a.String(), b.String(), DiffOptions{MaxLines: 10})
	// 1 header + 200 changed lines; 10 shown.
	if d.Omitted != 191 || !strings.Contains(d.Markdown, "\n… 191 more lines\n```") {
		t.Errorf("omitted %d:\n%s", d.Omitted, d.Markdown)
	}
	if strings.Count(d.Markdown, "\n") > 16 {
		t.Errorf("cap not applied:\n%s", d.Markdown)
	}
}

// TestDiffApplies checks the edit script on random texts: applying it to
// the old text gives the new one, and it is no longer than a plain
// remove-all/add-all; with a tiny MaxEdits, the fallback is still correct.
func TestDiffApplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "d", "e"}
	gen := func() []string {
		n := rng.IntN(30)
		out := make([]string, n)
		for i := range out {
			out[i] = words[rng.IntN(len(words))]
		}
		return out
	}
	for i := range 2000 {
		a, b := gen(), gen()
		for _, maxEdits := range []int{5000, 3} {
			ops := diffLines(a, b, maxEdits)
			var gotA, gotB []string
			edits := 0
			for _, o := range ops {
				if o.kind != '+' {
					gotA = append(gotA, o.text)
				}
				if o.kind != '-' {
					gotB = append(gotB, o.text)
				}
				if o.kind != ' ' {
					edits++
				}
			}
			if strings.Join(gotA, ",") != strings.Join(a, ",") || strings.Join(gotB, ",") != strings.Join(b, ",") {
				t.Fatalf("case %d (max %d): script does not turn %v into %v", i, maxEdits, a, b)
			}
			if edits > len(a)+len(b) {
				t.Fatalf("case %d: %d edits for %d+%d lines", i, edits, len(a), len(b))
			}
			if maxEdits == 5000 && edits != lcsEdits(a, b) {
				t.Fatalf("case %d: %d edits, the shortest has %d", i, edits, lcsEdits(a, b))
			}
		}
	}
}

// lcsEdits is the length of the shortest edit script, by dynamic
// programming: the reference for Myers.
func lcsEdits(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return len(a) + len(b) - 2*dp[0][0]
}

func TestFigureChanges(t *testing.T) {
	got := lineFigures("Higher rate | £50,271 to £125,140 | 40%", "Higher rate | £50,271 to £125,000 | 41%")
	want := []FigureChange{{"£125,140", "£125,000"}, {"40%", "41%"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestDiffFiguresOnce: a figure that changed the same way on several lines
// (a rate in a table and in its footnote) is listed once, in the order met.
func TestDiffFiguresOnce(t *testing.T) {
	old := "Basic rate | 20% | £37,700\nNote: up to £37,700 at 20%\nHigher rate | 40%\nLimit £37,700\n"
	new := "Basic rate | 21% | £37,500\nNote: up to £37,500 at 21%\nHigher rate | 40%\nLimit £37,500\n"
	d := Diff("a", "b", old, new, DiffOptions{})
	if want := []FigureChange{{"20%", "21%"}, {"£37,700", "£37,500"}}; fmt.Sprint(d.Figures) != fmt.Sprint(want) {
		t.Errorf("figures %v, want %v", d.Figures, want)
	}
	if !strings.HasSuffix(d.Markdown, "\nChanged figures: **20%** → **21%**, **£37,700** → **£37,500**\n") {
		t.Errorf("markdown:\n%s", d.Markdown)
	}
}

// figurePattern is what nextFigure finds, as a regular expression.
var figurePattern = regexp.MustCompile(`[£$€¥]?\d+(?:[.,]\d+)*%?`)

// TestFiguresAsThePattern: the figures found are the pattern's matches, on
// random strings of the pieces that matter (and broken UTF-8).
func TestFiguresAsThePattern(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"0", "1", "42", "2026", ".", ",", "%", "£", "$", "€", "¥", " ", "a", "rate", "\xc2", "\xe2\x82", "\xa3", "é", "٣"}
	for range 20000 {
		var s strings.Builder
		for range rng.IntN(12) {
			s.WriteString(pieces[rng.IntN(len(pieces))])
		}
		checkFigures(t, s.String())
	}
}

func FuzzFigures(f *testing.F) {
	for _, s := range []string{"Basic rate | £12,571 to £50,270 | 20%", "$1.5.6,7%%", "££5", "€,5", "1,,2", "\xe2\x82£3", "¥0.5%"} {
		f.Add(s)
	}
	f.Fuzz(checkFigures)
}

func checkFigures(t *testing.T, s string) {
	if got, want := figures(s), figurePattern.FindAllString(s, -1); !slices.Equal(got, want) {
		t.Fatalf("figures(%q) = %q, the pattern finds %q", s, got, want)
	}
}
