package gate_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/gate"
)

// Notify hears each wait before it is slept (what for, until when) and
// each counted dispatch with the budget it leaves.
func TestNotifyTellsWaitsAndBudget(t *testing.T) {
	var events []gate.Event
	g, f := setup(func(c *gate.Config, f *fixture) {
		f.spent[t0.Format(time.DateOnly)] = 197
		c.Notify = func(e gate.Event) { events = append(events, e) }
	})
	ctx := context.Background()
	p, err := g.Acquire(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	p.Done(gate.Outcome{Status: 503})
	backoffEnd := g.State().BackoffUntil
	if backoffEnd.IsZero() {
		t.Fatal("a 503 set no backoff")
	}
	p, err = g.Acquire(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	p.Done(gate.Outcome{Status: 200})
	want := []gate.Event{
		{Until: t0, Left: 2},
		{Wait: true, Until: backoffEnd, Reason: "backoff", Left: 2},
		{Until: backoffEnd, Left: 1},
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if f.clk.Now().Before(backoffEnd) {
		t.Fatalf("clock at %v, before the backoff's end %v", f.clk.Now(), backoffEnd)
	}
}
