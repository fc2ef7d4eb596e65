package changedoc

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// The change of a real Act against its first capture. A first capture
// derives the text of the bytes fetched; a change derives the new text
// too, then compares it with the held one and writes the change document
// (hunks, figures, provisions). Time per operation and the peak of the
// live heap above the heap before it (the extraction's child process is
// not counted in either's heap, and is in both's time).
//
//	go test -run '^$' -bench 'Law' -benchtime 5x ./internal/changedoc
//
// EI is the Employment Insurance Act (1.1 MiB of XML) between its
// consolidations of 2025-07-31 and 2026-05-29; EIx12 is the same pair
// with the Act's body twelve times over, each copy renumbered (10.3 MiB
// of XML; the amendments of ss. 113 and 114 are in every copy).

func BenchmarkLawFirstCaptureEI(b *testing.B)    { benchFirst(b, eiPair(b, 1)) }
func BenchmarkLawChangeEI(b *testing.B)          { benchChange(b, eiPair(b, 1)) }
func BenchmarkLawFirstCaptureEIx12(b *testing.B) { benchFirst(b, eiPair(b, 12)) }
func BenchmarkLawChangeEIx12(b *testing.B)       { benchChange(b, eiPair(b, 12)) }

type actPair struct{ old, new []byte }

// eiPair is the real EI pair, its body repeated n times with each copy's
// section numbers moved up by a thousand.
func eiPair(tb testing.TB, n int) actPair {
	return actPair{repeatBody(tb, realAct(tb, "E-5.6_2025-07-31"), n), repeatBody(tb, realAct(tb, "E-5.6_2026-05-29"), n)}
}

var sectionLabel = regexp.MustCompile(`<Label>([0-9]+)`)

func repeatBody(tb testing.TB, raw []byte, n int) []byte {
	s := string(raw)
	open := strings.Index(s, "<Body")
	start := open + strings.Index(s[open:], ">") + 1
	end := strings.Index(s, "</Body>")
	if open < 0 || end < start {
		tb.Fatal("no <Body> in the Act")
	}
	var b strings.Builder
	b.WriteString(s[:end])
	for k := 1; k < n; k++ {
		b.WriteString(sectionLabel.ReplaceAllStringFunc(s[start:end], func(m string) string {
			v, _ := strconv.Atoi(strings.TrimPrefix(m, "<Label>"))
			return fmt.Sprintf("<Label>%d", k*1000+v)
		}))
	}
	b.WriteString(s[end:])
	return []byte(b.String())
}

func benchFirst(b *testing.B, p actPair) {
	b.SetBytes(int64(len(p.new)))
	var peak uint64
	for b.Loop() {
		h, res := peakLiveHeap(func() textview.Result {
			return textview.Extract(context.Background(), p.new, "application/xml", textview.Limits{})
		})
		if !res.OK() {
			b.Fatal(res.Reason)
		}
		peak = max(peak, h)
	}
	b.ReportMetric(float64(len(p.new))/(1<<20), "xml-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

func benchChange(b *testing.B, p actPair) {
	oldText := textview.Extract(context.Background(), p.old, "application/xml", textview.Limits{}).Text
	b.SetBytes(int64(len(p.new)))
	var peak uint64
	provisions := 0
	for b.Loop() {
		h, data := peakLiveHeap(func() []byte {
			res := textview.Extract(context.Background(), p.new, "application/xml", textview.Limits{})
			if !res.OK() {
				b.Fatal(res.Reason)
			}
			d := Of(lawInput("https://laws-lois.justice.gc.ca/eng/XML/E-5.6.xml", oldText, res.Text))
			provisions = len(d.Provisions)
			data, err := d.JSON()
			if err != nil {
				b.Fatal(err)
			}
			return data
		})
		if len(data) == 0 || provisions == 0 {
			b.Fatal("no change document, or no provision in it")
		}
		peak = max(peak, h)
	}
	b.ReportMetric(float64(len(p.new))/(1<<20), "xml-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(provisions), "provisions")
}

// peakLiveHeap runs f while sampling the live heap every millisecond
// and returns the highest reading above the heap before f started.
func peakLiveHeap[T any](f func() T) (uint64, T) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if h := read(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	res := f()
	close(stop)
	<-done
	if h := read(); h > peak.Load() {
		peak.Store(h)
	}
	if p := peak.Load(); p > base {
		return p - base, res
	}
	return 0, res
}
