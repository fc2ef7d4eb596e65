package changedoc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// BenchmarkOfRewrite is the change document of a text of 200,000 lines
// rewritten line by line (the run's BenchmarkRunRecordsRewrite), given
// its hunks as the feed compares them.
//
//	go test -run '^$' -bench OfRewrite -benchmem ./internal/changedoc
func BenchmarkOfRewrite(b *testing.B) {
	old, new := rewrittenText(200_000, 0), rewrittenText(200_000, 1)
	in := example("xa-act", old, new)
	_, in.Hunks = textview.DiffHunks("a", "b", old, new, textview.DiffOptions{NoFigures: true})
	in.Compared = true
	b.ReportAllocs()
	for b.Loop() {
		d := Of(in)
		if d.UnreadLines == 0 {
			b.Fatal("every changed line read")
		}
		if _, err := d.JSON(); err != nil {
			b.Fatal(err)
		}
	}
}

// rewrittenText is a text of n lines of about 100 bytes; version 1 words
// every line differently from version 0.
func rewrittenText(n, version int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Section %d (%d). The rate of tax for the year is %d.%d per cent of the amount %s.\n",
			i, version, (i*7+version)%40, (i+version)%10, strings.Repeat("ab", 10+(i*31+version*17)%15))
	}
	return b.String()
}
