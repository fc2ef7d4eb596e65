package gate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gate"
)

// slowRecord makes Record take cost on the fake clock, as an fsync does.
func slowRecord(cost time.Duration) func(*gate.Config, *fixture) {
	return func(c *gate.Config, f *fixture) {
		inner := c.Record
		c.Record = func(at time.Time, r gate.Request) error {
			f.clk.Advance(cost)
			return inner(at, r)
		}
	}
}

// The dispatch time is taken once the ledger line is durable, when the
// request really leaves: spacing is measured from there.
func TestDispatchStampedAfterRecord(t *testing.T) {
	g, _ := setup(slowRecord(4 * time.Millisecond))
	mustAcquire(t, g).Done(ok200)
	if got, want := g.State().LastDispatch, t0.Add(4*time.Millisecond); !got.Equal(want) {
		t.Errorf("LastDispatch = %v, want %v (after the ledger write)", got, want)
	}
}

// The ledger write of a dispatch that had to wait is done at the end of
// the wait, so its cost is not added to the gap: two requests leave exactly
// d apart however long the fsync takes, and the line is still durable before
// each request.
func TestRecordCostNotAddedToTheGap(t *testing.T) {
	const cost = 4 * time.Millisecond
	g, f := setup(slowRecord(cost))
	var sent []time.Time
	for range 4 {
		p := mustAcquire(t, g)
		sent = append(sent, f.clk.Now()) // the request leaves now
		if len(f.records) != len(sent) || f.records[len(f.records)-1].At.After(f.clk.Now()) {
			t.Fatalf("request %d left before its ledger line was written (records %v)", len(sent), f.dispatchTimes())
		}
		p.Done(ok200)
	}
	for i := 1; i < len(sent); i++ {
		if gap := sent[i].Sub(sent[i-1]); gap != 3*time.Second {
			t.Errorf("gap %d = %v, want exactly the 3s delay (the ledger write must not lengthen it)", i, gap)
		}
	}
}

// A dispatch line that had to wait is written 20 ms ahead of its request
// even when the write is quick, so that hosts in step (a fixed delay) do
// not all fsync at the moment they dispatch; never more than 50 ms ahead.
func TestDispatchLineWrittenAhead(t *testing.T) {
	for _, tc := range []struct {
		cost, ahead time.Duration
	}{
		{0, 20 * time.Millisecond},
		{15 * time.Millisecond, 30 * time.Millisecond},
		{40 * time.Millisecond, 50 * time.Millisecond},
	} {
		var written []time.Time
		g, f := setup(func(c *gate.Config, f *fixture) {
			inner := c.Record
			c.Record = func(at time.Time, r gate.Request) error {
				written = append(written, f.clk.Now())
				f.clk.Advance(tc.cost)
				return inner(at, r)
			}
		})
		for range 3 {
			mustAcquire(t, g).Done(ok200)
		}
		// The first write sets the lately-seen cost; the third follows it.
		sent := f.records[2].At
		if got := sent.Sub(written[2]); got != tc.ahead {
			t.Errorf("write costing %v: line written %v ahead of its request, want %v", tc.cost, got, tc.ahead)
		}
		if now := f.clk.Now(); !now.Equal(sent) {
			t.Errorf("write costing %v: request left at %v, want %v", tc.cost, now, sent)
		}
	}
}

// A completion time given with the outcome (the end of the body, before the
// store's fsync) is the one spacing counts from.
func TestCompletionFromOutcome(t *testing.T) {
	g, f := setup(nil)
	p := mustAcquire(t, g)
	bodyEnd := f.clk.Now().Add(10 * time.Millisecond)
	f.clk.Advance(50 * time.Millisecond) // the store's fsync, after the body
	p.Done(gate.Outcome{Status: 200, At: bodyEnd})
	if got := g.State().LastCompletion; !got.Equal(bodyEnd) {
		t.Errorf("LastCompletion = %v, want the body's end %v", got, bodyEnd)
	}
}

// The cushion is added to a wait counted from the previous dispatch; a wait
// counted from the previous completion needs none (the server saw that
// answer end before the client did), nor does a dispatch that owes no wait.
func TestCushion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		response time.Duration
		want     time.Duration // from the first dispatch to the second
	}{
		{"spacing from dispatch", 0, 3*time.Second + time.Millisecond},
		{"spacing from completion", time.Second, 4 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, f := setup(func(c *gate.Config, _ *fixture) { c.Cushion = time.Millisecond })
			p := mustAcquire(t, g)
			f.clk.Advance(tc.response)
			p.Done(ok200)
			mustAcquire(t, g).Done(ok200)
			want := []time.Time{t0, t0.Add(tc.want)}
			if got := f.dispatchTimes(); len(got) != 2 || !got[0].Equal(want[0]) || !got[1].Equal(want[1]) {
				t.Errorf("dispatches at %v, want %v", got, want)
			}
		})
	}
}

// FuzzRetryAfterBackoff drives a gate with a 503 carrying any Retry-After:
// the backoff it sets is never shorter than the policy's own (half of 2 ×
// delay.max after one failure) nor longer than the longer of a day and
// backoff_max, and a wait past the deadline defers instead of sleeping.
func FuzzRetryAfterBackoff(f *testing.F) {
	for _, v := range []string{"120", "-1", "0", "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "soon", " 7 ", ""} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		deadline := t0.Add(time.Hour)
		g, f := setup(func(c *gate.Config, _ *fixture) { c.Deadline = deadline })
		mustAcquire(t, g).Done(gate.Outcome{Status: 503, RetryAfter: v})
		h := g.State()
		lo, _ := gate.Backoff(1, 5*time.Second, 30*time.Minute)
		wait := h.BackoffUntil.Sub(f.clk.Now())
		if wait < lo || wait > gate.MaxRetryAfter {
			t.Fatalf("Retry-After %q: backoff %v, want within [%v, %v]", v, wait, lo, gate.MaxRetryAfter)
		}
		before := len(f.clk.Sleeps())
		p, err := g.Acquire(context.Background(), req)
		switch {
		case h.BackoffUntil.After(deadline):
			var de *gate.DeferredError
			if !errors.As(err, &de) || len(f.clk.Sleeps()) != before {
				t.Fatalf("Retry-After %q: backoff past the deadline gave %v after sleeping %v", v, err, f.clk.Sleeps()[before:])
			}
		case err != nil:
			t.Fatalf("Retry-After %q: %v", v, err)
		default:
			if now := f.clk.Now(); now.Before(h.BackoffUntil) {
				t.Fatalf("Retry-After %q: dispatched at %v, before the backoff's end %v", v, now, h.BackoffUntil)
			}
			p.Done(ok200)
		}
	})
}
