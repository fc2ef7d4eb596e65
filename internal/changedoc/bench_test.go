package changedoc

import (
	"fmt"
	"strings"
	"testing"
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
