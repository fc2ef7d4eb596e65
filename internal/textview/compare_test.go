package textview

import (
	"bytes"
	"io"
	"strings"
	"testing"

	dslipak "github.com/dslipak/pdf"
	"github.com/ledongthuc/pdf"
)

// TestCompareExtractors is the comparison behind the choice of the
// built-in PDF library (used where pdftotext is not): github.com/ledongthuc/pdf
// against github.com/dslipak/pdf,
// the two maintained pure-Go PDF readers with text positions. Both are read
// on the generated PDFs through their own plain-text output and through
// this package's layout; and both are given damaged copies (cut at many
// places, bytes flipped) to count the panics that reach the caller. It
// logs the comparison and checks what the choice relies on.
func TestCompareExtractors(t *testing.T) {
	t.Setenv(PDFToTextEnv, "off")
	docs := map[string][]byte{
		"table":   makePDF(t, tablePage),
		"columns": makePDF(t, columnsPage),
		"mixed":   makePDF(t, mixedPage),
	}
	for _, name := range []string{"table", "columns", "mixed"} {
		raw := docs[name]
		a, aerr := nativeLedongthuc(raw)
		b, berr := nativeDslipak(raw)
		t.Logf("%s: ledongthuc plain text (err %v):\n%s", name, aerr, a)
		t.Logf("%s: dslipak plain text (err %v):\n%s", name, berr, b)
		got := Extract(t.Context(), raw, "application/pdf", Limits{}).Text
		t.Logf("%s: this package (ledongthuc glyphs + layout):\n%s", name, got)
		if !strings.Contains(got, "Basic rate | £12,571 to £50,270 | 20%") && name != "columns" {
			t.Errorf("%s: the chosen extractor lost the table row", name)
		}
	}

	// Damaged copies. Cut copies are given to both libraries; copies with
	// a flipped byte only to the chosen one: on those, dslipak/pdf loops
	// forever inside its content-stream parser (12 of 40 in a trial with a
	// watchdog), which a test cannot stop.
	raw := docs["mixed"]
	var cuts, flips [][]byte
	for cut := 200; cut < len(raw); cut += len(raw) / 40 {
		cuts = append(cuts, raw[:cut])
	}
	for i := 300; i < len(raw); i += len(raw) / 40 {
		c := bytes.Clone(raw)
		c[i] ^= 0x5a
		flips = append(flips, c)
	}
	var panicsA, panicsB, panicsFlipA int
	for _, c := range cuts {
		if panics(func() { _, _ = nativeLedongthuc(c) }) {
			panicsA++
		}
		if panics(func() { _, _ = nativeDslipak(c) }) {
			panicsB++
		}
	}
	for _, c := range flips {
		if panics(func() { _, _ = nativeLedongthuc(c) }) {
			panicsFlipA++
		}
	}
	t.Logf("cut copies: %d; panics: ledongthuc %d, dslipak %d", len(cuts), panicsA, panicsB)
	t.Logf("flipped copies: %d; ledongthuc panics %d (dslipak: not run, it hangs)", len(flips), panicsFlipA)
	// Extract itself never panics, whatever the library does, and says why
	// it has no text.
	for i, c := range append(cuts, flips...) {
		var res Result
		if panics(func() { res = Extract(t.Context(), c, "application/pdf", Limits{}) }) {
			t.Fatalf("copy %d: Extract panicked on a damaged PDF", i)
		}
		if res.Text == "" && res.Reason == "" {
			t.Errorf("copy %d: no text and no reason", i)
		}
	}
}

func panics(f func()) (panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	f()
	return false
}

func nativeLedongthuc(raw []byte) (string, error) {
	r, err := pdf.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return "", err
	}
	rd, err := r.GetPlainText()
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(rd)
	return string(b), err
}

func nativeDslipak(raw []byte) (string, error) {
	r, err := dslipak.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return "", err
	}
	rd, err := r.GetPlainText()
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(rd)
	return string(b), err
}

// A verdict alone (the run's question: keep the new bytes?) is the full
// comparison's, without the diff.
func TestCompareVerdictOnly(t *testing.T) {
	doc := func(s string) Doc { return Doc{Raw: []byte(s), ContentType: "text/plain"} }
	for _, tc := range []struct{ old, new string }{
		{"Basic rate 20%\n", "Basic rate 21%\n"},
		{"Basic rate 20%\n", "Basic  rate\t20%\n\n"},
		{"a\nb\n", "b\na\n"},
		{"same\n", "same\n"},
		{"", "new\n"},
	} {
		full := Compare(t.Context(), nil, doc(tc.old), doc(tc.new), "a", "b", Limits{}, DiffOptions{})
		verdict := Compare(t.Context(), nil, doc(tc.old), doc(tc.new), "a", "b", Limits{}, DiffOptions{VerdictOnly: true})
		if verdict.Changed != full.Changed || verdict.DefaultView != full.DefaultView {
			t.Errorf("%q → %q: verdict %v, full comparison %v", tc.old, tc.new, verdict.Changed, full.Changed)
		}
		if verdict.Diff.Unified != "" || verdict.Diff.Changed() {
			t.Errorf("%q → %q: a diff was made: %+v", tc.old, tc.new, verdict.Diff)
		}
	}
}
