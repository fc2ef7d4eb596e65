package pipeline

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
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
	rec := &recorder{lines: map[string][]ledger.Line{}}
	sim := o
	sim.State, sim.Ledger, sim.Index = st, nil, store.NewIndex()
	sim.HTTP = simFetcher{}
	sim.Log, sim.Progress, sim.HostEvent, sim.SourceDone = nil, nil, nil, nil
	if sim.Spent == nil {
		sim.Spent = func(string, string) (int, error) { return 0, nil }
	}
	sim = withDefaults(sim)

	due, excluded := plan(sim, start)
	dueAt := map[string]hostPlan{}
	for _, hp := range due {
		dueAt[hp.host] = hp
	}
	why := map[string]string{}
	for _, ex := range excluded {
		why[ex.id] = ex.why
	}
	hosts := map[string][]manifest.Source{} // host → its sources in manifest order
	var order []string
	for _, src := range o.Set.Sources {
		if !selected(o, src) {
			continue
		}
		if _, ok := hosts[src.Host]; !ok {
			order = append(order, src.Host)
		}
		hosts[src.Host] = append(hosts[src.Host], src)
	}
	slices.Sort(order)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The hosts' turns are independent (no redirect, so no host sends to
	// another's gate): a few workers take them in turn.
	plans := make([]HostPlan, len(order))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				host := order[i]
				var end hostEnd
				hp, isDue := dueAt[host]
				if isDue {
					// Each host on a clock of its own, as each runs on its own.
					own := sim
					own.Clock = clock.NewFake(start)
					end = newRun(own, rec, cancel).runHost(ctx, hp)
				}
				plans[i] = hostPlanOf(host, hosts[host], hp, end, rec.host(host), why, st, start)
			}
		})
	}
	for i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return plans, nil
}

// hostPlanOf is what one host's simulated turn comes to: its dispatches,
// then each of its sources that was not requested, and why.
func hostPlanOf(host string, srcs []manifest.Source, hp hostPlan, end hostEnd, dispatched []ledger.Line, excluded map[string]string, st *state.State, start time.Time) HostPlan {
	p := HostPlan{Host: host}
	checked := map[string]bool{}
	for _, l := range dispatched {
		p.Requests = append(p.Requests, PlannedRequest{Purpose: l.Purpose, URL: l.URL, Source: l.Source, At: l.Time.Sub(start)})
		checked[l.Source] = true
	}
	due := map[string]bool{}
	for _, src := range hp.sources {
		due[src.ID] = true
	}
	for _, src := range srcs {
		id := src.ID
		s := st.Source(id)
		switch {
		case checked[id]:
		case excluded[id] != "":
			p.Excluded = append(p.Excluded, SourceNote{id, excluded[id]})
		case s.Status == state.BlockedRobots && due[id]:
			p.Skipped = append(p.Skipped, SourceNote{id, "blocked by robots.txt"})
		case s.Status == state.Paused && due[id]:
			p.Deferred = append(p.Deferred, SourceNote{id, "host paused after repeated 403s until the next UTC day"})
		case due[id]:
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

// recorder keeps a simulation's dispatch lines in memory, host by host:
// they are the plan.
type recorder struct {
	mu    sync.Mutex
	lines map[string][]ledger.Line
}

func (r *recorder) Append(l ledger.Line) error {
	if l.Event != ledger.Dispatch {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines[l.Host] = append(r.lines[l.Host], l)
	return nil
}

func (r *recorder) host(host string) []ledger.Line {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lines[host]
}

func (r *recorder) Read(day, host string) ([]ledger.Line, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ledger.Line
	for _, l := range r.lines[host] {
		if ledger.Day(l.Time) == day {
			out = append(out, l)
		}
	}
	return out, nil
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
