package textview

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
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
				if o.Op != '+' {
					gotA = append(gotA, o.Text)
				}
				if o.Op != '-' {
					gotB = append(gotB, o.Text)
				}
				if o.Op != ' ' {
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

// checkScript fails unless ops turns a into b: kept lines equal on both
// sides, every line of each side once and in order, with its line numbers
// (0 on the side that lacks it).
// It returns the number of edits.
func checkScript(t *testing.T, a, b []string, ops []op) int {
	t.Helper()
	x, y, edits := 0, 0, 0
	for _, o := range ops {
		switch o.Op {
		case ' ':
			if x >= len(a) || y >= len(b) || a[x] != o.Text || b[y] != o.Text || o.Old != x+1 || o.New != y+1 {
				t.Fatalf("kept %q at %d,%d does not stand at line %d of %q and %d of %q", o.Text, o.Old, o.New, x+1, a, y+1, b)
			}
			x++
			y++
		case '-':
			if x >= len(a) || a[x] != o.Text || o.Old != x+1 || o.New != 0 {
				t.Fatalf("removed %q at %d,%d is not line %d of %q", o.Text, o.Old, o.New, x+1, a)
			}
			x++
			edits++
		case '+':
			if y >= len(b) || b[y] != o.Text || o.Old != 0 || o.New != y+1 {
				t.Fatalf("added %q at %d,%d is not line %d of %q", o.Text, o.Old, o.New, y+1, b)
			}
			y++
			edits++
		default:
			t.Fatalf("op %q", o.Op)
		}
	}
	if x != len(a) || y != len(b) {
		t.Fatalf("the script covers %d of %d old lines and %d of %d new ones", x, len(a), y, len(b))
	}
	return edits
}

// randomPair is two lists of lines: with few distinct lines (every
// shortest script has ties to break), or a text of mostly distinct lines,
// with blank and repeated ones, edited in a few places.
func randomPair(rng *rand.Rand) (a, b []string) {
	if rng.IntN(2) == 0 {
		words := []string{"a", "b", "c", "d", "e", "f"}[:2+rng.IntN(5)]
		gen := func() []string {
			out := make([]string, rng.IntN(40))
			for i := range out {
				out[i] = words[rng.IntN(len(words))]
			}
			return out
		}
		return gen(), gen()
	}
	a = make([]string, rng.IntN(300))
	for i := range a {
		switch rng.IntN(10) {
		case 0:
			a[i] = ""
		case 1:
			a[i] = "(repealed)"
		case 2:
			a[i] = fmt.Sprintf("Part %d", rng.IntN(3))
		default:
			a[i] = fmt.Sprintf("line %d: £%d,%03d at %d%%", i, rng.IntN(100), rng.IntN(1000), rng.IntN(50))
		}
	}
	b = slices.Clone(a)
	for range rng.IntN(12) {
		i := rng.IntN(len(b) + 1)
		switch rng.IntN(6) {
		case 0: // a block removed
			b = slices.Delete(b, i, min(len(b), i+1+rng.IntN(4)))
		case 1: // a new line
			b = slices.Insert(b, i, fmt.Sprintf("new %d", rng.IntN(1000)))
		case 2: // lines that the text has elsewhere
			b = slices.Insert(b, i, []string{"", "(repealed)", "Part 1"}[rng.IntN(3):]...)
		case 3: // a line reworded
			if i < len(b) {
				b[i] += " amended"
			}
		case 5: // a figure changed
			if i < len(b) {
				b[i] = strings.Replace(b[i], "%", "5%", 1)
			}
		case 4: // a line moved
			if i < len(b) {
				l := b[i]
				b = slices.Delete(b, i, i+1)
				b = slices.Insert(b, rng.IntN(len(b)+1), l)
			}
		}
	}
	return a, b
}

// TestDiffAsBefore holds the linear-space diff to the trace-keeping one it
// replaced (refDiffLines) and to the edit distance by dynamic programming,
// on random pairs: its script turns the old lines into the new ones; it
// has the fewest edits when they are at most maxEdits, and past that it is
// the old one's, the middle removed and added whole.
func TestDiffAsBefore(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 6000 {
		a, b := randomPair(rng)
		maxEdits := 5000
		if i%2 == 1 {
			maxEdits = rng.IntN(12)
		}
		got, want := diffLines(a, b, maxEdits), refDiffLines(a, b, maxEdits)
		g, w := checkScript(t, a, b, got), checkScript(t, a, b, want)
		shortest := checkScript(t, a, b, refDiffLines(a, b, len(a)+len(b)))
		if len(a)*len(b) <= 2000 && shortest != lcsEdits(a, b) {
			t.Fatalf("case %d: the old diff has %d edits, the shortest %d", i, shortest, lcsEdits(a, b))
		}
		if shortest > maxEdits {
			if script(got) != script(want) {
				t.Fatalf("case %d (max %d, needs %d): past maxEdits\n%s, the old diff\n%s", i, maxEdits, shortest, script(got), script(want))
			}
		} else if g != shortest || w != shortest {
			t.Fatalf("case %d (max %d): %d edits, the old diff %d, the shortest %d:\n%q\n%q", i, maxEdits, g, w, shortest, a, b)
		}
	}
}

// TestDiffRendersAsBefore: where the script is the old diff's, Diff's
// hunks, line cap and changed figures are the old Diff's, byte for byte.
func TestDiffRendersAsBefore(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	same := 0
	for i := range 3000 {
		a, b := randomPair(rng)
		if script(diffLines(a, b, 5000)) != script(refDiffLines(a, b, 5000)) {
			continue
		}
		same++
		opt := DiffOptions{Context: rng.IntN(4), MaxLines: rng.IntN(80)}
		oldText, newText := strings.Join(a, "\n"), strings.Join(b, "\n")+"\n"
		got, want := Diff("a", "b", oldText, newText, opt), refDiff("a", "b", oldText, newText, opt)
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Fatalf("case %d (%+v):\n%#v\nthe old Diff:\n%#v", i, opt, got, want)
		}
	}
	// Half the pairs have few distinct lines, where the two diffs often
	// break ties differently.
	if same < 2500 {
		t.Errorf("only %d of 3000 cases compared", same)
	}
}

// script is an edit script as a string of ' ', '-' and '+'.
func script(ops []op) string {
	var s strings.Builder
	for _, o := range ops {
		s.WriteByte(o.Op)
	}
	return s.String()
}

// TestDiffScriptAsBefore: where several shortest scripts exist, the diff
// shows the one the old diff showed, nearly always: on texts edited in a
// few places, with blank and repeated lines, all but a few in a thousand.
// (The old diff took the first kept line it could, as keepEarliest does;
// the rest is which lines a search from both ends keeps.)
func TestDiffScriptAsBefore(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	differ, edited := 0, 0
	for edited < 3000 {
		a, b := randomPair(rng)
		if len(a) < 40 || slices.Equal(a, b) { // texts edited in a few places
			continue
		}
		edited++
		if got, want := script(diffLines(a, b, 5000)), script(refDiffLines(a, b, 5000)); got != want {
			differ++
			if differ == 1 {
				t.Logf("first of the scripts that differ:\n%s\n%s", got, want)
			}
		}
	}
	t.Logf("%d of %d scripts differ", differ, edited)
	if differ > edited/200 {
		t.Errorf("%d of %d scripts differ from the old diff's", differ, edited)
	}
}

// TestDiffTooExpensive: when the search gives up on the shortest script
// after tooExpensive steps (4096 or more in use, 1 to 3 here), the script
// is still correct: kept lines are equal, and in order.
func TestDiffTooExpensive(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	heuristic := 0
	for i := range 3000 {
		words := 2 + rng.IntN(6)
		gen := func() []int32 {
			out := make([]int32, rng.IntN(60))
			for i := range out {
				out[i] = int32(rng.IntN(words))
			}
			return out
		}
		a, b := gen(), gen()
		s := newSearch(a, b)
		s.tooExpensive = 1 + rng.IntN(3)
		if !s.compare(0, len(a), 0, len(b), false, -1) {
			t.Fatal("compare gave up without a budget")
		}
		var keptA, keptB []int32
		edits := 0
		for i, c := range s.ca {
			if !c {
				keptA = append(keptA, a[i])
			} else {
				edits++
			}
		}
		for i, c := range s.cb {
			if !c {
				keptB = append(keptB, b[i])
			} else {
				edits++
			}
		}
		if !slices.Equal(keptA, keptB) {
			t.Fatalf("case %d: kept %v of %v and %v of %v", i, keptA, a, keptB, b)
		}
		la, lb := make([]string, len(a)), make([]string, len(b))
		for i, x := range a {
			la[i] = fmt.Sprint(x)
		}
		for i, x := range b {
			lb[i] = fmt.Sprint(x)
		}
		if shortest := lcsEdits(la, lb); edits < shortest {
			t.Fatalf("case %d: %d edits, fewer than the shortest script's %d", i, edits, shortest)
		} else if edits > shortest {
			heuristic++
		}
	}
	if heuristic == 0 {
		t.Error("the heuristic never gave a longer script: not exercised")
	}
	t.Logf("%d of 3000 scripts longer than the shortest", heuristic)
}

// TestDiffLinearMemory: a 20,000-line text with 4,000 lines changed into
// lines it has elsewhere (so none is set aside before the search) is
// diffed in memory linear in the lines: 4.7 MiB allocated, where the old
// diff's O(D²) trace took 138 MiB.
func TestDiffLinearMemory(t *testing.T) {
	// Not parallel, as the diff's other tests are: it counts the process's
	// allocations.
	if testing.Short() {
		t.Skip("a 20,000-line diff")
	}
	a := make([]string, 20000)
	for i := range a {
		a[i] = fmt.Sprintf("%d(%d) The rate is %d%%.", i/8, i%8, 10+i%7)
	}
	b := slices.Clone(a)
	for i := 0; i < len(b); i += 10 {
		b[i] = a[(i*7919)%len(a)]
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ops := diffLines(a, b, 5000)
	runtime.ReadMemStats(&after)
	edits := checkScript(t, a, b, ops)
	if edits < 2000 || edits > 5000 {
		t.Fatalf("%d edits: the case is not the one meant", edits)
	}
	// The script alone is 24,000 ops of 40 bytes.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("%d edits took %.1f MiB", edits, float64(alloc)/(1<<20))
	}
}

// figurePattern is what nextFigure finds, as a regular expression.
var figurePattern = regexp.MustCompile(`[£$€¥]?\d+(?:[.,]\d+)*%?`)

// TestFiguresAsThePattern: the figures found are the pattern's matches, on
// random strings of the pieces that matter (and broken UTF-8).
func TestFiguresAsThePattern(t *testing.T) {
	t.Parallel()
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

// A changed line of megabytes is shown by its start, the rest counted:
// the diff of an Act's XML held on one line is not a copy of it.
func TestDiffShowsTheStartOfALongLine(t *testing.T) {
	long := strings.Repeat("<Text>up to $1,000</Text>", 40_000)
	d := Diff("a", "b", "head\n"+long+"\n", "head\n"+long+"x\n", DiffOptions{})
	if d.Added != 1 || d.Removed != 1 {
		t.Fatalf("%d added, %d removed, want 1 each", d.Added, d.Removed)
	}
	if len(d.Unified) > 3*maxShownLine || len(d.Markdown) > 4*maxShownLine {
		t.Errorf("the diff of one changed line of %d bytes takes %d bytes (unified) and %d (Markdown)", len(long), len(d.Unified), len(d.Markdown))
	}
	for _, want := range []string{"-" + long[:1000], fmt.Sprintf("… [%d more bytes on this line]", len(long)-maxShownLine+1), " head"} {
		if !strings.Contains(d.Unified, want) {
			t.Errorf("the diff lacks %.80q…:\n%.500s", want, d.Unified)
		}
	}
}

// NoFigures makes the same unified diff without reading the changed
// lines' figures.
func TestDiffNoFigures(t *testing.T) {
	old, nw := "Band | Rate\nBasic rate | 20%\nHigher rate | 40%\n", "Band | Rate\nBasic rate | 21%\nHigher rate | 40%\n"
	full := Diff("a", "b", old, nw, DiffOptions{})
	bare := Diff("a", "b", old, nw, DiffOptions{NoFigures: true})
	if len(full.Figures) == 0 || bare.Figures != nil || strings.Contains(bare.Markdown, "Changed figures") {
		t.Errorf("figures %v / %v, Markdown %q", full.Figures, bare.Figures, bare.Markdown)
	}
	if bare.Unified != full.Unified || bare.Added != full.Added || bare.Removed != full.Removed {
		t.Errorf("the unified diff differs:\n%s\n%s", bare.Unified, full.Unified)
	}
}
