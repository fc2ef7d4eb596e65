package gate

import (
	"time"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// Rules are the numbers a gate enforces for one host. The pipeline builds
// each gate's Config from them and the public rules page is rendered from
// them, so the page cannot say one thing while the gate does another.
type Rules struct {
	// Host is the host's effective setting, floors applied.
	Host policy.Host
	// BackoffMax is the longest wait a run of failures can cause: the
	// policy's backoff_max, never above policy.MaxBackoff.
	BackoffMax time.Duration
	// PauseAfter403 is the number of consecutive 403s that pause the host
	// until the next UTC day.
	PauseAfter403 int
}

// RulesFor returns the rules of host h (effective settings, as
// manifest.Set.Host returns them) under policy p.
func RulesFor(p policy.Policy, h policy.Host) Rules {
	limit := policy.MaxBackoff
	if p.BackoffMax > 0 {
		limit = min(limit, p.BackoffMax)
	}
	return Rules{Host: p.ApplyFloors(h), BackoffMax: limit, PauseAfter403: p.PauseAfter403}
}

// Config returns the part of a gate's Config the rules decide; the caller
// adds the clock, randomness, deadline, state and ledger hooks.
func (r Rules) Config() Config {
	return Config{Host: r.Host, BackoffMax: r.BackoffMax, PauseAfter403: r.PauseAfter403}
}

// Backoff returns the range the wait after the n-th consecutive failure is
// drawn from under these rules (before any longer Retry-After).
func (r Rules) Backoff(n int) (lo, hi time.Duration) {
	return Backoff(n, r.Host.Delay.Max, r.BackoffMax)
}
