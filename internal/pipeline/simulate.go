package pipeline

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// HostPlan is what a run started now would do at one host.
type HostPlan struct {
	Host string
	// Requests in the order they would leave, robots.txt included, each
	// with its time after the start as the politeness rules space them.
	Requests []PlannedRequest
	// Deferred: due sources the run would leave for a later one, and why.
	Deferred []SourceNote
	// Skipped: sources of the host not requested, and why (not due yet,
	// held for good, blocked by robots.txt).
	Skipped []SourceNote
	// Excluded: sources the policy's exclude list keeps out, with its
	// reason; never requested.
	Excluded []SourceNote
}

// PlannedRequest is one request of a plan.
type PlannedRequest struct {
	Purpose, URL, Source string
	At                   time.Duration
}

// SourceNote is a source left out of a plan, and why.
type SourceNote struct{ ID, Why string }

// Took is the time the host's requests need under the politeness rules.
func (p HostPlan) Took() time.Duration {
	if len(p.Requests) == 0 {
		return 0
	}
	return p.Requests[len(p.Requests)-1].At
}

// Simulate plans a run as the run itself would go: each host through its
// own gate (robots.txt, spacing, cap, backoff, pause, off-peak windows and
// the deadline, exactly as a run applies them) on a clock of its own that
// does not wait, against a fetcher that answers at once without the
// network. It assumes every answer is ordinary: robots.txt as the kept
// copy says, or missing where none is kept (the run fetches it first); a
// document unchanged; no redirect. o is a run's options; Ledger, HTTP and
// Log are ignored, the state and the store are not written, and Spent must
// read the real ledgers (left out, nothing counts as spent).
//
// The state is copied once and what is due is decided once, as a run
// does; each host's turn then runs on that one copy, so a plan costs what
// its sources and hosts cost, not their product.
func Simulate(ctx context.Context, o Options) ([]HostPlan, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	start := o.Clock.Now()
	// The hosts' turns write only their own sources, host and robots.txt
	// entries: one copy serves them all.
	st := o.State.Clone()
	sim := o
	sim.State, sim.Ledger, sim.Index = st, nil, store.NewIndex()
	sim.HTTP = simFetcher{}
	sim.Log, sim.Progress, sim.HostEvent, sim.SourceDone = nil, nil, nil, nil
	if sim.Spent == nil {
		sim.Spent = func(string, string) (int, error) { return 0, nil }
	}
	ownRand := sim.NewRand == nil
	sim = withDefaults(sim)

	due, excluded := plan(sim, start)
	why := map[string]string{}
	for _, ex := range excluded {
		why[ex.id] = ex.why
	}
	// The selected sources by host, hosts in name order and each host's in
	// manifest order, as indices: no map of hosts, no copy of a source.
	all := o.Set.Sources
	idx := make([]int32, 0, len(all))
	for i := range all {
		if selected(o, all[i]) {
			idx = append(idx, int32(i))
		}
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return strings.Compare(all[a].Host, all[b].Host) })
	var turns []simTurn
	for i, j := 0, 0; i < len(idx); {
		host := all[idx[i]].Host
		k := i + 1
		for k < len(idx) && all[idx[k]].Host == host {
			k++
		}
		t := simTurn{host: host, srcs: idx[i:k:k]}
		// due is in host order too, and its hosts are among these.
		if j < len(due) && due[j].host == host {
			t.due, t.isDue = due[j], true
			j++
		}
		turns = append(turns, t)
		i = k
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The hosts' turns are independent (no redirect, so no host sends to
	// another's gate): a few workers take them in turn, each reusing one
	// run, clock and recorder from host to host, so that a host costs its
	// requests and not a run's worth of maps.
	plans := make([]HostPlan, len(turns))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(turns), 1)) {
		wg.Go(func() {
			w := &simWorker{}
			own := sim
			own.Clock = &w.clock
			if ownRand {
				rnd := sim.NewRand()
				own.NewRand = func() gate.Rand { return rnd }
			}
			w.r = newRun(own, &w.rec, cancel)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(turns) {
					return
				}
				t := turns[i]
				var end hostEnd
				w.reset(start)
				if t.isDue {
					// Each host on a clock of its own, as each runs on its own.
					end = w.r.runHost(ctx, t.due)
				}
				plans[i] = hostPlanOf(t, all, end, w.rec.lines, why, st, start)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return plans, nil
}

// simTurn is one host of a plan: its selected sources (indices into the
// set's sources, in manifest order) and, when any is due, what is due.
type simTurn struct {
	host  string
	srcs  []int32
	due   hostPlan
	isDue bool
}

// simWorker is what one worker of a simulation carries from host to host.
type simWorker struct {
	r     *run
	clock simClock
	rec   recorder
}

// reset makes w ready for the next host: a clock at start, nothing
// recorded, no gate and no robots.txt decision from the host before.
func (w *simWorker) reset(start time.Time) {
	w.clock.now = start
	w.rec.lines = w.rec.lines[:0]
	clear(w.r.gates)
	clear(w.r.robots)
	clear(w.r.docs)
	w.r.unkept = w.r.unkept[:0]
}

// hostPlanOf is what one host's simulated turn comes to: its dispatches,
// then each of its sources that was not requested, and why.
func hostPlanOf(t simTurn, all []manifest.Source, end hostEnd, dispatched []ledger.Line, excluded map[string]string, st *state.State, start time.Time) HostPlan {
	p := HostPlan{Host: t.host}
	if len(dispatched) > 0 {
		p.Requests = make([]PlannedRequest, len(dispatched))
	}
	for i, l := range dispatched {
		p.Requests[i] = PlannedRequest{Purpose: l.Purpose, URL: l.URL, Source: l.Source, At: l.Time.Sub(start)}
	}
	checked := idSet(len(dispatched), func(i int) string { return dispatched[i].Source })
	due := idSet(len(t.due.sources), func(i int) string { return t.due.sources[i].ID })
	for _, i := range t.srcs {
		src := &all[i]
		id := src.ID
		if checked(id) {
			continue
		}
		if why := excluded[id]; why != "" {
			p.Excluded = append(p.Excluded, SourceNote{id, why})
			continue
		}
		s := st.Source(id)
		isDue := due(id)
		switch {
		case s.Status == state.BlockedRobots && isDue:
			p.Skipped = append(p.Skipped, SourceNote{id, "blocked by robots.txt"})
		case s.Status == state.Paused && isDue:
			p.Deferred = append(p.Deferred, SourceNote{id, "host paused after repeated 403s until the next UTC day"})
		case isDue:
			why := end.reason
			if why == "" {
				why = "not reached before the run's end"
			}
			p.Deferred = append(p.Deferred, SourceNote{id, why})
		case src.Never:
			p.Skipped = append(p.Skipped, SourceNote{id, "held, and it never changes (recheck: never)"})
		default:
			p.Skipped = append(p.Skipped, SourceNote{id, "not due until " + s.LastCheck.Add(src.Recheck).UTC().Format("2006-01-02 15:04 UTC")})
		}
	}
	return p
}

// idSet says whether an id is among n ids. Most hosts have a few sources:
// a scan costs less than a map for them.
func idSet(n int, id func(int) string) func(string) bool {
	if n <= 16 {
		return func(x string) bool {
			for i := range n {
				if id(i) == x {
					return true
				}
			}
			return false
		}
	}
	m := make(map[string]struct{}, n)
	for i := range n {
		m[id(i)] = struct{}{}
	}
	return func(x string) bool { _, ok := m[x]; return ok }
}

// recorder keeps the dispatch lines of the host a simulation's worker is
// on, in memory: they are its plan.
type recorder struct {
	lines []ledger.Line
}

func (r *recorder) Append(l ledger.Line) error {
	if l.Event == ledger.Dispatch {
		r.lines = append(r.lines, l)
	}
	return nil
}

func (r *recorder) Read(day, host string) ([]ledger.Line, error) {
	var out []ledger.Line
	for _, l := range r.lines {
		if l.Host == host && ledger.Day(l.Time) == day {
			out = append(out, l)
		}
	}
	return out, nil
}

// simClock is a host's clock in a simulation: one goroutine reads it, and
// a wait moves it on at once.
type simClock struct{ now time.Time }

func (c *simClock) Now() time.Time { return c.now }

func (c *simClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.now = c.now.Add(d)
	}
	return nil
}

// After moves the clock on by d at once, as Sleep does, and fires.
func (c *simClock) After(d time.Duration) <-chan time.Time {
	if d > 0 {
		c.now = c.now.Add(d)
	}
	fired := make(chan time.Time, 1)
	fired <- c.now
	return fired
}

// simFetcher answers without the network: robots.txt as missing, a
// document as unchanged.
type simFetcher struct{}

func (simFetcher) Get(ctx context.Context, req fetch.Request, _ fetch.Sink) (*fetch.Response, error) {
	return &fetch.Response{Status: 304, ETag: req.ETag, LastModified: req.LastModified}, ctx.Err()
}

func (simFetcher) GetBytes(ctx context.Context, req fetch.Request, _ int64) (*fetch.Response, []byte, error) {
	return &fetch.Response{Status: 404}, nil, ctx.Err()
}
