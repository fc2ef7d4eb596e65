package cli

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkWideRunEnd is the end of a wide first run as the command runs
// it: 1,000 hosts × 1 document (plus robots.txt each), the servers in a
// process of their own (remote_authorities_test.go). last-answer-to-exit
// is from the last completion any server recorded to the process's exit:
// the ledgers closed, the index, the state, the reports, the pages and
// the feeds written. run-peak-MiB is the run's own peak RSS (VmHWM),
// largest-process-MiB the largest of it and its children (wait4).
// first is a first run, in which every source's feed is a new file;
// again is the run after it, which rewrites only what changed.
//
//	go test -run '^$' -bench WideRunEnd -benchtime 5x ./internal/cli
func BenchmarkWideRunEnd(b *testing.B) {
	const hosts = 1000
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(Procs())) // as the command runs
	auths := startRemoteAuthorities(b, hosts)
	srcs := make([]src, hosts)
	for h, base := range auths.URLs {
		srcs[h] = src{fmt.Sprintf("test-h%04d", h), base + "/doc", ""}
	}
	bin := buildBot(b)
	// first: a first run, every feed new. again: the run after it, each
	// host's robots.txt kept and its document unchanged, so its end
	// rewrites only what changed.
	for _, again := range []bool{false, true} {
		name := "first"
		if again {
			name = "again"
		}
		b.Run(name, func(b *testing.B) { wideRunEnd(b, auths, srcs, bin, again) })
	}
}

func wideRunEnd(b *testing.B, auths *remoteAuthorities, srcs []src, bin string, again bool) {
	want := 2 // robots.txt and the document
	if again {
		want = 1
	}
	var wall, tail time.Duration
	var self, tree int64
	for b.Loop() {
		b.StopTimer()
		w := newWorkspace(b, testPolicy, "", srcs...)
		if again {
			auths.reset(b)
			runPeak(b, w.runCmd(bin)) // the first run, not measured
		}
		auths.reset(b)
		cmd := w.runCmd(bin)
		b.StartTimer()
		start := time.Now()
		end, s, t := runPeak(b, cmd)
		b.StopTimer()
		var last time.Time
		for h, seen := range auths.seen(b) {
			if len(seen) != want {
				b.Fatalf("%s saw %d requests, want %d", auths.URLs[h], len(seen), want)
			}
			if c := seen[want-1].Completed; c.After(last) {
				last = c
			}
		}
		wall += end.Sub(start)
		tail += end.Sub(last)
		self, tree = max(self, s), max(tree, t)
		b.StartTimer()
	}
	n := time.Duration(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(wall/n), "wall-ms")
	b.ReportMetric(ms(tail/n), "last-answer-to-exit-ms")
	b.ReportMetric(float64(self)/(1<<20), "run-peak-MiB")
	b.ReportMetric(float64(tree)/(1<<20), "largest-process-MiB")
}
