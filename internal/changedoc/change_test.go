package changedoc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

var update = flag.Bool("update", false, "rewrite the golden files of this package's tests")

func sumOf(s string) store.Sum {
	h := sha256.Sum256([]byte(s))
	return store.Sum(hex.EncodeToString(h[:]))
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/changedoc -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what Of writes now; if the change is meant, run with -update and review the diff\ngot:\n%s", p, got)
	}
}

// example is a change of a source between two texts.
func example(id, oldText, newText string) Input {
	a, b := sumOf(oldText), sumOf(newText)
	return Input{
		Source: id, URL: "https://www.example.gov/" + id, Date: "2026-11-03",
		Old:     store.Entry{SHA256: a, Size: int64(len(oldText)), ContentType: "text/html", FirstSeen: "2026-10-01"},
		New:     store.Entry{SHA256: b, Size: int64(len(newText)), ContentType: "text/html", FirstSeen: "2026-11-03"},
		OldText: oldText, NewText: newText, TextOK: true,
	}
}

// figuresOf is a document's figures, one a line: row [column]: old → new
// (line numbers).
func figuresOf(d Doc) string {
	side := func(v *Value) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%s(%s%s @%d)", v.Text, v.Value, unitOf(v.Unit), v.Line)
	}
	var b strings.Builder
	for _, f := range d.Figures {
		fmt.Fprintf(&b, "%s [%s]: %s → %s\n", f.Row, f.Column, side(f.Old), side(f.New))
	}
	return b.String()
}

const ukRates = `Income Tax rates and bands
Band | Taxable income | Tax rate
Personal Allowance | Up to £12,570 | 0%
Basic rate | £12,571 to £50,270 | 20%
Higher rate | £50,271 to £125,140 | 40%
Additional rate | over £125,140 | 45%
The rates apply from 6 April 2026.
`

// TestUKRatesRow: a rate changed in the UK table is 20% → 21% in the
// Basic rate row, Tax rate column, on line 4 of each text; the golden
// file is the whole document.
func TestUKRatesRow(t *testing.T) {
	newText := strings.Replace(ukRates, "| 20%", "| 21%", 1)
	d := Of(example("uk-income-tax-rates", ukRates, newText))
	want := "Basic rate [Tax rate]: 20%(20[%] @4) → 21%(21[%] @4)\n"
	if got := figuresOf(d); got != want {
		t.Errorf("figures:\n%s\nwant:\n%s", got, want)
	}
	if d.Text != TextChanged || d.Removed != 1 || d.Added != 1 || len(d.Hunks) != 1 {
		t.Errorf("text %s, %d removed, %d added, %d hunks", d.Text, d.Removed, d.Added, len(d.Hunks))
	}
	data, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "uk-rates.json", data)
}

// TestPlainRow: the same row as a line of text with no cells (a PDF read
// without its layout), several figures changed, one of them a band limit.
func TestPlainRow(t *testing.T) {
	d := Of(example("uk-rates-pdf",
		"Rates for 2026 to 2027\nBasic rate £12,571 to £50,270 20%\nHigher rate £50,271 to £125,140 40%\n",
		"Rates for 2026 to 2027\nBasic rate £12,571 to £50,270 21%\nHigher rate £50,271 to £125,000 40%\n"))
	want := "Basic rate []: 20%(20[%] @2) → 21%(21[%] @2)\n" +
		"Higher rate []: £125,140(125140[£] @3) → £125,000(125000[£] @3)\n"
	if got := figuresOf(d); got != want {
		t.Errorf("figures:\n%s\nwant:\n%s", got, want)
	}
}

// TestGermanAndFrenchFigures: figures written with a decimal comma,
// points or spaces between thousands and the unit after the number.
func TestGermanAndFrenchFigures(t *testing.T) {
	de := Of(example("de-est-tarif",
		"Tarif 2026\nGrundfreibetrag | 12.096 € | 0 %\nEingangssteuersatz | ab 12.097 € | 14,0 %\n",
		"Tarif 2026\nGrundfreibetrag | 12.348 € | 0 %\nEingangssteuersatz | ab 12.349 € | 14,5 %\n"))
	want := "Grundfreibetrag []: 12.096 €(12096[€] @2) → 12.348 €(12348[€] @2)\n" +
		"Eingangssteuersatz []: 12.097 €(12097[€] @3) → 12.349 €(12349[€] @3)\n" +
		"Eingangssteuersatz []: 14,0 %(14.0[%] @3) → 14,5 %(14.5[%] @3)\n"
	if got := figuresOf(de); got != want {
		t.Errorf("German figures:\n%s\nwant:\n%s", got, want)
	}
	fr := Of(example("fr-bareme",
		"Barème 2026\nTranche | Revenu | Taux\nJusqu'à 11 497 € | 0 € à 11 497 € | 0 %\nDeuxième tranche | 11 498 € à 29 315 € | 11 %\n",
		"Barème 2026\nTranche | Revenu | Taux\nJusqu'à 11 497 € | 0 € à 11 497 € | 0 %\nDeuxième tranche | 11 600 € à 29 579 € | 11 %\n"))
	want = "Deuxième tranche [Revenu]: 11 498 €(11498[€] @4) → 11 600 €(11600[€] @4)\n" +
		"Deuxième tranche [Revenu]: 29 315 €(29315[€] @4) → 29 579 €(29579[€] @4)\n"
	if got := figuresOf(fr); got != want {
		t.Errorf("French figures:\n%s\nwant:\n%s", got, want)
	}
	data, err := fr.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fr-bareme.json", data)
}

// TestRowsPairedByLabel: a row inserted in a table and the rows below it
// changed: each changed row pairs with its own label, not with the line
// at its position, and the new row's figures are new.
func TestRowsPairedByLabel(t *testing.T) {
	d := Of(example("uk-scottish-rates",
		"Band | Income | Rate\nStarter rate | £12,571 to £14,876 | 19%\nBasic rate | £14,877 to £26,561 | 20%\nIntermediate rate | £26,562 to £43,662 | 21%\n",
		"Band | Income | Rate\nStarter rate | £12,571 to £15,397 | 19%\nBasic rate | £15,398 to £27,491 | 20%\nIntermediate rate | £27,492 to £43,662 | 21%\nAdvanced rate | £75,001 to £125,140 | 45%\n"))
	want := "Starter rate [Income]: £14,876(14876[£] @2) → £15,397(15397[£] @2)\n" +
		"Basic rate [Income]: £14,877(14877[£] @3) → £15,398(15398[£] @3)\n" +
		"Basic rate [Income]: £26,561(26561[£] @3) → £27,491(27491[£] @3)\n" +
		"Intermediate rate [Income]: £26,562(26562[£] @4) → £27,492(27492[£] @4)\n" +
		"Advanced rate [Income]: - → £75,001(75001[£] @5)\n" +
		"Advanced rate [Income]: - → £125,140(125140[£] @5)\n" +
		"Advanced rate [Rate]: - → 45%(45[%] @5)\n"
	if got := figuresOf(d); got != want {
		t.Errorf("figures:\n%s\nwant:\n%s", got, want)
	}

	// The same rows in another order: each pairs with its label.
	d = Of(example("xa-swap",
		"A | B\nalpha | 1%\nbeta | 2%\n",
		"A | B\nbeta | 3%\nalpha | 1%\n"))
	if got, want := figuresOf(d), "beta [B]: 2%(2[%] @3) → 3%(3[%] @2)\n"; got != want {
		t.Errorf("rows reordered:\n%s\nwant:\n%s", got, want)
	}
}

// TestProseRewriteIsNotPaired: lines that do not look alike are not
// compared figure by figure (their figures are in the hunks).
func TestProseRewriteIsNotPaired(t *testing.T) {
	d := Of(example("xa-prose",
		"Intro\nThe scheme closed on 5 April 2025 for 3 reasons.\n",
		"Intro\nApply online within 30 days of receiving form P60.\n"))
	if len(d.Figures) != 0 || d.Text != TextChanged {
		t.Errorf("figures of unrelated lines: %+v", d.Figures)
	}
}

// TestSameAndUnreadable: only the bytes changed, or a text is missing:
// the document says so, with no hunk.
func TestSameAndUnreadable(t *testing.T) {
	in := example("xa", "same\n", "same\n")
	in.New.SHA256 = sumOf("other bytes")
	if d := Of(in); d.Text != TextSame || len(d.Hunks) != 0 || d.Figures == nil {
		t.Errorf("same text: %+v", d)
	}
	in.TextOK = false
	if d := Of(in); d.Text != TextUnreadable || len(d.Hunks) != 0 {
		t.Errorf("no text: %+v", d)
	}
}

// TestCaps: a document rewritten whole shows MaxLines lines of hunks and
// counts the rest.
func TestCaps(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&a, "row %d | %d%%\n", i, i%50)
		fmt.Fprintf(&b, "row %d | %d%%\n", i, i%50+1)
	}
	d := Of(example("xa-big", a.String(), b.String()))
	shown := 0
	for _, h := range d.Hunks {
		shown += len(h.Lines)
	}
	if shown != MaxLines || d.OmittedLines != 6000-MaxLines || d.Removed != 3000 || d.Added != 3000 {
		t.Errorf("%d lines shown, %d omitted, %d removed, %d added", shown, d.OmittedLines, d.Removed, d.Added)
	}
	if len(d.Figures) != MaxFigures || d.OmittedFigures != 3000-MaxFigures {
		t.Errorf("%d figures, %d omitted", len(d.Figures), d.OmittedFigures)
	}
}

// TestFiguresOfARewriteAreBounded: a text rewritten whole has its
// figures read in its first MaxFigureLines changed lines only, the rest
// counted: before, every line's figures were held at once (a 200,000-line
// act rewritten took 110 MB to show a thousand), and the memory a change
// costs grew with the text.
func TestFiguresOfARewriteAreBounded(t *testing.T) {
	const rows = MaxFigureLines // as many rows removed as added: twice the bound
	var a, b strings.Builder
	for i := range rows {
		fmt.Fprintf(&a, "row %d | %d%%\n", i, i%50)
		fmt.Fprintf(&b, "row %d | %d%%\n", i, i%50+1)
	}
	d := Of(example("xa-big", a.String(), b.String()))
	if d.Removed != rows || d.Added != rows {
		t.Fatalf("%d removed, %d added, want %d each", d.Removed, d.Added, rows)
	}
	if d.UnreadLines != 2*rows-MaxFigureLines {
		t.Errorf("%d changed lines unread, want %d", d.UnreadLines, 2*rows-MaxFigureLines)
	}
	if len(d.Figures) != MaxFigures || d.Figures[0].Old == nil || d.Figures[0].New == nil {
		t.Fatalf("%d figures, the first %+v: want %d, paired", len(d.Figures), d.Figures[0], MaxFigures)
	}
	// The lines read are the first hunk's: removed rows then added rows,
	// so the pairs found are of rows within the bound.
	if d.OmittedFigures <= 0 || d.OmittedFigures+MaxFigures > rows {
		t.Errorf("%d figures omitted: more than the lines read hold", d.OmittedFigures)
	}
	small := Of(example("xa-small", "row 1 | 20%\n", "row 1 | 21%\n"))
	if small.UnreadLines != 0 || len(small.Figures) != 1 {
		t.Errorf("a small change: %d unread, %d figures", small.UnreadLines, len(small.Figures))
	}
}

// TestPathAndParse: the document's name says its change, and Parse
// reads back what JSON wrote, refusing a document under another name.
func TestPathAndParse(t *testing.T) {
	in := example("uk-income-tax-rates", ukRates, strings.Replace(ukRates, "20%", "21%", 1))
	d := Of(in)
	p := Path(d.Source, d.Date, d.From.SHA256, d.To.SHA256)
	if want := "changes/uk-income-tax-rates/2026-11-03_" + string(in.Old.SHA256[:12]) + ".." + string(in.New.SHA256[:12]) + ".json"; p != want {
		t.Errorf("Path = %s, want %s", p, want)
	}
	data, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(p, data)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.JSON()
	if !bytes.Equal(again, data) {
		t.Errorf("Parse and JSON do not round-trip:\n%s\n%s", data, again)
	}
	for _, bad := range []struct{ path, data, want string }{
		{strings.Replace(p, "2026-11-03", "2026-11-04", 1), string(data), "not the one its name says"},
		{"changes/x.json", string(data), "is not named"},
		{p, strings.Replace(string(data), `"version": 1`, `"version": 2`, 1), "version 2"},
		{p, strings.Replace(string(data), `"returned"`, `"extra": 1, "returned"`, 1), "unknown field"},
	} {
		if _, err := Parse(bad.path, []byte(bad.data)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Parse(%s): %v, want an error saying %q", bad.path, err, bad.want)
		}
	}
}
