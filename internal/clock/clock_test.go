package clock

import (
	"context"
	"testing"
	"time"
)

func TestFakeSleepAdvances(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	f := NewFake(start)
	if err := f.Sleep(context.Background(), 3*time.Second); err != nil {
		t.Fatal(err)
	}
	f.Advance(time.Second)
	if got, want := f.Now(), start.Add(4*time.Second); !got.Equal(want) {
		t.Fatalf("Now() = %v, want %v", got, want)
	}
	if got := f.Sleeps(); len(got) != 1 || got[0] != 3*time.Second {
		t.Fatalf("Sleeps() = %v, want [3s]", got)
	}
}

func TestSleepHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (Real{}).Sleep(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("Real.Sleep on cancelled ctx = %v, want context.Canceled", err)
	}
	f := NewFake(time.Unix(0, 0))
	if err := f.Sleep(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("Fake.Sleep on cancelled ctx = %v, want context.Canceled", err)
	}
	if !f.Now().Equal(time.Unix(0, 0)) {
		t.Fatal("a cancelled Fake.Sleep must not advance time")
	}
}

// TestFakeTimersFireWhenTheTimeComes: a Fake's After fires when Sleep or
// Advance reaches its deadline, not before, each channel once; a wait of
// nothing fires at once.
func TestFakeTimersFireWhenTheTimeComes(t *testing.T) {
	start := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	f := NewFake(start)
	short, long := f.After(20*time.Millisecond), f.After(time.Second)
	fired := func(c <-chan time.Time) (time.Time, bool) {
		select {
		case at := <-c:
			return at, true
		default:
			return time.Time{}, false
		}
	}
	f.Advance(19 * time.Millisecond)
	if _, ok := fired(short); ok {
		t.Fatal("a 20ms timer fired 19ms on")
	}
	f.Advance(time.Millisecond)
	if at, ok := fired(short); !ok || !at.Equal(start.Add(20*time.Millisecond)) {
		t.Fatalf("the 20ms timer at 20ms: %v, %v; want it fired with the fake time", at, ok)
	}
	if err := f.Sleep(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	if _, ok := fired(long); !ok {
		t.Fatal("a Sleep past a timer's deadline did not fire it")
	}
	if _, ok := fired(short); ok {
		t.Fatal("a timer fired twice")
	}
	if _, ok := fired(f.After(0)); !ok {
		t.Fatal("After(0) did not fire at once")
	}
	if got := Since(f, start); got != time.Second+20*time.Millisecond {
		t.Fatalf("Since = %v, want 1.02s", got)
	}
}

// TestAwaitAfters: a test waits until the code under test has set its
// timers, and learns what it asked for.
func TestAwaitAfters(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	go func() {
		f.After(time.Second)
		f.After(20 * time.Millisecond)
	}()
	got, err := f.AwaitAfters(t.Context(), 2)
	if err != nil || len(got) != 2 || got[0] != time.Second || got[1] != 20*time.Millisecond {
		t.Fatalf("AwaitAfters = %v, %v; want [1s 20ms]", got, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.AwaitAfters(ctx, 3); err != context.Canceled {
		t.Fatalf("AwaitAfters for a timer never set: %v, want context.Canceled", err)
	}
}

func TestRealAfter(t *testing.T) {
	start := Real{}.Now()
	<-Real{}.After(time.Millisecond)
	if Since(Real{}, start) < time.Millisecond {
		t.Fatal("Real.After fired before its time")
	}
}
