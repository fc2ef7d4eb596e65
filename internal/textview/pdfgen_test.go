package textview

import (
	"bytes"
	"testing"

	"github.com/go-pdf/fpdf"
)

// The PDFs of these tests are made here, with a PDF writer, in the shapes
// tax offices publish: a rates table with ruled cells, a page of prose set
// in two columns under a full-width heading, and both on one page.

// ratesRows is a rates table: band, taxable income, rate.
var ratesRows = [][]string{
	{"Band", "Taxable income", "Tax rate"},
	{"Personal Allowance", "Up to £12,570", "0%"},
	{"Basic rate", "£12,571 to £50,270", "20%"},
	{"Higher rate", "£50,271 to £125,140", "40%"},
	{"Additional rate", "over £125,140", "45%"},
}

const (
	leftColumn  = "The basic rate applies to taxable income above the Personal Allowance. It is charged at twenty per cent on the part of income within the band, after allowances and reliefs have been deducted from the total."
	rightColumn = "Employers deduct tax through the payroll each month. Employees receive a payslip showing the deduction, and a summary at the end of the tax year that states the income and the tax paid in the year."
)

type pdfPage func(f *fpdf.Fpdf)

// makePDF writes an A4 PDF (points) with one page per function.
func makePDF(t testing.TB, pages ...pdfPage) []byte {
	t.Helper()
	f := fpdf.New("P", "pt", "A4", "")
	f.SetMargins(40, 40, 40)
	f.SetAutoPageBreak(false, 40)
	for _, p := range pages {
		f.AddPage()
		f.SetFont("Helvetica", "", 10)
		p(f)
	}
	var b bytes.Buffer
	if err := f.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func tablePage(f *fpdf.Fpdf) { writeTable(f, 60) }

func writeTable(f *fpdf.Fpdf, y float64) {
	tr := f.UnicodeTranslatorFromDescriptor("")
	f.SetFont("Helvetica", "B", 14)
	f.SetXY(40, y)
	f.CellFormat(0, 20, "Income Tax rates and bands 2026 to 2027", "", 1, "L", false, 0, "")
	f.SetFont("Helvetica", "", 10)
	widths := []float64{170, 200, 80}
	for _, row := range ratesRows {
		f.SetX(40)
		for i, cell := range row {
			align := "L"
			if i == 2 {
				align = "R"
			}
			f.CellFormat(widths[i], 16, tr(cell), "1", 0, align, false, 0, "")
		}
		f.Ln(16)
	}
}

func columnsPage(f *fpdf.Fpdf) {
	f.SetFont("Helvetica", "B", 14)
	f.SetXY(40, 40)
	f.CellFormat(0, 20, "How Income Tax is collected", "", 1, "L", false, 0, "")
	f.SetFont("Helvetica", "", 10)
	writeColumns(f, 70)
}

func writeColumns(f *fpdf.Fpdf, y float64) {
	f.SetXY(40, y)
	f.MultiCell(245, 13, leftColumn+" "+leftColumn, "", "L", false)
	f.SetXY(310, y)
	f.MultiCell(245, 13, rightColumn+" "+rightColumn, "", "L", false)
}

func mixedPage(f *fpdf.Fpdf) {
	f.SetFont("Helvetica", "B", 14)
	f.SetXY(40, 40)
	f.CellFormat(0, 20, "Guidance and rates", "", 1, "L", false, 0, "")
	f.SetFont("Helvetica", "", 10)
	writeColumns(f, 70)
	writeTable(f, 300)
}
