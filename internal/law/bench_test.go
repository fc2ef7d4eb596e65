package law

import (
	"bytes"
	"strings"
	"testing"
)

// Reading and cutting are linear: the figures per MB (b.SetBytes) of
// the real EI Act's XML and text view stay the same at ten times their
// size (the Act's view repeated, each copy numbered on).
//
//	go test -run '^$' -bench . -benchtime 5x ./internal/law

func BenchmarkReadEI(b *testing.B) {
	raw := realAct(b, "E-5.6", "2026-05-29")
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSegmentEI(b *testing.B)    { benchSegment(b, 1) }
func BenchmarkSegmentEIx10(b *testing.B) { benchSegment(b, 10) }

func benchSegment(b *testing.B, n int) {
	view := viewOf(b, realAct(b, "E-5.6", "2026-05-29"))
	var text strings.Builder
	for range n {
		text.WriteString(view)
		text.WriteString("# SCHEDULE\n") // the next copy numbers anew
	}
	b.SetBytes(int64(text.Len()))
	var ps []Provision
	for b.Loop() {
		ps = Segment(text.String(), "https://laws-lois.justice.gc.ca/eng/XML/E-5.6.xml")
	}
	b.ReportMetric(float64(len(ps)), "provisions")
}
