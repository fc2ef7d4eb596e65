package state

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMerge(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	a, b := New(), New()

	// host1: a backed off longer, b paused; b dispatched later.
	a.PutHost("host1", Host{LastDispatch: at(1), LastCompletion: at(5), Failures: 3, BackoffUntil: at(40), BackoffFromRetryAfter: true, Consecutive403: 1})
	b.PutHost("host1", Host{LastDispatch: at(2), LastCompletion: at(3), Failures: 0, Consecutive403: 3, PausedUntil: at(600)})
	// host2: equal backoff, different failures.
	a.PutHost("host2", Host{Failures: 2, BackoffUntil: at(10)})
	b.PutHost("host2", Host{Failures: 4, BackoffUntil: at(10)})
	// host3, host4: one side only.
	a.PutHost("host3", Host{PausedUntil: at(100)})
	b.PutHost("host4", Host{Failures: 1, BackoffUntil: at(7)})
	// host5: the later backoff's origin goes with it.
	a.PutHost("host5", Host{Failures: 1, BackoffUntil: at(5), BackoffFromRetryAfter: true})
	b.PutHost("host5", Host{Failures: 2, BackoffUntil: at(8)})

	a.PutSource("s-later-a", Source{Status: Fresh, LastCheck: at(9), SHA256: "aa"})
	b.PutSource("s-later-a", Source{Status: Failing, LastCheck: at(8), Detail: "503"})
	a.PutSource("s-later-b", Source{Status: Fresh, LastCheck: at(1)})
	b.PutSource("s-later-b", Source{Status: Gone, LastCheck: at(2), HTTPStatus: 404})
	a.PutSource("s-only-a", Source{Status: Pending})
	a.PutSource("s-tie", Source{Status: Fresh, LastCheck: at(5), SHA256: "a"})
	b.PutSource("s-tie", Source{Status: Fresh, LastCheck: at(5), SHA256: "b"})

	a.PutRobots("https://host1", Robots{URL: "https://host1/robots.txt", FetchedAt: at(1), Outcome: RobotsParsed, Body: []byte("old")})
	b.PutRobots("https://host1", Robots{URL: "https://host1/robots.txt", FetchedAt: at(2), Outcome: RobotsParsed, Body: []byte("new")})
	b.PutRobots("https://host4", Robots{URL: "https://host4/robots.txt", FetchedAt: at(2), Outcome: RobotsMissing})

	wantHosts := map[string]Host{
		"host1": {LastDispatch: at(2), LastCompletion: at(5), Failures: 3, BackoffUntil: at(40), BackoffFromRetryAfter: true, Consecutive403: 3, PausedUntil: at(600)},
		"host2": {Failures: 4, BackoffUntil: at(10)},
		"host3": {PausedUntil: at(100)},
		"host4": {Failures: 1, BackoffUntil: at(7)},
		"host5": {Failures: 2, BackoffUntil: at(8)},
	}
	for _, order := range []struct {
		name          string
		remote, local *State
	}{{"merge(a,b)", a, b}, {"merge(b,a)", b, a}} {
		t.Run(order.name, func(t *testing.T) {
			m := Merge(order.remote, order.local)
			hosts := map[string]Host{}
			for _, h := range m.HostNames() {
				hosts[h] = m.Host(h)
			}
			if diff := cmp.Diff(wantHosts, hosts); diff != "" {
				t.Errorf("hosts (-want +got):\n%s", diff)
			}
			if got := m.Source("s-later-a"); got.SHA256 != "aa" {
				t.Errorf("s-later-a = %+v", got)
			}
			if got := m.Source("s-later-b"); got.Status != Gone || got.HTTPStatus != 404 {
				t.Errorf("s-later-b = %+v", got)
			}
			if got := m.SourceIDs(); !cmp.Equal(got, []string{"s-later-a", "s-later-b", "s-only-a", "s-tie"}) {
				t.Errorf("sources = %v", got)
			}
			// Ties go to local.
			if got, want := m.Source("s-tie").SHA256, order.local.Source("s-tie").SHA256; got != want {
				t.Errorf("s-tie = %q, want local's %q", got, want)
			}
			if r, ok := m.Robots("https://host1"); !ok || string(r.Body) != "new" || !r.FetchedAt.Equal(at(2)) {
				t.Errorf("robots host1 = %+v", r)
			}
			if _, ok := m.Robots("https://host4"); !ok {
				t.Error("robots host4 lost")
			}
		})
	}
	// Inputs untouched; nil is empty.
	if !a.Host("host1").PausedUntil.IsZero() || len(a.HostNames()) != 4 {
		t.Error("Merge modified its input")
	}
	if m := Merge(nil, b); !cmp.Equal(m.HostNames(), b.HostNames()) {
		t.Errorf("Merge(nil, b) hosts = %v", m.HostNames())
	}
	if m := Merge(a, nil); !cmp.Equal(m.SourceIDs(), a.SourceIDs()) {
		t.Errorf("Merge(a, nil) sources = %v", m.SourceIDs())
	}
}

// TestMergeNeverLosesBackoff: for pairs of host memories, merging in
// either order gives the same host, with the latest backoff and pause of
// either side.
func TestMergeNeverLosesBackoff(t *testing.T) {
	times := []time.Time{{}, t0, t0.Add(time.Minute), t0.Add(time.Hour)}
	var hosts []Host
	for _, bu := range times {
		for _, pu := range times {
			for f := range 3 {
				hosts = append(hosts, Host{BackoffUntil: bu, PausedUntil: pu, Failures: f, Consecutive403: 2 - f, LastDispatch: bu, LastCompletion: pu})
			}
		}
	}
	for _, x := range hosts {
		for _, y := range hosts {
			a, b := New(), New()
			a.PutHost("h", x)
			b.PutHost("h", y)
			ab, ba := Merge(a, b).Host("h"), Merge(b, a).Host("h")
			if !cmp.Equal(ab, ba) {
				t.Fatalf("merge(%+v, %+v) = %+v, reversed %+v", x, y, ab, ba)
			}
			if ab.BackoffUntil.Before(x.BackoffUntil) || ab.BackoffUntil.Before(y.BackoffUntil) ||
				ab.PausedUntil.Before(x.PausedUntil) || ab.PausedUntil.Before(y.PausedUntil) ||
				ab.Consecutive403 < max(x.Consecutive403, y.Consecutive403) {
				t.Fatalf("merge(%+v, %+v) = %+v lost a backoff or pause", x, y, ab)
			}
		}
	}
}
