package cli

import (
	"fmt"
	"net/http"
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
