package gate_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// t0 is a Wednesday, mid-day UTC.
var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

var req = gate.Request{URL: "https://www.example.gov/rates", Purpose: "document", Source: "xx-rates"}

// randFunc scripts the gate's randomness.
type randFunc func(n int64) int64

func (f randFunc) Int64N(n int64) int64 { return f(n) }

var (
	lowest  = randFunc(func(int64) int64 { return 0 })
	highest = randFunc(func(n int64) int64 { return n - 1 })
)

type dispatch struct {
	At  time.Time
	Req gate.Request
}

// fixture is the world around one gate: a fake clock, the budget other runs
// spent, and the ledger lines Record wrote.
type fixture struct {
	clk        *clock.Fake
	spent      map[string]int
	spentErr   error
	spentCalls []string
	recordErr  error
	records    []dispatch
}

// setup returns a gate over www.example.gov with a 3–5 s delay, a cap of 200,
// pause after three 403s, the lowest draws, and the clock at t0.
func setup(edit func(*gate.Config, *fixture)) (*gate.Gate, *fixture) {
	f := &fixture{clk: clock.NewFake(t0), spent: map[string]int{}}
	cfg := gate.Config{
		Host: policy.Host{
			Name:     "www.example.gov",
			Delay:    policy.Delay{Min: 3 * time.Second, Max: 5 * time.Second},
			DailyCap: 200,
			Location: time.UTC,
		},
		BackoffMax:    30 * time.Minute,
		PauseAfter403: 3,
		Clock:         f.clk,
		Rand:          lowest,
		Spent: func(day string) (int, error) {
			f.spentCalls = append(f.spentCalls, day)
			return f.spent[day], f.spentErr
		},
		Record: func(at time.Time, r gate.Request) error {
			if f.recordErr != nil {
				return f.recordErr
			}
			f.records = append(f.records, dispatch{at, r})
			return nil
		},
	}
	if edit != nil {
		edit(&cfg, f)
	}
	return gate.New(cfg), f
}

func mustAcquire(t *testing.T, g *gate.Gate) *gate.Permit {
	t.Helper()
	p, err := g.Acquire(context.Background(), req)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	return p
}

// dispatchTimes returns the times of the recorded dispatches.
func (f *fixture) dispatchTimes() []time.Time {
	var ts []time.Time
	for _, d := range f.records {
		ts = append(ts, d.At)
	}
	return ts
}

var ok200 = gate.Outcome{Status: 200}

func total(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum
}

// §3.4: next dispatch = max(previous dispatch + d, previous completion + min).
func TestSpacing(t *testing.T) {
	tests := []struct {
		name     string
		rand     gate.Rand
		response time.Duration // how long the first request took
		wantGap  time.Duration // between the two dispatches
	}{
		{"d=min, quick response", lowest, 0, 3 * time.Second},
		{"d=max, quick response", highest, 0, 5 * time.Second},
		{"d=max beats completion+min", highest, time.Second, 5 * time.Second},
		{"slow response: completion+min dominates", lowest, 2500 * time.Millisecond, 5500 * time.Millisecond},
		{"very slow response", highest, 10 * time.Second, 13 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, f := setup(func(c *gate.Config, _ *fixture) { c.Rand = tt.rand })
			p := mustAcquire(t, g)
			f.clk.Advance(tt.response)
			p.Done(ok200)
			mustAcquire(t, g).Done(ok200)

			want := []time.Time{t0, t0.Add(tt.wantGap)}
			if diff := cmp.Diff(want, f.dispatchTimes()); diff != "" {
				t.Errorf("dispatch times (-want +got):\n%s", diff)
			}
			if got, want := total(f.clk.Sleeps()), tt.wantGap-tt.response; got != want {
				t.Errorf("slept %v in all (%v), want %v", got, f.clk.Sleeps(), want)
			}
		})
	}
}

// §3.4: d is drawn from the whole closed range [min, max], once per dispatch.
func TestDrawCoversDelayRange(t *testing.T) {
	var asked []int64
	rec := randFunc(func(n int64) int64 { asked = append(asked, n); return 0 })
	g, _ := setup(func(c *gate.Config, _ *fixture) { c.Rand = rec })
	for range 3 {
		mustAcquire(t, g).Done(ok200)
	}
	n := int64(2*time.Second) + 1
	if diff := cmp.Diff([]int64{n, n, n}, asked); diff != "" {
		t.Errorf("Int64N arguments (-want +got):\n%s", diff)
	}
}

func TestNoDrawWhenMinEqualsMax(t *testing.T) {
	g, f := setup(func(c *gate.Config, _ *fixture) {
		c.Host.Delay = policy.Delay{Min: 4 * time.Second, Max: 4 * time.Second}
		c.Rand = randFunc(func(n int64) int64 { t.Errorf("Int64N(%d) called with min == max", n); return 0 })
	})
	mustAcquire(t, g).Done(ok200)
	mustAcquire(t, g).Done(ok200)
	if diff := cmp.Diff([]time.Time{t0, t0.Add(4 * time.Second)}, f.dispatchTimes()); diff != "" {
		t.Errorf("dispatch times (-want +got):\n%s", diff)
	}
}

// §3.2/§3.4: a Crawl-delay longer than the drawn d replaces it.
func TestCrawlDelay(t *testing.T) {
	for _, tt := range []struct {
		crawl, wantGap time.Duration
	}{
		{10 * time.Second, 10 * time.Second},
		{2 * time.Second, 3 * time.Second},
		{0, 3 * time.Second},
	} {
		g, f := setup(nil)
		g.SetCrawlDelay(tt.crawl)
		mustAcquire(t, g).Done(ok200)
		mustAcquire(t, g).Done(ok200)
		if got := f.records[1].At.Sub(f.records[0].At); got != tt.wantGap {
			t.Errorf("Crawl-delay %v: gap %v, want %v", tt.crawl, got, tt.wantGap)
		}
	}
}

// A request that left later than its dispatch (a slow dial and handshake)
// moves the start of the next wait to when it left; one that left at once
// changes nothing.
func TestSpacingCountsFromWhenTheRequestLeft(t *testing.T) {
	for _, setUp := range []time.Duration{0, 250 * time.Millisecond} {
		g, f := setup(nil)
		g.SetCrawlDelay(10 * time.Second)
		p := mustAcquire(t, g)
		sent := f.clk.Now().Add(setUp)
		f.clk.Advance(setUp + 10*time.Millisecond)
		p.Done(gate.Outcome{Status: 200, SentAt: sent})
		mustAcquire(t, g).Done(ok200)
		if got := f.records[1].At.Sub(f.records[0].At); got != 10*time.Second+setUp {
			t.Errorf("set-up %v: next dispatch %v after the first, want %v", setUp, got, 10*time.Second+setUp)
		}
	}
}

// §3.3: a second Acquire waits for the first Permit's Done.
func TestOneAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, _ := setup(nil)
		first := mustAcquire(t, g)

		second := make(chan error, 1)
		go func() {
			p, err := g.Acquire(context.Background(), req)
			if err == nil {
				p.Done(ok200)
			}
			second <- err
		}()
		synctest.Wait() // the goroutine is now blocked, or has returned
		select {
		case err := <-second:
			t.Fatalf("second Acquire returned (err %v) while the first Permit was held", err)
		default:
		}

		first.Done(ok200)
		if err := <-second; err != nil {
			t.Fatalf("second Acquire after Done: %v", err)
		}
	})
}

func TestDoneTwicePanicsWithoutReleasing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, _ := setup(nil)
		first := mustAcquire(t, g)
		first.Done(ok200)
		held := mustAcquire(t, g)

		func() {
			defer func() {
				if recover() == nil {
					t.Error("second Done did not panic")
				}
			}()
			first.Done(ok200)
		}()

		// The stray Done must not have released the Permit still held.
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		if p, err := g.Acquire(ctx, req); err == nil {
			p.Done(ok200)
			t.Fatal("Acquire succeeded while a Permit was held: the stray Done released it")
		}
		held.Done(ok200)
	})
}

// §3.5: every dispatch counts, failures included, on top of what was spent
// before; at the cap the host stops until the next UTC day.
func TestDailyCap(t *testing.T) {
	day1, day2 := "2026-11-25", "2026-11-26"
	g, f := setup(func(c *gate.Config, f *fixture) {
		c.Host.DailyCap = 10
		f.spent[day1] = 7
	})
	for _, o := range []gate.Outcome{{Err: context.DeadlineExceeded}, {Status: 500}, {Status: 404}} {
		mustAcquire(t, g).Done(o)
	}
	if _, err := g.Acquire(context.Background(), req); !errors.Is(err, gate.ErrCapReached) {
		t.Fatalf("fourth Acquire with 7 spent and a cap of 10: err %v, want ErrCapReached", err)
	}
	if len(f.records) != 3 {
		t.Errorf("%d dispatches recorded, want 3", len(f.records))
	}

	f.clk.Advance(t0.Add(12 * time.Hour).Sub(f.clk.Now())) // 00:00 UTC
	mustAcquire(t, g).Done(ok200)
	if diff := cmp.Diff([]string{day1, day2}, f.spentCalls); diff != "" {
		t.Errorf("Spent calls (-want +got):\n%s", diff)
	}
}

// §3.5: a wait that crosses midnight is charged to the new day.
func TestCapRecheckedAfterWaitCrossesMidnight(t *testing.T) {
	start := time.Date(2026, 11, 25, 23, 59, 59, 0, time.UTC)
	g, f := setup(func(c *gate.Config, f *fixture) {
		c.Host.DailyCap = 10
		c.State = state.Host{LastCompletion: start}
		f.clk = clock.NewFake(start)
		c.Clock = f.clk
		f.spent["2026-11-26"] = 10 // another run reserved all of tomorrow
	})
	if _, err := g.Acquire(context.Background(), req); !errors.Is(err, gate.ErrCapReached) {
		t.Fatalf("Acquire after a wait into a spent day: err %v, want ErrCapReached", err)
	}
	if len(f.records) != 0 {
		t.Errorf("dispatch recorded on a spent day: %v", f.records)
	}
}

// §3.5: the ledger line comes first; without it there is no dispatch.
func TestRecordFailureDispatchesNothing(t *testing.T) {
	errDisk := errors.New("disk full")
	g, f := setup(func(c *gate.Config, f *fixture) {
		c.Host.DailyCap = 1
		f.recordErr = errDisk
	})
	if _, err := g.Acquire(context.Background(), req); !errors.Is(err, errDisk) {
		t.Fatalf("Acquire: err %v, want %v", err, errDisk)
	}
	if got := g.State().LastDispatch; !got.IsZero() {
		t.Errorf("LastDispatch = %v after a failed Record, want zero", got)
	}
	f.recordErr = nil
	mustAcquire(t, g).Done(ok200) // the cap of 1 is still whole, and no spacing applies
	if len(f.clk.Sleeps()) != 0 {
		t.Errorf("slept %v: the failed dispatch was taken for a real one", f.clk.Sleeps())
	}
}

func TestRecordedAtDispatchTimeBeforeAcquireReturns(t *testing.T) {
	var events []string
	g, f := setup(func(c *gate.Config, f *fixture) {
		c.State = state.Host{LastDispatch: t0.Add(-time.Second), LastCompletion: t0.Add(-time.Second)}
		c.Record = func(at time.Time, r gate.Request) error {
			events = append(events, "record")
			f.records = append(f.records, dispatch{at, r})
			return nil
		}
	})
	p := mustAcquire(t, g)
	events = append(events, "acquired")
	p.Done(ok200)
	if diff := cmp.Diff([]string{"record", "acquired"}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	want := []dispatch{{t0.Add(2 * time.Second), req}} // after the 2 s still owed
	if diff := cmp.Diff(want, f.records); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// §3.7: b = min(backoff_max, 2^n × delay.max, 30 min); range [b/2, b].
func TestBackoff(t *testing.T) {
	const s = time.Second
	tests := []struct {
		n                    int
		delayMax, backoffMax time.Duration
		lo, hi               time.Duration
	}{
		{1, 5 * s, 30 * time.Minute, 5 * s, 10 * s},
		{2, 5 * s, 30 * time.Minute, 10 * s, 20 * s},
		{3, 5 * s, 30 * time.Minute, 20 * s, 40 * s},
		{4, 5 * s, 30 * time.Minute, 40 * s, 80 * s},
		{5, 5 * s, 30 * time.Minute, 80 * s, 160 * s},
		{6, 5 * s, 30 * time.Minute, 160 * s, 320 * s},
		{9, 5 * s, 30 * time.Minute, 15 * time.Minute, 30 * time.Minute},
		{6, 5 * s, time.Minute, 30 * s, time.Minute},                   // backoff_max smaller
		{20, 5 * s, 2 * time.Hour, 15 * time.Minute, 30 * time.Minute}, // never past 30 min
		{20, 5 * s, 0, 15 * time.Minute, 30 * time.Minute},             // zero: the built-in limit
		{math.MaxInt, time.Nanosecond, 0, 15 * time.Minute, 30 * time.Minute},
		{math.MaxInt, time.Duration(math.MaxInt64), 0, 15 * time.Minute, 30 * time.Minute},
		{3, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		lo, hi := gate.Backoff(tt.n, tt.delayMax, tt.backoffMax)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("Backoff(%d, %v, %v) = [%v, %v], want [%v, %v]", tt.n, tt.delayMax, tt.backoffMax, lo, hi, tt.lo, tt.hi)
		}
	}
}

// §3.7 through the gate: the n-th failure backs off within [b/2, b], the
// next dispatch waits for it, and a success resets n.
func TestFailuresBackOffAndSuccessResets(t *testing.T) {
	failures := []gate.Outcome{
		{Status: 503}, {Status: 429}, {Err: errors.New("connection reset")},
		{Status: 500}, {Status: 502}, {Err: context.DeadlineExceeded},
	}
	for _, tt := range []struct {
		name string
		rand gate.Rand
		end  func(lo, hi time.Duration) time.Duration
	}{
		{"lowest draw", lowest, func(lo, _ time.Duration) time.Duration { return lo }},
		{"highest draw", highest, func(_, hi time.Duration) time.Duration { return hi }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, f := setup(func(c *gate.Config, _ *fixture) { c.Rand = tt.rand })
			for i, o := range failures {
				n := i + 1
				p := mustAcquire(t, g)
				if i > 0 {
					if got, want := f.clk.Now(), g.State().BackoffUntil; !got.Equal(want) {
						t.Errorf("dispatch after failure %d at %v, want the backoff's end %v", n-1, got, want)
					}
				}
				f.clk.Advance(time.Second)
				p.Done(o)
				st := g.State()
				lo, hi := gate.Backoff(n, 5*time.Second, 30*time.Minute)
				if st.Failures != n || st.BackoffUntil.Sub(st.LastCompletion) != tt.end(lo, hi) {
					t.Errorf("after failure %d (%+v): Failures %d, backoff %v; want %d, %v",
						n, o, st.Failures, st.BackoffUntil.Sub(st.LastCompletion), n, tt.end(lo, hi))
				}
			}
			mustAcquire(t, g).Done(gate.Outcome{Status: 304})
			if st := g.State(); st.Failures != 0 || !st.BackoffUntil.IsZero() {
				t.Errorf("after a 304: Failures %d, BackoffUntil %v; want 0, zero", st.Failures, st.BackoffUntil)
			}
		})
	}
}

func TestBackoffLimitsFromConfig(t *testing.T) {
	for _, tt := range []struct {
		backoffMax, want time.Duration
	}{
		{time.Minute, time.Minute},
		{0, 30 * time.Minute},
		{24 * time.Hour, 30 * time.Minute},
	} {
		g, f := setup(func(c *gate.Config, _ *fixture) {
			c.Rand = highest
			c.BackoffMax = tt.backoffMax
			c.State = state.Host{Failures: 40}
		})
		mustAcquire(t, g).Done(gate.Outcome{Status: 503})
		if got := g.State().BackoffUntil.Sub(f.clk.Now()); got != tt.want {
			t.Errorf("backoff_max %v: backoff %v, want %v", tt.backoffMax, got, tt.want)
		}
	}
}

// §3.7: 404, 410 and other 4xx are about the document, not the host.
func TestClientErrorsDoNotBackOff(t *testing.T) {
	before := state.Host{Failures: 2, BackoffUntil: t0.Add(-time.Minute)}
	for _, status := range []int{404, 410, 400, 401, 403, 451} {
		g, _ := setup(func(c *gate.Config, _ *fixture) { c.State = before })
		mustAcquire(t, g).Done(gate.Outcome{Status: status})
		st := g.State()
		if st.Failures != before.Failures || !st.BackoffUntil.Equal(before.BackoffUntil) {
			t.Errorf("after %d: Failures %d, BackoffUntil %v; want unchanged %d, %v",
				status, st.Failures, st.BackoffUntil, before.Failures, before.BackoffUntil)
		}
	}
}

// §3.7: Retry-After applies when it asks for longer than the backoff (5 s
// here: first failure, lowest draw).
func TestRetryAfter(t *testing.T) {
	at := func(d time.Duration) string { return t0.Add(d).Format(http.TimeFormat) }
	for _, tt := range []struct {
		header string
		want   time.Duration
	}{
		{"600", 10 * time.Minute},
		{"2", 5 * time.Second},
		{at(time.Hour), time.Hour},
		{at(time.Second), 5 * time.Second},
		{at(-time.Hour), 5 * time.Second},
		{"99999999999999999999999999", gate.MaxRetryAfter},
		{"-30", 5 * time.Second},
		{"soon", 5 * time.Second},
	} {
		g, f := setup(nil)
		mustAcquire(t, g).Done(gate.Outcome{Status: 429, RetryAfter: tt.header})
		if got := g.State().BackoffUntil.Sub(f.clk.Now()); got != tt.want {
			t.Errorf("Retry-After %q: wait %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		v      string
		want   time.Duration
		wantOK bool
	}{
		{"120", 2 * time.Minute, true},
		{" 30 ", 30 * time.Second, true},
		{"0", 0, true},
		{"000000000000000000000000000007", 7 * time.Second, true},
		{"86400", 24 * time.Hour, true},
		{"86401", gate.MaxRetryAfter, true},
		{"9223372036", gate.MaxRetryAfter, true},           // ×1e9 overflows int64
		{"18446744073709551616", gate.MaxRetryAfter, true}, // overflows uint64
		{"-5", 0, true},                                    // negative
		{t0.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"Wednesday, 25-Nov-26 12:01:00 GMT", time.Minute, true}, // RFC 850
		{"Wed Nov 25 12:00:10 2026", 10 * time.Second, true},     // asctime
		{t0.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"Fri, 31 Dec 9999 23:59:59 GMT", gate.MaxRetryAfter, true},
		{"", 0, false},
		{"-", 0, false},
		{"1.5", 0, false},
		{"+5", 0, false},
		{"5s", 0, false},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		got, ok := gate.ParseRetryAfter(tt.v, t0)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.wantOK)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "-1", "99999999999999999999", t0.Format(http.TimeFormat), "Fri, 31 Dec 9999 23:59:59 GMT", "x"} {
		f.Add(s, t0.Unix())
	}
	f.Fuzz(func(t *testing.T, v string, now int64) {
		d, ok := gate.ParseRetryAfter(v, time.Unix(now, 0))
		if d < 0 || d > gate.MaxRetryAfter {
			t.Fatalf("ParseRetryAfter(%q) = %v, outside [0, %v]", v, d, gate.MaxRetryAfter)
		}
		if !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v with ok false", v, d)
		}
	})
}

// §3.7: a wait past the run's deadline defers the host instead of sleeping.
func TestWaitPastDeadlineDefers(t *testing.T) {
	deadline := t0.Add(10 * time.Minute)
	tests := []struct {
		name  string
		st    state.Host
		prior []gate.Outcome // completed before the deferred Acquire
		want  *gate.DeferredError
	}{
		{"backoff from an earlier run", state.Host{BackoffUntil: t0.Add(30 * time.Minute), Failures: 5}, nil,
			&gate.DeferredError{Until: t0.Add(30 * time.Minute), Reason: "backoff"}},
		{"retry-after", state.Host{}, []gate.Outcome{{Status: 503, RetryAfter: "3600"}},
			&gate.DeferredError{Until: t0.Add(time.Hour), Reason: "retry-after"}},
		{"retry-after from an earlier run", state.Host{BackoffUntil: t0.Add(time.Hour), Failures: 1, BackoffFromRetryAfter: true}, nil,
			&gate.DeferredError{Until: t0.Add(time.Hour), Reason: "retry-after"}},
		{"spacing", state.Host{LastDispatch: deadline.Add(-time.Second)}, nil,
			&gate.DeferredError{Until: deadline.Add(2 * time.Second), Reason: "spacing"}},
		{"backoff ends before the deadline", state.Host{BackoffUntil: t0.Add(5 * time.Minute)}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, f := setup(func(c *gate.Config, _ *fixture) {
				c.State = tt.st
				c.Deadline = deadline
			})
			for _, o := range tt.prior {
				mustAcquire(t, g).Done(o)
			}
			sleptBefore, recordedBefore := len(f.clk.Sleeps()), len(f.records)

			p, err := g.Acquire(context.Background(), req)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Acquire: %v", err)
				}
				p.Done(ok200)
				return
			}
			var de *gate.DeferredError
			if !errors.As(err, &de) {
				t.Fatalf("Acquire: err %v, want *DeferredError", err)
			}
			if diff := cmp.Diff(tt.want, de); diff != "" {
				t.Errorf("DeferredError (-want +got):\n%s", diff)
			}
			if got := f.clk.Sleeps()[sleptBefore:]; len(got) != 0 {
				t.Errorf("slept %v before deferring", got)
			}
			if got := f.records[recordedBefore:]; len(got) != 0 {
				t.Errorf("deferred dispatch was recorded: %v", got)
			}
		})
	}
}

// §3.4, §3.13: the wait ends with the context, and the host is free again.
func TestCancelDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var recorded int
		g := gate.New(gate.Config{
			Host:   policy.Host{Delay: policy.Delay{Min: 3 * time.Second, Max: 3 * time.Second}, DailyCap: 10},
			Clock:  clock.Real{}, // inside the bubble its timers run on fake time
			Rand:   lowest,
			State:  state.Host{LastDispatch: time.Now()},
			Spent:  func(string) (int, error) { return 0, nil },
			Record: func(time.Time, gate.Request) error { recorded++; return nil },
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := g.Acquire(ctx, req)
			done <- err
		}()
		synctest.Wait() // blocked in Sleep
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire cancelled during its wait: err %v, want context.Canceled", err)
		}
		if recorded != 0 {
			t.Fatalf("cancelled Acquire recorded %d dispatches", recorded)
		}
		mustAcquire(t, g).Done(ok200)
	})
}

// Every way out of Acquire without a Permit leaves the host free. The
// probe Acquire times out (on the bubble's fake time) only if it is not.
func TestErrorPathsRelease(t *testing.T) {
	errLedger := errors.New("ledger unreadable")
	tests := []struct {
		name string
		edit func(*gate.Config, *fixture)
		want func(error) bool
	}{
		{"paused", func(c *gate.Config, _ *fixture) { c.State.PausedUntil = t0.Add(time.Hour) },
			func(err error) bool { return errors.Is(err, gate.ErrPaused) }},
		{"cap", func(_ *gate.Config, f *fixture) { f.spent["2026-11-25"] = 200 },
			func(err error) bool { return errors.Is(err, gate.ErrCapReached) }},
		{"spent error", func(_ *gate.Config, f *fixture) { f.spentErr = errLedger },
			func(err error) bool { return errors.Is(err, errLedger) }},
		{"deferred", func(c *gate.Config, _ *fixture) {
			c.State.BackoffUntil = t0.Add(time.Hour)
			c.Deadline = t0.Add(time.Minute)
		}, func(err error) bool { var de *gate.DeferredError; return errors.As(err, &de) }},
		{"record error", func(_ *gate.Config, f *fixture) { f.recordErr = errLedger },
			func(err error) bool { return errors.Is(err, errLedger) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g, _ := setup(tt.edit)
				if _, err := g.Acquire(context.Background(), req); !tt.want(err) {
					t.Fatalf("Acquire: unexpected err %v", err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				if _, err := g.Acquire(ctx, req); errors.Is(err, context.DeadlineExceeded) {
					t.Fatal("the failed Acquire kept the host: the next one blocked")
				}
			})
		})
	}
}

// §3.8: pause_after_403 consecutive 403s pause the host for the rest of the
// UTC day — UTC even when the clock reads another zone.
func TestPauseAfter403(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*60*60)
	start := time.Date(2026, 11, 26, 8, 0, 0, 0, tokyo) // 23:00 UTC on the 25th
	midnight := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	g, f := setup(func(c *gate.Config, f *fixture) {
		f.clk = clock.NewFake(start)
		c.Clock = f.clk
	})
	for range 3 {
		mustAcquire(t, g).Done(gate.Outcome{Status: 403})
	}
	if got := g.State().PausedUntil; !got.Equal(midnight) {
		t.Fatalf("PausedUntil = %v, want %v", got, midnight)
	}
	if _, err := g.Acquire(context.Background(), req); !errors.Is(err, gate.ErrPaused) {
		t.Fatalf("Acquire while paused: err %v, want ErrPaused", err)
	}
	if len(f.records) != 3 {
		t.Errorf("%d dispatches recorded, want 3", len(f.records))
	}

	f.clk.Advance(midnight.Sub(f.clk.Now()))
	mustAcquire(t, g).Done(gate.Outcome{Status: 403})
	if got, want := g.State().PausedUntil, midnight.AddDate(0, 0, 1); !got.Equal(want) {
		t.Errorf("a 403 right after the pause: PausedUntil = %v, want %v", got, want)
	}
}

func TestPauseNeedsConsecutive403s(t *testing.T) {
	forbidden := gate.Outcome{Status: 403}
	netErr := gate.Outcome{Err: errors.New("connection refused")}
	for _, tt := range []struct {
		name       string
		after      int
		seq        []gate.Outcome
		wantCount  int
		wantPaused bool
	}{
		{"403 200 403", 3, []gate.Outcome{forbidden, ok200, forbidden}, 1, false},
		{"403 404 403", 3, []gate.Outcome{forbidden, {Status: 404}, forbidden}, 1, false},
		{"403 403 503 403", 3, []gate.Outcome{forbidden, forbidden, {Status: 503}, forbidden}, 1, false},
		{"403 403 error 403", 3, []gate.Outcome{forbidden, forbidden, netErr, forbidden}, 3, true},
		{"pause_after_403 0 never pauses", 0, []gate.Outcome{forbidden, forbidden, forbidden, forbidden}, 4, false},
	} {
		g, _ := setup(func(c *gate.Config, _ *fixture) { c.PauseAfter403 = tt.after })
		for _, o := range tt.seq {
			mustAcquire(t, g).Done(o)
		}
		st := g.State()
		if st.Consecutive403 != tt.wantCount || !st.PausedUntil.IsZero() != tt.wantPaused {
			t.Errorf("%s: Consecutive403 %d, PausedUntil %v; want %d, paused %v",
				tt.name, st.Consecutive403, st.PausedUntil, tt.wantCount, tt.wantPaused)
		}
	}
}

// §3.9: a host with windows is fetched only inside them, including at the
// end of a wait. Needs policy.Host.OffPeakNow.
func TestOffPeak(t *testing.T) {
	nights := policy.Window{Days: [7]bool{true, true, true, true, true, true, true}, Start: 20 * time.Hour, End: 7 * time.Hour, Literal: "Mon-Sun 20:00-07:00"}
	withWindow := func(c *gate.Config, _ *fixture) { c.Host.OffPeak = []policy.Window{nights} }

	g, f := setup(withWindow)
	if _, err := g.Acquire(context.Background(), req); !errors.Is(err, gate.ErrOffPeak) {
		t.Fatalf("Acquire at noon: err %v, want ErrOffPeak", err)
	}
	f.clk.Advance(9 * time.Hour) // 21:00
	mustAcquire(t, g).Done(ok200)

	// A backoff that ends after the window closes.
	start := time.Date(2026, 11, 26, 6, 59, 0, 0, time.UTC)
	g, f = setup(func(c *gate.Config, f *fixture) {
		withWindow(c, f)
		f.clk = clock.NewFake(start)
		c.Clock = f.clk
		c.State.BackoffUntil = start.Add(5 * time.Minute)
	})
	if _, err := g.Acquire(context.Background(), req); !errors.Is(err, gate.ErrOffPeak) {
		t.Fatalf("Acquire whose wait ends at 07:04: err %v, want ErrOffPeak", err)
	}
	if len(f.records) != 0 {
		t.Errorf("dispatched outside the window: %v", f.records)
	}
}

func TestStateCarriesOver(t *testing.T) {
	prev := state.Host{LastDispatch: t0.Add(-time.Hour), LastCompletion: t0.Add(-time.Hour), Failures: 2, BackoffUntil: t0.Add(time.Minute)}
	g, f := setup(func(c *gate.Config, _ *fixture) { c.State = prev })
	if diff := cmp.Diff(prev, g.State()); diff != "" {
		t.Fatalf("State before any dispatch (-want +got):\n%s", diff)
	}
	p := mustAcquire(t, g)
	f.clk.Advance(time.Second)
	p.Done(ok200)
	want := state.Host{LastDispatch: t0.Add(time.Minute), LastCompletion: t0.Add(time.Minute + time.Second)}
	if diff := cmp.Diff(want, g.State()); diff != "" {
		t.Errorf("State after a success (-want +got):\n%s", diff)
	}
}

func BenchmarkAcquireDone(b *testing.B) {
	g := gate.New(gate.Config{
		Host:   policy.Host{DailyCap: math.MaxInt},
		Clock:  clock.NewFake(t0),
		Rand:   lowest,
		Spent:  func(string) (int, error) { return 0, nil },
		Record: func(time.Time, gate.Request) error { return nil },
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := g.Acquire(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		p.Done(ok200)
	}
}

// Whether a backoff is the server's Retry-After is part of the host's
// saved memory, so the next run's gate names it as such; a success clears it.
func TestRetryAfterOriginSaved(t *testing.T) {
	g, _ := setup(nil)
	mustAcquire(t, g).Done(gate.Outcome{Status: 503, RetryAfter: "3600"})
	if st := g.State(); !st.BackoffFromRetryAfter || !st.BackoffUntil.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after a 503 with Retry-After 3600: %+v", st)
	}
	g2, _ := setup(func(c *gate.Config, _ *fixture) { c.State = g.State() })
	mustAcquire(t, g2).Done(ok200)
	if st := g2.State(); st.BackoffFromRetryAfter || !st.BackoffUntil.IsZero() {
		t.Errorf("after a success: %+v, want no backoff", st)
	}
}
