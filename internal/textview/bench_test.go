package textview

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// Figures: extraction throughput (MB/s of input, from b.SetBytes) and the
// peak heap while extracting, on a generated 20 MB PDF and 5 MB HTML page.
//
//	go test -run '^$' -bench Extract -benchtime 3x ./internal/textview/

func BenchmarkExtractPDF20MB(b *testing.B) {
	raw := bigPDF(b, 20<<20)
	benchExtract(b, raw, "application/pdf", Limits{MaxPages: 100000, MaxText: 256 << 20})
}

func BenchmarkExtractHTML5MB(b *testing.B) {
	raw := bigHTML(5 << 20)
	benchExtract(b, raw, "text/html; charset=utf-8", Limits{})
}

func benchExtract(b *testing.B, raw []byte, ct string, lim Limits) {
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var peak uint64
	var textBytes int
	for b.Loop() {
		p, res := peakHeap(func() Result { return Extract(context.Background(), raw, ct, lim) })
		if !res.OK() {
			b.Fatalf("extraction failed: %s", res.Reason)
		}
		peak = max(peak, p)
		textBytes = len(res.Text)
	}
	b.ReportMetric(float64(len(raw))/(1<<20), "input-MiB")
	b.ReportMetric(float64(textBytes)/(1<<20), "text-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// peakHeap runs f while sampling the live heap every millisecond and
// returns the highest reading above the heap before f started.
func peakHeap(f func() Result) (uint64, Result) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
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

// bigPDF writes pages alternating a rates table and two columns of prose,
// uncompressed (as many published PDFs are), until it has size bytes.
func bigPDF(tb testing.TB, size int) []byte {
	tb.Helper()
	f := fpdf.New("P", "pt", "A4", "")
	f.SetCompression(false)
	f.SetMargins(40, 40, 40)
	f.SetAutoPageBreak(false, 40)
	// A page is about 2.5 KB (table) and 3 KB (columns) uncompressed.
	pages := size / 2700
	for i := range pages {
		f.AddPage()
		f.SetFont("Helvetica", "", 10)
		if i%2 == 0 {
			writeTable(f, 60)
			writeTable(f, 260)
			writeTable(f, 460)
		} else {
			f.SetFont("Helvetica", "B", 14)
			f.SetXY(40, 40)
			f.CellFormat(0, 20, fmt.Sprintf("Part %d", i), "", 1, "L", false, 0, "")
			f.SetFont("Helvetica", "", 10)
			writeColumns(f, 70)
		}
	}
	var b bytes.Buffer
	if err := f.Output(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// bigHTML is a rates page grown to size bytes: sections of prose, tables,
// lists, scripts and hidden inputs.
func bigHTML(size int) []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><meta charset=utf-8><title>Rates</title><style>td{padding:2px}</style></head><body><main>\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<section id=s%d><h2>Section %d</h2><p>Tax is charged on income above the <a href=/pa>Personal Allowance</a>, in bands; this section, number %d, explains the <b>rates</b> that apply.</p>\n", i, i, i)
		b.WriteString("<table><tr><th>Band</th><th>Taxable income</th><th>Rate</th></tr>")
		for j := range 10 {
			fmt.Fprintf(&b, "<tr><td>Band %d.%d</td><td>£%d,%03d to £%d,%03d</td><td>%d%%</td></tr>", i, j, 12+j, 571, 50+j, 270, 20+j)
		}
		b.WriteString("</table><ul><li>Scotland has its own rates.</li><li>Wales: see the Welsh rates.</li></ul></section>")
		fmt.Fprintf(&b, "<script>var s%d={token:'%x'};</script><input type=hidden name=t value=%x>\n", i, i*7919, i)
	}
	b.WriteString("</main></body></html>\n")
	return []byte(b.String())
}

// BenchmarkDiff is the diff of two 1 MB texts that differ in 1% of lines.
//
//	go test -run '^$' -bench Diff ./internal/textview/
func BenchmarkDiff(b *testing.B) {
	var x, y strings.Builder
	for i := 0; x.Len() < 1<<20; i++ {
		line := fmt.Sprintf("Band %d | £%d to £%d | %d%%\n", i, i*100, i*100+99, i%50)
		x.WriteString(line)
		if i%100 == 50 {
			line = fmt.Sprintf("Band %d | £%d to £%d | %d%%\n", i, i*100, i*100+98, i%50)
		}
		y.WriteString(line)
	}
	b.SetBytes(int64(x.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if d := Diff("a", "b", x.String(), y.String(), DiffOptions{}); !d.Changed() {
			b.Fatal("no change found")
		}
	}
}
