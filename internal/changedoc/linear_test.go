package changedoc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// The column headings of the figures of a long changed line are found
// by reading each line once, not once per figure: the bytes read for
// cells stay within a few times the texts' size however many figures
// change on the line (before, each figure read its whole line again: a
// 300 KB line of XML with 16,000 figures cost minutes).
func TestHeadingsReadEachLineOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		row    func(i, v int) string
		column string
	}{
		// A line of XML: no cells, so no heading to find.
		{"xml", func(i, v int) string {
			return fmt.Sprintf(`<Subsection lims:id="%d"><Text>up to $%d,%03d</Text></Subsection>`, i, 1+v, i%1000)
		}, ""},
		// A table row of thousands of cells under a heading row.
		{"table", func(i, v int) string { return fmt.Sprintf("£%d,%03d | ", 1+v, i%1000) }, "Amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 4000
			var head, old, nw strings.Builder
			for i := range n {
				head.WriteString("Amount | ")
				old.WriteString(tc.row(i, 0))
				nw.WriteString(tc.row(i, 1))
			}
			prefix := ""
			if tc.column != "" {
				prefix = head.String() + "Rate\n"
				old.WriteString("20%")
				nw.WriteString("20%")
			}
			oldText, newText := prefix+old.String()+"\n", prefix+nw.String()+"\n"
			hs := textview.Hunks(oldText, newText, textview.DiffOptions{})
			read := new(int)
			tx := texts{newTextLines(oldText, read), newTextLines(newText, read)}
			figs := figureChanges(hs, tx, '.')
			if len(figs) < n {
				t.Fatalf("%d figures changed, want at least %d", len(figs), n)
			}
			for _, f := range figs[:3] {
				if f.Column != tc.column {
					t.Errorf("figure %s → %s under %q, want %q", f.Old.Text, f.New.Text, f.Column, tc.column)
				}
			}
			size := len(oldText) + len(newText)
			if *read > 4*size {
				t.Errorf("read %d bytes for the cells of %d figures in texts of %d bytes: more than 4× the texts, so quadratic in the line's length", *read, len(figs), size)
			}
		})
	}
}
