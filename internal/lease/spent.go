package lease

import (
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
)

// Spent returns the budget already used on day (UTC "YYYY-MM-DD") for host,
// as seen by the lease self (pass Request.ID() before acquiring):
//
//	u.Total (dispatch lines of every run pushed to the branch's ledger)
//	+ Σ over runs R with a lease or record of day, other than self:
//	    max(0, Σ budget of R's leases − u.ByRun[R])
//
// where a lease's budget is its reservation while unreleased (live or
// expired: a dead run's whole reservation stays spent), and what it
// dispatched once released (normally all pushed, so nothing extra). Summing
// a run's leases before subtracting its lines means lines are never
// subtracted twice, and max(budget, pushed) per run means they are never
// counted twice. Only the current lease of exactly self is left out; a
// record is never, even of the same run.
//
// leases is every lease and record of the branch (DecodeAll), whatever its
// shard: a lease of another shard that reserved this host (runs sharded
// differently) counts too.
func Spent(day, host string, u ledger.Usage, leases []Lease, self ID) int {
	budget := map[string]int{}
	for _, l := range leases {
		if l.Day != day || l.SupersededAt.IsZero() && l.ID() == self {
			continue
		}
		b := l.Reservations[host]
		if l.Released {
			b = l.Dispatched[host]
		}
		budget[l.RunID] += b
	}
	total := u.Total
	for run, b := range budget {
		total += max(0, b-u.ByRun[run])
	}
	return total
}

// HeldElsewhere returns a live lease other than self's that reserves host
// (more than 0), if any: the host is busy, whatever that lease's shard. An
// earlier attempt of self's workflow run is not busy: a re-run starts only
// once that attempt has ended, and self takes its lease over.
func HeldElsewhere(host string, leases []Lease, self ID, now time.Time) (Lease, bool) {
	for _, l := range leases {
		if l.Live(now) && l.ID() != self && !EarlierAttempt(l.RunID, self.RunID) && l.Reservations[host] > 0 {
			return l, true
		}
	}
	return Lease{}, false
}

// Remaining returns, for each host of caps (its daily cap), what self may
// still reserve on day: cap − Spent, at least 0, and 0 when another live
// lease reserves the host (one request at a time across differently
// sharded runs). usage holds each host's ledger.Count for day on the same
// tip. Call it inside the edit that acquires, on the tip being edited.
func Remaining(day string, caps map[string]int, usage map[string]ledger.Usage, leases []Lease, self ID, now time.Time) map[string]int {
	out := make(map[string]int, len(caps))
	for host, c := range caps {
		if _, busy := HeldElsewhere(host, leases, self, now); busy {
			out[host] = 0
			continue
		}
		out[host] = max(0, c-Spent(day, host, usage[host], leases, self))
	}
	return out
}
