package pipeline

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/textbomb"
)

// BenchmarkRunWithBombs runs the pipeline, under the default extraction
// limits, on a PDF whose content stream inflates to 1 GiB, an XLSX of
// four sheets of 60 MiB, a PDF of 100,000 pages and an ordinary PDF. It
// reports the run's peak heap (sampled), this process's peak resident
// memory (which includes the test binary and the bombs' making) and the
// largest extracting child's. A figure, not an assertion:
//
//	go test -run '^$' -bench RunWithBombs -benchtime 1x ./internal/pipeline
func BenchmarkRunWithBombs(b *testing.B) {
	docs := map[string]servedDoc{
		"pdf-bomb":  {"application/pdf", textbomb.PDF(1 << 30)},
		"xlsx-bomb": {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", textbomb.XLSX(4, 60<<20)},
		"pages":     {"application/pdf", textbomb.Pages(100000)},
		"rates":     {"application/pdf", textbomb.Plain([]string{"Band | Rate", "Basic rate | 20%"}, "a")},
	}
	for b.Loop() {
		r := newTextRig(b, docs)
		var rep *report.Report
		start := time.Now()
		peak := sampleHeap(func() { rep = r.run() })
		b.ReportMetric(time.Since(start).Seconds(), "run-s")
		for _, e := range rep.Sources {
			if e.Status != state.Fresh {
				b.Errorf("%s: %s", e.ID, e.Status)
			}
		}
		var self, kids syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
		b.ReportMetric(float64(peak)/(1<<20), "run-peak-heap-MiB")
		b.ReportMetric(float64(self.Maxrss)/1024, "process-max-RSS-MiB")
		b.ReportMetric(float64(kids.Maxrss)/1024, "largest-child-max-RSS-MiB")
	}
}

// sampleHeap runs f while reading the live heap every millisecond and
// returns the highest reading.
func sampleHeap(f func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if h := s[0].Value.Uint64(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load()
}
