package textview

import (
	"math"
	"testing"

	"github.com/ledongthuc/pdf"
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
