package textview

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ledongthuc/pdf"

	"github.com/taxkernel/taxkernelbot/internal/textbomb"
)

// TestLayoutDamagedGeometry: a page with an absurd width or glyphs at
// absurd places still lays out, without a gutter search sized by the
// damage.
func TestLayoutDamagedGeometry(t *testing.T) {
	glyphs := []pdf.Text{
		{Font: "Helvetica", FontSize: 10, X: 40, Y: 800, S: "Basic rate"},
		{Font: "Helvetica", FontSize: 10, X: 1e15, Y: 800, S: "20%"},
		{Font: "Helvetica", FontSize: math.NaN(), X: math.Inf(1), Y: math.NaN(), S: "x"},
	}
	for _, width := range []float64{0, 1e12, math.NaN(), math.Inf(1)} {
		got := layoutPage(glyphs, width)
		if len(got) == 0 || got[0] != "Basic rate | 20%" {
			t.Errorf("width %v: got %q", width, got)
		}
	}
}

// rawPDF writes a PDF from numbered object bodies (object i+1 is objs[i],
// object 1 the catalog), with a correct cross-reference table.
func rawPDF(objs ...string) []byte { return textbomb.Raw(objs...) }

func textPage(parent int, content int) string {
	return fmt.Sprintf("<< /Type /Page /Parent %d 0 R /Contents %d 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>", parent, content)
}

func stream(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}

// TestPDFPageTree: pages of a nested tree come in order, with the
// MediaBox they inherit; a tree whose Kids loop back ends.
func TestPDFPageTree(t *testing.T) {
	nested := rawPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>",
		"<< /Type /Pages /Parent 2 0 R /Kids [5 0 R] /Count 1 >>",
		textPage(2, 7),
		textPage(3, 6),
		stream("BT /F1 10 Tf 40 700 Td (first page) Tj ET"),
		stream("BT /F1 10 Tf 40 700 Td (second page) Tj ET"),
	)
	res := Extract(t.Context(), nested, "application/pdf", Limits{})
	if res.Text != "[page 1]\nfirst page\n[page 2]\nsecond page\n" {
		t.Errorf("nested tree: %q (%s)", res.Text, res.Reason)
	}
	var pages []pdfLeaf
	r, err := pdf.NewReader(bytes.NewReader(nested), int64(len(nested)))
	if err != nil {
		t.Fatal(err)
	}
	budget := 1000
	collectPages(r.Trailer().Key("Root").Key("Pages"), 0, 0, 100, &budget, &pages)
	if len(pages) != 2 || pages[0].width != 612 || pages[1].width != 612 {
		t.Errorf("pages %+v, want 2 of width 612", pages)
	}

	// Kids that name their own node twice: 2^64 paths without a budget.
	loop := rawPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 1 >>",
	)
	res = Extract(t.Context(), loop, "application/pdf", Limits{})
	if res.Text != "" || res.Reason == "" || strings.Contains(res.Reason, "did not finish") {
		t.Errorf("looping tree: %q (%s)", res.Text, res.Reason)
	}
}
