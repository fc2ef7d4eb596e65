package textview

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
func peakHeap[T any](f func() T) (uint64, T) {
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

// The diff of a long text rewritten line by line (every line changed, as
// a consolidated act reissued with new wording), beside GNU diff on the
// same pair: our time and peak heap per run, diff's (a child process, its
// output to /dev/null) as wall time and peak RSS, and the ratio of the two
// times, run for run.
//
//	go test -run '^$' -bench 'DiffRewrite20k$' -benchtime 10x ./internal/textview/
//	go test -run '^$' -bench 'DiffRewrite200k$' -benchtime 3x ./internal/textview/
func BenchmarkDiffRewrite20k(b *testing.B)  { benchDiffRewrite(b, 20_000) }
func BenchmarkDiffRewrite200k(b *testing.B) { benchDiffRewrite(b, 200_000) }

func benchDiffRewrite(b *testing.B, lines int) {
	x, y := rewrittenPair(lines)
	dir := b.TempDir()
	oldPath, newPath := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	if err := os.WriteFile(oldPath, []byte(x), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(newPath, []byte(y), 0o644); err != nil {
		b.Fatal(err)
	}
	gnu, gnuErr := exec.LookPath("diff")
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	var peak uint64
	var ours, theirs time.Duration
	var theirPeak int64
	for b.Loop() {
		var took time.Duration
		p, d := peakHeap(func() TextDiff {
			start := time.Now()
			d := Diff("a/act.txt", "b/act.txt", x, y, DiffOptions{})
			took = time.Since(start)
			return d
		})
		if d.Added != lines || d.Removed != lines {
			b.Fatalf("%d added, %d removed, want %d each", d.Added, d.Removed, lines)
		}
		peak = max(peak, p)
		ours += took
		if gnuErr != nil {
			continue
		}
		b.StopTimer()
		t, rss := runGNUDiff(b, gnu, oldPath, newPath)
		theirs += t
		theirPeak = max(theirPeak, rss)
		b.StartTimer()
	}
	b.ReportMetric(float64(len(x)+len(y))/(1<<20), "input-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	if theirs > 0 {
		b.ReportMetric(float64(theirs.Microseconds())/1000/float64(b.N), "gnu-diff-ms/op")
		b.ReportMetric(float64(theirPeak)/(1<<20), "gnu-diff-peak-rss-MiB")
		b.ReportMetric(float64(ours)/float64(theirs), "x-gnu-diff")
	}
}

// runGNUDiff runs diff -u on the two files, its output to /dev/null, and
// returns its wall time and peak RSS in bytes, 0 where unknown. The peak
// is read by /usr/bin/time where there is one: a child started from this
// process would report this process's own peak, which Go's vfork-style
// start leaves in its accounting.
func runGNUDiff(tb testing.TB, gnu, oldPath, newPath string) (time.Duration, int64) {
	tb.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer null.Close()
	report := filepath.Join(filepath.Dir(oldPath), "time.out")
	cmd := exec.Command(gnu, "-u", oldPath, newPath)
	timed := false
	if tm, err := exec.LookPath("/usr/bin/time"); err == nil {
		cmd = exec.Command(tm, "-o", report, "-f", "%x %M", gnu, "-u", oldPath, newPath)
		timed = true
	}
	cmd.Stdout = null
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if exit, ok := err.(*exec.ExitError); err != nil && (!ok || exit.ExitCode() != 1) {
		tb.Fatalf("%s: %v", gnu, err)
	}
	if !timed {
		return took, 0
	}
	out, err := os.ReadFile(report)
	if err != nil {
		tb.Fatal(err)
	}
	// The last line; time writes "Command exited with non-zero status 1"
	// before it.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var status int
	var kib int64
	if _, err := fmt.Sscan(lines[len(lines)-1], &status, &kib); err != nil || status != 1 {
		tb.Fatalf("%s: exit %d, time said %q", gnu, status, out)
	}
	return took, kib * 1024
}

// rewrittenPair is a legislation text of n lines, about 100 bytes each,
// and the same text reworded line by line: every line differs, the
// figures stay in place, and one line in a hundred has a new rate.
func rewrittenPair(n int) (string, string) {
	var a, b strings.Builder
	for i := range n {
		sec, sub := i/8+1, i%8+1
		rate := 10 + i%35
		pounds := 1000 + (i*37)%90000
		fmt.Fprintf(&a, "%d(%d) The rate of income tax on so much of a person's income as exceeds £%d,%03d is %d%% for the year.\n", sec, sub, pounds/1000, pounds%1000, rate)
		if i%100 == 0 {
			rate++
		}
		fmt.Fprintf(&b, "%d(%d) Income tax is charged on the part of a person's income above £%d,%03d at %d%% in the tax year.\n", sec, sub, pounds/1000, pounds%1000, rate)
	}
	return a.String(), b.String()
}
