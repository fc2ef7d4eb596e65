package textview

import (
	"strings"
	"testing"
)

// TestExtractPDFToText: with pdftotext, a table row is one line with its
// cells in order, and the pages are marked as the built-in extractor
// marks them.
func TestExtractPDFToText(t *testing.T) {
	if tool := pdftotext(); tool.path == "" {
		t.Skipf("%s: the pdftotext engine is not tested here (.ci/run installs poppler-utils)", tool.why)
	}
	res := Extract(t.Context(), makePDF(t, tablePage, columnsPage), "application/pdf", Limits{})
	if !res.OK() || !strings.HasPrefix(res.Engine, "pdftotext ") {
		t.Fatalf("engine %q, reason %q", res.Engine, res.Reason)
	}
	for _, want := range []string{
		"[page 1]\nIncome Tax rates and bands 2026 to 2027\nBand | Taxable income | Tax rate\n",
		"\nBasic rate | £12,571 to £50,270 | 20%\n",
		"\n[page 2]\nHow Income Tax is collected\n",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("no %q in:\n%s", want, res.Text)
		}
	}
	// Two columns of prose: the whole left column before the right one.
	left := strings.Index(res.Text, "The basic rate applies to taxable income above the\nPersonal Allowance.")
	leftEnd := strings.LastIndex(res.Text, "\ntotal.\n")
	right := strings.Index(res.Text, "\nEmployers deduct tax through the payroll each\nmonth.")
	if left < 0 || leftEnd < left || right < leftEnd {
		t.Errorf("columns not read in order (left %d..%d, right %d):\n%s", left, leftEnd, right, res.Text)
	}
	if strings.Count(res.Text, "[page ") != 2 || strings.Contains(res.Text, "\f") {
		t.Errorf("pages not marked right:\n%s", res.Text)
	}
	res = Extract(t.Context(), makePDF(t, tablePage, tablePage, tablePage), "application/pdf", Limits{MaxPages: 2})
	if strings.Count(res.Text, "[page ") != 2 || !res.Truncated || !strings.Contains(res.Reason, "first 2 pages") {
		t.Errorf("MaxPages: got %q, truncated %v, %q", res.Text, res.Truncated, res.Reason)
	}
	res = Extract(t.Context(), []byte("%PDF-1.7\nnot really a pdf"), "application/pdf", Limits{})
	if res.Text != "" || !strings.Contains(res.Reason, "cannot read the pdf: pdftotext:") {
		t.Errorf("damaged: got %q, %q", res.Text, res.Reason)
	}
}

// TestExtractPDFWithoutPdftotext: a machine without pdftotext still gets
// the text of a PDF, from the built-in extractor, and its engine says why.
func TestExtractPDFWithoutPdftotext(t *testing.T) {
	for _, setting := range []string{"off", t.TempDir() + "/no-such-pdftotext"} {
		t.Setenv(PDFToTextEnv, setting)
		res := Extract(t.Context(), makePDF(t, tablePage), "application/pdf", Limits{})
		if !res.OK() || !strings.Contains(res.Text, "Basic rate | £12,571 to £50,270 | 20%") {
			t.Errorf("%s: reason %q, text:\n%s", setting, res.Reason, res.Text)
		}
		if !strings.HasPrefix(res.Engine, "built-in (ledongthuc/pdf), because ") {
			t.Errorf("%s: engine %q", setting, res.Engine)
		}
		t.Logf("%s: %s", setting, res.Engine)
	}
}

func TestCells(t *testing.T) {
	for in, want := range map[string]string{
		"   Basic rate      £12,571 to £50,270    20%  ": "Basic rate | £12,571 to £50,270 | 20%",
		"one  two":      "one two",
		"":              "",
		"\t a \t\t\t b": "a | b",
	} {
		if got := cells(in); got != want {
			t.Errorf("cells(%q) = %q, want %q", in, got, want)
		}
	}
}
