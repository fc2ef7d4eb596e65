package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// simSet writes n sources spread over hosts hosts (and the policy given)
// and loads them.
func simSet(t testing.TB, n, hosts int, policy string) *manifest.Set {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("jurisdiction: sim\nname: Sim\ntimezone: UTC\nsources:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: s-%05d\n    url: https://h%04d.example.gov/doc/%d\n    kind: rates-page\n    title: S %d\n", i, i%hosts, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "sim.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	set, diags := manifest.Load(dir)
	if diags.HasErrors() {
		t.Fatalf("manifests: %v", diags)
	}
	return set
}

func simOptions(t testing.TB, set *manifest.Set) Options {
	return Options{
		Set: set, Store: store.ReadOnly(t.TempDir()), State: state.New(),
		Limits: Limits{
			Clock:    clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)),
			Deadline: time.Date(2026, 11, 30, 12, 50, 0, 0, time.UTC),
		},
	}
}

// TestSimulateIsLinear: twice the sources on twice the hosts cost about
// twice the work (counted in allocations, which do not depend on the
// machine), not four times, as a plan that ran the whole run once per
// host did.
func TestSimulateIsLinear(t *testing.T) {
	allocs := func(n int) float64 {
		o := simOptions(t, simSet(t, n, n, ""))
		// Each source checked an hour ago, and failing: a state as large
		// as the manifests, every source due.
		for _, src := range o.Set.Sources {
			s := state.Source{HTTPStatus: 503, FailedChecks: 1}
			s.SetStatus(state.Failing, o.Clock.Now().Add(-time.Hour))
			s.LastCheck = o.Clock.Now().Add(-time.Hour)
			o.State.PutSource(src.ID, s)
		}
		return testing.AllocsPerRun(2, func() {
			if _, err := Simulate(context.Background(), o); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(150), allocs(600)
	if ratio := large / small; ratio > 5 {
		t.Fatalf("4× the sources and hosts cost %.1f× the allocations (%.0f → %.0f), want about 4×", ratio, small, large)
	}
}

// TestSimulateListsExclusions: an excluded source is in the plan of its
// host with the exclusion's reason, even where nothing else of the host
// is due, and it is never requested.
func TestSimulateListsExclusions(t *testing.T) {
	set := simSet(t, 4, 2, "exclude:\n  - {host: h0001.example.gov, path: /doc/, reason: \"owner request 2026-11-01\"}\n")
	plans, err := Simulate(context.Background(), simOptions(t, set))
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 2 {
		t.Fatalf("%d host plans, want 2: %+v", len(plans), plans)
	}
	ex := plans[1]
	if ex.Host != "h0001.example.gov" || len(ex.Requests) != 0 || len(ex.Excluded) != 2 {
		t.Fatalf("the excluded host's plan: %+v, want its two sources excluded and nothing requested", ex)
	}
	for _, n := range ex.Excluded {
		if !strings.Contains(n.Why, "owner request 2026-11-01") {
			t.Errorf("%s excluded because %q, want the exclusion's reason", n.ID, n.Why)
		}
	}
	if len(plans[0].Requests) != 3 || len(plans[0].Excluded) != 0 {
		t.Errorf("the other host: %+v, want robots.txt and its two documents", plans[0])
	}
}

// BenchmarkSimulate plans 1,000 sources on 1,000 hosts, none seen before:
// the size where each host's fixed cost shows.
func BenchmarkSimulate(b *testing.B) {
	o := simOptions(b, simSet(b, 1000, 1000, ""))
	for b.Loop() {
		if _, err := Simulate(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
}
