package cli

import (
	"fmt"
	"net/http"
	"runtime"
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
			srcs = append(srcs, src{fmt.Sprintf("test-h%02d-%d", h, i), a.url(fmt.Sprintf("/doc%d", i)), ""})
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
// delay (delay.min = delay.max), so each host has 20 gaps. The servers run
// in a process of their own (remote_authorities_test.go), as an operator's
// do, so their scheduling is not counted as ours.
//
// It reports two lower bounds and the wall time against each:
//   - naive-bound: 20 gaps × delay, as if responses took no time;
//   - rules-bound: what the spacing rules imply for the slowest host, from
//     what its server saw: each gap is at least max(delay, the previous
//     response's time + delay.min) (the next dispatch waits for the later
//     of previous dispatch + delay and previous completion + delay.min),
//     and the last response must complete. Response times are taken at the
//     server (arrival to handler end), which the client's can only exceed,
//     so this bound is never too high.
//
// wall is the whole command (loading 1,000 sources, saving state, index
// and reports included); span is the busiest host's first arrival to its
// last completion; start-to-first-arrival and last-completion-to-exit are
// the rest of wall (loading, planning; saving state, index and reports).
// first-arrival-spread is how long after the first host's first request
// the last host's came: a host that starts late ends late.
// gap-over-rules is, per gap, how far the arrival ran
// past what the rules required (median and mean, in ms): the time spent on
// our side between a response and the next request.
//
//	go test -run '^$' -bench PolitenessOverhead -benchtime 3x ./internal/cli
func BenchmarkPolitenessOverhead(b *testing.B) {
	const (
		hosts = 50
		docs  = 20
		delay = 200 * time.Millisecond
	)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(Procs())) // as the command runs
	pol := strings.Replace(testPolicy, "delay: {min: 5ms, max: 10ms}", fmt.Sprintf("delay: {min: %s, max: %s}", delay, delay), 1)
	pol = strings.Replace(pol, "daily_cap: 100", "daily_cap: 1000", 1)
	auths := startRemoteAuthorities(b, hosts)
	var srcs []src
	for h, base := range auths.URLs {
		for i := range docs {
			srcs = append(srcs, src{fmt.Sprintf("test-h%02d-%02d", h, i), fmt.Sprintf("%s/doc%d", base, i), ""})
		}
	}
	naive := time.Duration(docs) * delay
	var wall, span, rules, lead, tail, spread time.Duration
	var spanOverRules float64
	var over, overRules []time.Duration
	for b.Loop() {
		b.StopTimer()
		w := newWorkspace(b, pol, "", srcs...)
		auths.reset(b)
		b.StartTimer()
		start := time.Now()
		if code := w.run(ctx); code != ExitOK {
			b.Fatalf("exit %d\n%s", code, w.out.String())
		}
		end := time.Now()
		b.StopTimer()
		wall += end.Sub(start)
		var busiest, slowest time.Duration
		var ratio float64
		first, last := end, start
		lastFirst := start
		for h, s := range auths.seen(b) {
			if len(s) != docs+1 {
				b.Fatalf("%s saw %d requests, want %d", auths.URLs[h], len(s), docs+1)
			}
			if s[0].Arrived.After(lastFirst) {
				lastFirst = s[0].Arrived
			}
			hostSpan := s[len(s)-1].Completed.Sub(s[0].Arrived)
			busiest = max(busiest, hostSpan)
			if s[0].Arrived.Before(first) {
				first = s[0].Arrived
			}
			if s[len(s)-1].Completed.After(last) {
				last = s[len(s)-1].Completed
			}
			hostRules := rulesGaps(s, delay, delay)
			var bound time.Duration
			for i, g := range hostRules {
				bound += g
				over = append(over, s[i+1].Arrived.Sub(s[i].Arrived)-delay)
				overRules = append(overRules, s[i+1].Arrived.Sub(s[i].Arrived)-g)
			}
			bound += s[len(s)-1].Completed.Sub(s[len(s)-1].Arrived)
			slowest = max(slowest, bound)
			ratio = max(ratio, float64(hostSpan)/float64(bound))
		}
		span += busiest
		rules += slowest
		lead += first.Sub(start)
		spread += lastFirst.Sub(first)
		tail += end.Sub(last)
		spanOverRules += ratio
		b.StartTimer()
	}
	n := time.Duration(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(wall/n), "wall-ms")
	b.ReportMetric(ms(naive), "naive-bound-ms")
	b.ReportMetric(ms(rules/n), "rules-bound-ms")
	b.ReportMetric(ms(lead/n), "start-to-first-arrival-ms")
	b.ReportMetric(ms(tail/n), "last-completion-to-exit-ms")
	b.ReportMetric(ms(spread/n), "first-arrival-spread-ms")
	b.ReportMetric(float64(wall)/float64(naive*n), "wall/naive")
	b.ReportMetric(float64(wall)/float64(rules), "wall/rules")
	b.ReportMetric(float64(span)/float64(naive*n), "span/naive")
	b.ReportMetric(spanOverRules/float64(b.N), "span/rules")
	p50, mean := medianMean(over)
	b.ReportMetric(ms(p50), "gap-over-delay-p50-ms")
	b.ReportMetric(ms(mean), "gap-over-delay-mean-ms")
	p50, mean = medianMean(overRules)
	b.ReportMetric(ms(p50), "gap-over-rules-p50-ms")
	b.ReportMetric(ms(mean), "gap-over-rules-mean-ms")
}

// rulesGaps returns, for each gap between consecutive requests a server
// saw, the least the spacing rules allow: max(delay, previous response
// time + min), the response time measured at the server.
func rulesGaps(s []seen, delay, minDelay time.Duration) []time.Duration {
	out := make([]time.Duration, 0, len(s))
	for i := 1; i < len(s); i++ {
		out = append(out, max(delay, s[i-1].Completed.Sub(s[i-1].Arrived)+minDelay))
	}
	return out
}

func medianMean(d []time.Duration) (p50, mean time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return d[len(d)/2], sum / time.Duration(len(d))
}
