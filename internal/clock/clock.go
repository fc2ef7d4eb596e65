package clock

import (
	"context"
	"sync"
	"time"
)

// Clock tells the time and waits. Sleep returns early with ctx.Err() when the
// context ends first, so a SIGTERM never waits out a politeness delay.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
	// After returns a channel that receives the time once d has passed on
	// this clock, for a wait that a select can give up.
	After(d time.Duration) <-chan time.Time
}

// Since is the time passed on c since t.
func Since(c Clock, t time.Time) time.Duration { return c.Now().Sub(t) }

// Real is the wall clock.
type Real struct{}

// Now returns time.Now(), which carries the monotonic reading that makes
// Since immune to changes of the wall clock.
func (Real) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done, whichever comes first.
func (Real) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// After is time.After.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Fake is a clock that never waits: Sleep advances the fake time by d at
// once and records d. It is safe for concurrent use; concurrent sleepers all
// advance the same shared time, so use one Fake per serial actor when the
// exact timeline matters.
//
// A channel from After receives once the fake time reaches its deadline,
// moved there by Sleep or Advance: the test drives the timers. AwaitAfters
// lets it wait until the code under test has set them.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	sleeps  []time.Duration
	afters  []time.Duration
	timers  []fakeTimer
	setting chan struct{} // closed and replaced at each After
}

type fakeTimer struct {
	at time.Time
	c  chan time.Time
}

// NewFake returns a Fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start, setting: make(chan struct{})} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Sleep advances the fake time by d (if positive) unless ctx is already done.
func (f *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if d > 0 {
		f.moveTo(f.now.Add(d))
	}
	f.sleeps = append(f.sleeps, d)
	return nil
}

// Advance moves the fake time forward by d without recording a sleep, as
// when the work between two dispatches takes time.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moveTo(f.now.Add(d))
}

// moveTo sets the fake time and fires the timers it reaches; f.mu is held.
func (f *Fake) moveTo(t time.Time) {
	f.now = t
	left := f.timers[:0]
	for _, tm := range f.timers {
		if tm.at.After(t) {
			left = append(left, tm)
			continue
		}
		tm.c <- t // buffered, and sent to once
	}
	clear(f.timers[len(left):])
	f.timers = left
}

// After returns a channel that receives the fake time once it has moved d
// on; at once when d is not positive. It records d.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := make(chan time.Time, 1)
	if d <= 0 {
		c <- f.now
	} else {
		f.timers = append(f.timers, fakeTimer{at: f.now.Add(d), c: c})
	}
	f.afters = append(f.afters, d)
	if f.setting == nil { // a Fake made without NewFake
		f.setting = make(chan struct{})
	}
	close(f.setting)
	f.setting = make(chan struct{})
	return c
}

// Sleeps returns a copy of every duration passed to Sleep, in order.
func (f *Fake) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// AwaitAfters waits until After has been called at least n times and
// returns every duration passed to it, in order; or ctx's error when it
// ends first.
func (f *Fake) AwaitAfters(ctx context.Context, n int) ([]time.Duration, error) {
	for {
		f.mu.Lock()
		if len(f.afters) >= n {
			defer f.mu.Unlock()
			return append([]time.Duration(nil), f.afters...), nil
		}
		if f.setting == nil {
			f.setting = make(chan struct{})
		}
		setting := f.setting
		f.mu.Unlock()
		select {
		case <-setting:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
