package session

import (
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
)

// settleDelay is how long after a host's turn ends its ledger lines are
// settled. Hosts whose turns end with the run's, in its last round, are
// left to the end's one batch, whose fsyncs share the disk's commits:
// settled one by one as they end, they measured slower at the end.
const settleDelay = time.Second

// settler makes each host's ledger lines durable (ledger.Settle) a while
// after its turn ends, while other hosts still have requests to make, so
// that the end syncs only the hosts that ended last.
type settler struct {
	settle func(host string)
	// timers is the machine's clock unless a test drives its own: not
	// the run's clock, as for the feed writer's pauses. It spaces our own
	// disk work, and no outcome depends on it.
	timers clock.Clock
	ended  chan struct{}
	wg     sync.WaitGroup
}

func newSettler(led *ledger.Ledger) *settler {
	return &settler{
		settle: led.Settle,
		timers: clock.Real{},
		ended:  make(chan struct{}),
	}
}

// hostDone settles host after settleDelay, unless the run ends first.
func (s *settler) hostDone(host string) {
	s.wg.Go(func() {
		select {
		case <-s.timers.After(settleDelay):
			s.settle(host)
		case <-s.ended:
		}
	})
}

// stop drops the waits not yet over and returns once no settling is under
// way: what is left is Close's.
func (s *settler) stop() {
	close(s.ended)
	s.wg.Wait()
}
