package changedoc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/textbomb"
)

// BenchmarkOf is the change document of a 5,000-row table in which one
// row in a hundred has a new rate: the diff, the figures of 100 pairs of
// rows, the JSON.
//
//	go test -run '^$' -bench Of -benchmem ./internal/changedoc
func BenchmarkOf(b *testing.B) {
	var a, c strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&a, "Band %d | £%d,%03d to £%d,%03d | %d%%\n", i, i, i%1000, i+1, i%1000, 20)
		rate := 20
		if i%100 == 50 {
			rate = 21
		}
		fmt.Fprintf(&c, "Band %d | £%d,%03d to £%d,%03d | %d%%\n", i, i, i%1000, i+1, i%1000, rate)
	}
	in := example("xa-big", a.String(), c.String())
	b.SetBytes(int64(a.Len() + c.Len()))
	for b.Loop() {
		d := Of(in)
		if len(d.Figures) != 50 {
			b.Fatalf("%d figures, want 50", len(d.Figures))
		}
		if _, err := d.JSON(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOfXMLAct is the change document of a 10 MB consolidated Act
// in Justice Canada's XML (textbomb.XMLAct: one section in 500 amended,
// a new consolidation date), held as its text: the body on one line of
// 10 MB, and on 32 lines of about 300 KB (the Employment Insurance Act's
// longest).
//
//	go test -run '^$' -bench OfXMLAct -benchmem ./internal/changedoc
func BenchmarkOfXMLAct(b *testing.B) {
	for _, lines := range []int{1, 32} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			old, new := textbomb.XMLAct(10<<20, lines, 0), textbomb.XMLAct(10<<20, lines, 1)
			in := example("xa-act", string(old), string(new))
			b.SetBytes(int64(len(old) + len(new)))
			b.ReportAllocs()
			for b.Loop() {
				d := Of(in)
				if len(d.Figures) == 0 {
					b.Fatal("no figure changed")
				}
				if _, err := d.JSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
