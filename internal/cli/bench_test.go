package cli

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkManyHostRun measures a run over many hosts against the lower
// bound set by its busiest host: hosts run concurrently, so the wall time
// should be close to that bound, never the sum over hosts.
//
//	go test -run '^$' -bench ManyHostRun -benchtime 3x ./internal/cli
func BenchmarkManyHostRun(b *testing.B) {
	const (
		hosts   = 40
		busiest = 8 // documents on the busiest host
		delay   = 25 * time.Millisecond
	)
	pol := strings.Replace(testPolicy, "delay: {min: 5ms, max: 10ms}", fmt.Sprintf("delay: {min: %s, max: %s}", delay, delay), 1)
	var srcs []src
	total := 0
	for h := range hosts {
		a := newAuthority(b, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("document")})
		n := 1 + h%busiest // 1..busiest documents per host
		for i := range n {
			srcs = append(srcs, src{fmt.Sprintf("b-h%02d-%d", h, i), a.url(fmt.Sprintf("/doc%d", i)), ""})
		}
		total += n + 1
	}
	// robots.txt + busiest documents, spaced by delay: (busiest) gaps.
	bound := time.Duration(busiest) * delay
	var wall time.Duration
	for b.Loop() {
		b.StopTimer()
		w := newWorkspace(b, pol, "", srcs...)
		b.StartTimer()
		start := time.Now()
		if code := w.run(ctx); code != ExitOK {
			b.Fatalf("exit %d\n%s", code, w.out.String())
		}
		wall += time.Since(start)
	}
	avg := wall / time.Duration(b.N)
	b.ReportMetric(float64(avg.Milliseconds()), "wall-ms")
	b.ReportMetric(float64(bound.Milliseconds()), "busiest-host-bound-ms")
	b.ReportMetric(float64(time.Duration(total-hosts)*delay/time.Millisecond), "sum-over-hosts-ms")
	b.ReportMetric(float64(total), "requests")
}

// BenchmarkPolitenessOverhead is the politeness overhead at the issue's
// scale: 50 hosts × 20 documents (plus robots.txt each) with a fixed 200 ms
// delay, so the lower bound is 20 gaps of 200 ms. It reports, against that
// bound, the whole command's wall time (loading 1,000 sources and saving
// state, index and reports included) and the span the servers saw (the
// busiest host's first arrival to its last completion), and, per gap, how
// far arrivals at one host run over the delay (median and mean).
//
//	go test -run '^$' -bench PolitenessOverhead -benchtime 3x ./internal/cli
func BenchmarkPolitenessOverhead(b *testing.B) {
	const (
		hosts = 50
		docs  = 20
		delay = 200 * time.Millisecond
	)
	pol := strings.Replace(testPolicy, "delay: {min: 5ms, max: 10ms}", fmt.Sprintf("delay: {min: %s, max: %s}", delay, delay), 1)
	pol = strings.Replace(pol, "daily_cap: 100", "daily_cap: 1000", 1)
	var srcs []src
	var auths []*authority
	for h := range hosts {
		a := newAuthority(b, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("document")})
		auths = append(auths, a)
		for i := range docs {
			srcs = append(srcs, src{fmt.Sprintf("p-h%02d-%02d", h, i), a.url(fmt.Sprintf("/doc%d", i)), ""})
		}
	}
	bound := time.Duration(docs) * delay
	var wall, span time.Duration
	var over []time.Duration
	for b.Loop() {
		b.StopTimer()
		w := newWorkspace(b, pol, "", srcs...)
		for _, a := range auths {
			a.mu.Lock()
			a.reqs = nil
			a.mu.Unlock()
		}
		b.StartTimer()
		start := time.Now()
		if code := w.run(ctx); code != ExitOK {
			b.Fatalf("exit %d\n%s", code, w.out.String())
		}
		wall += time.Since(start)
		var busiest time.Duration
		for _, a := range auths {
			s := a.seen()
			if len(s) != docs+1 {
				b.Fatalf("%s saw %d requests, want %d", a.host(), len(s), docs+1)
			}
			busiest = max(busiest, s[len(s)-1].Completed.Sub(s[0].Arrived))
			arr, _ := gaps(s)
			for _, g := range arr {
				over = append(over, g-delay)
			}
		}
		span += busiest
	}
	n := time.Duration(b.N)
	slices.Sort(over)
	var sum time.Duration
	for _, o := range over {
		sum += o
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(wall/n), "wall-ms")
	b.ReportMetric(float64(wall/n)/float64(bound), "wall/bound")
	b.ReportMetric(float64(span/n)/float64(bound), "span/bound")
	b.ReportMetric(ms(over[len(over)/2]), "gap-over-p50-ms")
	b.ReportMetric(ms(sum/time.Duration(len(over))), "gap-over-mean-ms")
}
