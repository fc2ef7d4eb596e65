package pipeline

import (
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// Limits is what bounds one run and what hears of it as it goes. It is
// declared here, where the limits are enforced, and embedded unchanged by
// the session's, the cycle's and the commands' options: each layer hands
// it down as it is and sets only what is its own (the cycle its shard,
// lease and push; the session the deadline MaxDuration gives).
type Limits struct {
	// Only limits the run to one source id or one jurisdiction.
	Only string
	// DryRun plans and prints what would be requested, without a request
	// or a write. The session reads it: Run always sends, Simulate plans.
	DryRun bool
	// RunID is written into ledger lines.
	RunID string
	// MaxDuration: no dispatch after this long; hosts that would wait
	// past it are deferred. The session turns it into Deadline.
	MaxDuration time.Duration
	// Deadline: a host whose next wait would end after it is deferred
	// (for the cycle, its lease's expiry less a margin); zero: none.
	Deadline time.Time
	// Hosts, when set, limits the run to the hosts it accepts (a shard).
	Hosts func(host string) bool
	// Spent returns the dispatches already spent on host on a UTC day
	// ("YYYY-MM-DD"); default: the ledger's dispatch lines. The cycle's
	// counts its lease's reservation, so a run sends at most that.
	Spent func(host, day string) (int, error)
	// Progress, when set, receives the counts each time they change —
	// after each request the run completes, among others. It is called
	// from the hosts' goroutines, concurrently, and must not block long.
	Progress func(Result)
	Clock    clock.Clock // default clock.Real
}
