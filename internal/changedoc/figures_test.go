package changedoc

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/textview"
)

func show(fs []figure) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s=%s%s", f.text, f.value, unitOf(f.unit)))
	}
	return strings.Join(parts, " ")
}

func unitOf(u string) string {
	if u == "" {
		return ""
	}
	return "[" + u + "]"
}

// TestScan reads figures as pages write them, in English, German,
// French, Swiss and Spanish, and leaves alone what is no figure.
func TestScan(t *testing.T) {
	for _, tc := range []struct {
		line string
		dec  byte
		want string
	}{
		{"Basic rate £12,571 to £50,270 20%", 0, "£12,571=12571[£] £50,270=50270[£] 20%=20[%]"},
		{"Basic rate | £12,571 to £50,270 | 21%", 0, "£12,571=12571[£] £50,270=50270[£] 21%=21[%]"},
		{"Grundfreibetrag 12.096 € | 14 %", ',', "12.096 €=12096[€] 14 %=14[%]"},
		{"Eingangssteuersatz 14,5 %", 0, "14,5 %=14.5[%]"},
		{"1.234.567,89 EUR", 0, "1.234.567,89 EUR=1234567.89[EUR]"},
		{"Abattement de 10 000 € et taux de 5,5 %", 0, "10 000 €=10000[€] 5,5 %=5.5[%]"},
		{"plafond 1 000,50 €", 0, "1 000,50 €=1000.50[€]"},
		{"CHF 1'250'000.50", 0, "CHF 1'250'000.50=1250000.50[CHF]"},
		{"$1,234.56 and US$5", 0, "$1,234.56=1234.56[$] US$5=5[US$]"},
		{"a rate of 20 per cent", 0, "20 per cent=20[%]"},
		{"0.125% and 1,375%", 0, "0.125%=0.125[%] 1,375%=1.375[%]"},
		{"1.000 in a text that writes 12,5", ',', "1.000=1000 12,5=12.5"},
		{"1.000 in a text that writes 12.5", '.', "1.000=1.000 12.5=12.5"},
		{"1,000 with no other clue", 0, "1,000=1000"},
		{"loss of -£5 and −3%", 0, "-£5=-5[£] −3%=-3[%]"},
		{"tax year 2025-26", 0, "2025=2025 26=26"},
		{"in 2026 500 people", 0, "2026=2026 500=500"},
		{"section 2.1.3 on 01.04.2026", 0, "2.1.3= 01.04.2026="},
		{"Act C2004A05138 v2.1 S4", 0, ""},
		{"£50,270 20%", 0, "£50,270=50270[£] 20%=20[%]"},
		{"0007", 0, "0007=7"},
	} {
		if got := show(scan(tc.line, tc.dec)); got != tc.want {
			t.Errorf("scan(%q, %q)\n got %s\nwant %s", tc.line, tc.dec, got, tc.want)
		}
	}
}

// TestDecimalMark learns a text's decimal mark from its unambiguous
// figures.
func TestDecimalMark(t *testing.T) {
	for _, tc := range []struct {
		text string
		want byte
	}{
		{"Steuersatz 14,5 %\nGrenze 1.000.000 €\n", ','},
		{"rate 12.5%\nlimit 1,000,000\n", '.'},
		{"1,000\n1.000\n", 0},
		{"am 01.04.2026\n", 0},
		// The first figures that show a mark decide.
		{strings.Repeat("Satz 14,5 %\n", maxVotes) + strings.Repeat("rate 12.5%\n", 2*maxVotes), ','},
	} {
		if got := decimalMark(tc.text); got != tc.want {
			t.Errorf("decimalMark(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestRowLabel labels table rows and lines of a few words before a
// figure, not prose.
func TestRowLabel(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"Basic rate £12,571 to £50,270 20%", "Basic rate"},
		{"Basic rate | £12,571 to £50,270 | 20%", "Basic rate"},
		{"£0 to £12,570 | Personal Allowance | 0%", "Personal Allowance"},
		{"Personal Allowance: £12,570", "Personal Allowance"},
		{"If you earn more than this and you are not married or in a civil partnership you pay £100", ""},
		{"No figure here", ""},
	} {
		if got := rowLabel(tc.line, scan(tc.line, 0)); got != tc.want {
			t.Errorf("rowLabel(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

var valuePattern = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$`)

// FuzzScan: on any line, scan's figures are pieces of it, in order,
// apart, each with a value as the schema says (or none), and a document
// of two such lines is made without a panic.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"Basic rate | £12,571 to £50,270 | 20%", "1.234,56 € | −3 %", "CHF 1'250'000.50", "v2.1 2.1.3 01.04.2026", "1 000,5 EUR", "-$-5", "US$"} {
		f.Add(s, s+"1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, dec := range []byte{0, ',', '.'} {
			end := 0
			for _, fg := range scan(a, dec) {
				if fg.start < end || fg.start >= fg.end || fg.end > len(a) || a[fg.start:fg.end] != fg.text {
					t.Fatalf("scan(%q): figure %+v is not a piece of the line after %d", a, fg, end)
				}
				if fg.value != "" && !valuePattern.MatchString(fg.value) {
					t.Fatalf("scan(%q): value %q", a, fg.value)
				}
				end = fg.end
			}
		}
		Of(Input{Source: "x", Date: "2026-11-01", OldText: a, NewText: b, TextOK: true})
	})
}

// mayShowNoMark passes over no line that holds a figure with a comma or
// point showing no decimal mark: random lines of digits, marks, spaces
// and words, each read figure by figure as ambiguous did before.
func TestMayShowNoMarkMissesNoAmbiguousFigure(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5))
	pieces := []string{"0", "1", "2", "3", "5", "9", "12", "100", "000", "1234", ",", ".", " ", "'", "’", "\u00a0", "%", " per cent", "£", "€", "US$", "-", "a", "Section ", "EUR", "|", "("}
	ambiguousLines := 0
	for range 400_000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		line := b.String()
		found := false
		eachFigure(line, 0, func(f figure) bool {
			found = f.decimal == 0 && strings.ContainsAny(f.text, ",.")
			return !found
		})
		if found {
			ambiguousLines++
			if !mayShowNoMark(line) {
				t.Fatalf("%q holds a figure that shows no decimal mark, and mayShowNoMark passes over it", line)
			}
		}
	}
	if ambiguousLines < 1000 {
		t.Fatalf("only %d of the random lines hold such a figure: the test proves little", ambiguousLines)
	}
	for _, line := range []string{"1,000", "£1.000 a year", "2.1.3", "01.04.2026", "1,234.56.7", "Section 4.500"} {
		if !mayShowNoMark(line) {
			t.Errorf("mayShowNoMark(%q) = false", line)
		}
	}
}

// A text rewritten whole whose figures all show their mark (12.5 per
// cent) is not read figure by figure to learn that none is ambiguous:
// no figure is parsed, so nothing is allocated.
func TestAmbiguousPassesOverLinesOfPlainDecimals(t *testing.T) {
	var lines []textview.HunkLine
	for i := range 10_000 {
		lines = append(lines, textview.HunkLine{Op: '-', Old: i + 1, Text: fmt.Sprintf("Section %d (0). The rate is %d.%d per cent of £%d.", i, i%40, i%10, 100+i)})
	}
	hs := []textview.Hunk{{Lines: lines}}
	var amb bool
	if n := testing.AllocsPerRun(3, func() { amb = ambiguous(hs) }); n != 0 || amb {
		t.Errorf("ambiguous: %v, %v allocations, want false and none (no figure read)", amb, n)
	}
}

// A figure is read without a heap allocation for its groups of digits,
// only its value when grouped (12570 of 12,570): a text rewritten whole
// has its figures read by the ten thousand.
func TestNumberReadsOnTheStack(t *testing.T) {
	for _, line := range []string{"The rate is 20 per cent", "up to £12,570", "1 000 000 EUR"} {
		i := strings.IndexAny(line, "0123456789")
		var f figure
		if n := testing.AllocsPerRun(100, func() { f, _ = number(line, 0, i, 0) }); n > 1 {
			t.Errorf("%q: %v allocations to read %q", line, n, f.text)
		}
	}
}
