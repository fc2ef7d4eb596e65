package pipeline

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
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
	// excluded, blocked by robots.txt).
	Skipped []SourceNote
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
// the deadline, exactly as a run applies them) on a clock that does not
// wait, against a fetcher that answers at once without the network. It
// assumes every answer is ordinary: robots.txt as the kept copy says, or
// missing where none is kept (the run fetches it first); a document
// unchanged; no redirect. o is a run's options; Ledger, HTTP and Log are
// ignored, the state and the store are not written, and Spent must read
// the real ledgers.
func Simulate(ctx context.Context, o Options) ([]HostPlan, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	start := o.Clock.Now()
	files, err := o.State.Files()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "taxkernelbot-plan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	hosts := map[string][]string{} // host → its sources in manifest order
	var order []string
	for _, src := range o.Set.Sources {
		if o.Only != "" && o.Only != src.ID && o.Only != src.Jurisdiction || o.Hosts != nil && !o.Hosts(src.Host) {
			continue
		}
		if _, ok := hosts[src.Host]; !ok {
			order = append(order, src.Host)
		}
		hosts[src.Host] = append(hosts[src.Host], src.ID)
	}
	slices.Sort(order)
	var plans []HostPlan
	for i, host := range order {
		// Each host on a clock of its own, as each runs on its own.
		st, err := state.Decode(mapFS(files))
		if err != nil {
			return nil, err
		}
		led, err := ledger.Open(fmt.Sprintf("%s/%d", dir, i))
		if err != nil {
			return nil, err
		}
		p := HostPlan{Host: host}
		var stop string
		sim := o
		sim.Clock = clock.NewFake(start)
		sim.State, sim.Ledger, sim.Index, sim.DryRun = st, led, store.NewIndex(), false
		sim.HTTP = simFetcher{}
		sim.Hosts = func(h string) bool { return h == host }
		sim.Log = func(h, msg string) {
			if h == host && strings.Contains(msg, "deferred to a later run") {
				stop, _, _ = strings.Cut(msg, ";")
			}
		}
		sim.Progress, sim.HostEvent = nil, nil
		res, err := Run(ctx, sim)
		if cerr := led.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		lines, err := led.Read(ledger.Day(start), host)
		if err != nil {
			return nil, err
		}
		if next := ledger.Day(start.Add(24 * time.Hour)); o.Deadline.After(start) && ledger.Day(o.Deadline) >= next {
			more, err := led.Read(next, host)
			if err != nil {
				return nil, err
			}
			lines = append(lines, more...)
		}
		checked := map[string]bool{}
		for _, l := range lines {
			if l.Event == ledger.Dispatch {
				p.Requests = append(p.Requests, PlannedRequest{Purpose: l.Purpose, URL: l.URL, Source: l.Source, At: l.Time.Sub(start)})
				checked[l.Source] = true
			}
		}
		due := map[string]bool{}
		for _, pl := range res.Planned {
			due[pl.SourceID] = true
		}
		for _, id := range hosts[host] {
			src, _ := o.Set.Source(id)
			s := st.Source(id)
			switch {
			case checked[id]:
			case s.Status == state.Excluded:
				p.Skipped = append(p.Skipped, SourceNote{id, "excluded: " + s.Detail})
			case s.Status == state.BlockedRobots && due[id]:
				p.Skipped = append(p.Skipped, SourceNote{id, "blocked by robots.txt"})
			case s.Status == state.Paused && due[id]:
				p.Deferred = append(p.Deferred, SourceNote{id, "host paused after repeated 403s until the next UTC day"})
			case due[id]:
				why := stop
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
		plans = append(plans, p)
	}
	return plans, nil
}

func mapFS(files map[string][]byte) fstest.MapFS {
	m := fstest.MapFS{}
	for p, data := range files {
		m[p] = &fstest.MapFile{Data: data}
	}
	return m
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
