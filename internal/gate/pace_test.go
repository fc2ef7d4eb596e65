package gate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// draft-meunier-signature-agent-rep: a max-crawl-rate slower than the
// policy lengthens the gap, and the wait says why; a faster one changes
// nothing, as the policy is never outrun.
func TestMaxCrawlRateHint(t *testing.T) {
	for _, tt := range []struct {
		gap, want time.Duration
		pace      string
	}{
		{6 * time.Second, 6 * time.Second, "max-crawl-rate: 10/m"},
		{100 * time.Millisecond, 3 * time.Second, ""},
	} {
		var events []gate.Event
		g, f := setup(func(c *gate.Config, _ *fixture) { c.Notify = func(e gate.Event) { events = append(events, e) } })
		g.SetHint(gate.Hint{Source: gate.FromMaxCrawlRate, Gap: tt.gap, Text: "10/m"})
		mustAcquire(t, g).Done(ok200)
		mustAcquire(t, g).Done(ok200)
		if got := f.records[1].At.Sub(f.records[0].At); got != tt.want {
			t.Errorf("max-crawl-rate gap %v: dispatches %v apart, want %v", tt.gap, got, tt.want)
		}
		var pace string
		for _, e := range events {
			if e.Wait {
				pace = e.Pace
			}
		}
		if pace != tt.pace {
			t.Errorf("max-crawl-rate gap %v: wait's pace %q, want %q", tt.gap, pace, tt.pace)
		}
	}
}

// The slowest of several hints sets the gap; a hint set to zero is gone.
func TestSlowestHintWins(t *testing.T) {
	g, f := setup(nil)
	g.SetCrawlDelay(8 * time.Second)
	g.SetHint(gate.Hint{Source: gate.FromMaxCrawlRate, Gap: 6 * time.Second, Text: "10/m"})
	mustAcquire(t, g).Done(ok200)
	mustAcquire(t, g).Done(ok200)
	g.SetCrawlDelay(0)
	mustAcquire(t, g).Done(ok200)
	ts := f.dispatchTimes()
	if d1, d2 := ts[1].Sub(ts[0]), ts[2].Sub(ts[1]); d1 != 8*time.Second || d2 != 6*time.Second {
		t.Errorf("gaps %v, %v; want 8s (Crawl-delay) then 6s (max-crawl-rate)", d1, d2)
	}
}

// draft-ietf-httpapi-ratelimit-headers-10 section 3.2's examples.
func TestParseRateLimitPolicy(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{`"default";q=100;w=10`, 100 * time.Millisecond, true},
		{`"permin";q=50;w=60,"perhr";q=1000;w=3600`, 3600 * time.Millisecond, true},
		{`"peruser";q=100;w=60;pk=:cHsdsRa894==:`, 600 * time.Millisecond, true},
		{`"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:`, 0, false},
		{`"burst";q=100;w=60,"daily";q=1000;w=86400`, 86400 * time.Second / 1000, true},
		{`"slow";q=1;w=60`, time.Minute, true},
		{`"default";w=60`, 0, false},   // q is required
		{`default;q=1;w=60`, 0, false}, // a Token, not a String
		{`"x";q=1;w=60,`, 0, false},    // malformed
		{`"x";q=0;w=60`, 0, false},
	} {
		got, ok := gate.ParseRateLimitPolicy(tt.v)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRateLimitPolicy(%s) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.ok)
		}
	}
}

// draft-ietf-httpapi-ratelimit-headers-10 sections 4.2 and 5's examples.
func TestParseRateLimit(t *testing.T) {
	for _, tt := range []struct {
		v, policy string
		want      time.Duration
		ok        bool
	}{
		{`"default";r=50;t=30`, "", 0, false},
		{`"default";r=999;pk=:dHJpYWwxMjEzMjM=:`, "", 0, false},
		{`"default";r=1;t=7`, "", 0, false},
		{`"problemPolicy";r=0;t=10`, "", 10 * time.Second, true},
		{`"default";r=0;t=30`, "", 30 * time.Second, true},
		{`"a";r=5;t=3,"b";r=0;t=20`, "", 20 * time.Second, true},
		{`"default";r=0`, `"default";q=100;w=60`, time.Minute, true}, // no t: the policy's window
		{`"default";r=0`, "", 0, false},                              // no reset known
		{`"default";r=0;t=999999`, "", gate.MaxRetryAfter, true},
		{`"default";r=-1;t=30`, "", 0, false}, // malformed: ignored
		{`"default";t=30`, "", 0, false},
		{`default;r=0;t=30`, "", 0, false},
	} {
		got, ok := gate.ParseRateLimit(tt.v, tt.policy)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRateLimit(%s, %s) = %v, %v; want %v, %v", tt.v, tt.policy, got, ok, tt.want, tt.ok)
		}
	}
}

// A RateLimit with nothing remaining pauses the host until the reset, past
// the policy's spacing, and says so; a Retry-After on the same answer
// takes precedence.
func TestRateLimitExhaustedPauses(t *testing.T) {
	g, f := setup(nil)
	mustAcquire(t, g).Done(gate.Outcome{Status: 200, RateLimit: `"default";r=0;t=30`})
	if got := g.State().RateLimitUntil; !got.Equal(t0.Add(30 * time.Second)) {
		t.Fatalf("RateLimitUntil %v, want t0+30s", got)
	}
	mustAcquire(t, g).Done(ok200)
	if got := f.records[1].At.Sub(f.records[0].At); got != 30*time.Second {
		t.Errorf("next dispatch %v after, want the 30 s reset", got)
	}

	g, _ = setup(func(c *gate.Config, _ *fixture) { c.Deadline = t0.Add(10 * time.Second) })
	mustAcquire(t, g).Done(gate.Outcome{Status: 200, RateLimit: `"default";r=0;t=30`})
	_, err := g.Acquire(context.Background(), req)
	var de *gate.DeferredError
	if !errors.As(err, &de) || de.Reason != "ratelimit" || !de.Until.Equal(t0.Add(30*time.Second)) {
		t.Errorf("past the deadline: %v, want deferred for ratelimit until t0+30s", err)
	}

	g, _ = setup(nil)
	mustAcquire(t, g).Done(gate.Outcome{Status: 429, RetryAfter: "8", RateLimit: `"default";r=0;t=300`})
	if st := g.State(); !st.RateLimitUntil.IsZero() || !st.BackoffFromRetryAfter {
		t.Errorf("with Retry-After: %+v, want the Retry-After's backoff and no RateLimit pause", st)
	}
}

// RateLimit-Policy: a quota over a window slower than the policy spaces the
// requests (and is kept for the next run); a faster one does not.
func TestRateLimitPolicyPaces(t *testing.T) {
	g, f := setup(nil)
	mustAcquire(t, g).Done(gate.Outcome{Status: 200, RateLimitPolicy: `"slow";q=6;w=60`})
	mustAcquire(t, g).Done(gate.Outcome{Status: 200, RateLimitPolicy: `"default";q=100;w=60`})
	mustAcquire(t, g).Done(ok200)
	ts := f.dispatchTimes()
	if d1, d2 := ts[1].Sub(ts[0]), ts[2].Sub(ts[1]); d1 != 10*time.Second || d2 != 3*time.Second {
		t.Errorf("gaps %v, %v; want 10s (q=6;w=60) then the policy's 3s (q=100;w=60 is faster)", d1, d2)
	}
	// The field is state: a gate made from it paces from the start.
	g2, f2 := setup(func(c *gate.Config, _ *fixture) {
		c.State = state.Host{RateLimitPolicy: `"slow";q=6;w=60`}
	})
	mustAcquire(t, g2).Done(ok200)
	mustAcquire(t, g2).Done(ok200)
	if got := f2.records[1].At.Sub(f2.records[0].At); got != 10*time.Second {
		t.Errorf("from the kept field: gap %v, want 10s", got)
	}
}

func TestPaceOf(t *testing.T) {
	d := policy.Delay{Min: 3 * time.Second, Max: 5 * time.Second}
	for _, tt := range []struct {
		hints []gate.Hint
		want  gate.Pace
	}{
		{nil, gate.Pace{Min: 3 * time.Second, Max: 5 * time.Second, Source: gate.FromPolicy}},
		{[]gate.Hint{{Source: gate.FromMaxCrawlRate, Gap: time.Second, Text: "1/s"}}, gate.Pace{Min: 3 * time.Second, Max: 5 * time.Second, Source: gate.FromPolicy}},
		{[]gate.Hint{{Source: gate.FromCrawlDelay, Gap: 4 * time.Second, Text: "4"}}, gate.Pace{Min: 4 * time.Second, Max: 5 * time.Second, Source: gate.FromCrawlDelay, Text: "4"}},
		{[]gate.Hint{{Source: gate.FromCrawlDelay, Gap: 4 * time.Second, Text: "4"}, {Source: gate.FromMaxCrawlRate, Gap: 6 * time.Second, Text: "10/m"}},
			gate.Pace{Min: 6 * time.Second, Max: 6 * time.Second, Source: gate.FromMaxCrawlRate, Text: "10/m"}},
	} {
		if got := gate.PaceOf(d, tt.hints...); got != tt.want {
			t.Errorf("PaceOf(%v) = %+v, want %+v", tt.hints, got, tt.want)
		}
	}
}
