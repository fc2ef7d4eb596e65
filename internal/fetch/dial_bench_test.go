package fetch

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// BenchmarkDialCost measures what a dial adds between sending a request and
// its arrival at a loopback server: the time from Get to the handler on a
// new connection, less the same on a reused one (medians). The pipeline's
// politeness cushion covers this difference.
//
//	go test -run '^$' -bench DialCost ./internal/fetch
func BenchmarkDialCost(b *testing.B) {
	arrived := make(chan time.Time, 1)
	srv := server(b, func(w http.ResponseWriter, r *http.Request) { arrived <- time.Now() })
	c := newClient(nil)
	var fresh, reused []time.Duration
	get := func() time.Duration {
		start := time.Now()
		if _, err := c.Get(b.Context(), Request{URL: srv.URL}, &hashSink{}); err != nil {
			b.Fatal(err)
		}
		return (<-arrived).Sub(start)
	}
	for b.Loop() {
		c.CloseIdle()
		fresh = append(fresh, get())
		reused = append(reused, get())
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	nf, nr := median(fresh), median(reused)
	b.ReportMetric(float64(nf.Microseconds()), "new-conn-us")
	b.ReportMetric(float64(nr.Microseconds()), "reused-us")
	b.ReportMetric(float64((nf - nr).Microseconds()), "dial-cost-us")
}
