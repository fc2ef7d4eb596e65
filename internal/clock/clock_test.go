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
