package lease

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

func TestMergeLedger(t *testing.T) {
	for _, tc := range []struct {
		name, remote, local, want string
	}{
		{"both empty", "", "", ""},
		{"remote only", "a\nb\n", "", "a\nb\n"},
		{"local only", "", "a\nb\n", "a\nb\n"},
		{"local extends remote", "a\nb\n", "a\nb\nc\n", "a\nb\nc\n"},
		{"union, remote first", "a\nx\n", "a\nb\nc\n", "a\nx\nb\nc\n"},
		{"local order kept for new lines", "r\n", "c\nb\na\n", "r\nc\nb\na\n"},
		{"duplicates in local once", "a\n", "b\nb\na\nb\n", "a\nb\n"},
		{"remote kept verbatim", "a\na\n\nb\n", "c\n", "a\na\n\nb\nc\n"},
		{"blank local lines dropped", "a\n", "\n  \nb\n", "a\nb\n"},
		{"torn remote tail dropped", "a\nb", "c\n", "a\nc\n"},
		{"torn local tail dropped", "a\n", "b\n{\"event\":\"disp", "a\nb\n"},
		{"torn line completed locally", "a\n{\"ev", "a\n{\"event\":1}\n", "a\n{\"event\":1}\n"},
		{"no whole line at all", "abc", "def", ""},
		{"same bytes", "a\nb\n", "a\nb\n", "a\nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MergeLedger([]byte(tc.remote), []byte(tc.local))
			if string(got) != tc.want {
				t.Errorf("MergeLedger(%q, %q) = %q, want %q", tc.remote, tc.local, got, tc.want)
			}
			// Idempotent: merging the result again changes nothing.
			if again := MergeLedger(got, []byte(tc.local)); !bytes.Equal(again, got) {
				t.Errorf("re-merge = %q, want %q", again, got)
			}
		})
	}
}

// TestMergeLedgerAppendOnly: whatever the order of two runs' pushes, each
// push only adds lines to what the branch held, and both end with every
// line.
func TestMergeLedgerAppendOnly(t *testing.T) {
	base := "l1\nl2\n"
	runA := base + "a1\na2\n"
	runB := base + "b1\n"
	tip := MergeLedger([]byte(base), []byte(runA))
	tip2 := MergeLedger(tip, []byte(runB))
	if !bytes.HasPrefix(tip2, tip) || string(tip2) != "l1\nl2\na1\na2\nb1\n" {
		t.Errorf("tip2 = %q", tip2)
	}
	// A's next push, with a line more, on B's tip.
	tip3 := MergeLedger(tip2, []byte(runA+"a3\n"))
	if !bytes.HasPrefix(tip3, tip2) || string(tip3) != "l1\nl2\na1\na2\nb1\na3\n" {
		t.Errorf("tip3 = %q", tip3)
	}
}

func FuzzMergeLedger(f *testing.F) {
	f.Add([]byte("a\nb\n"), []byte("b\nc\n"))
	f.Add([]byte("a\nb"), []byte("\n\nc"))
	f.Add([]byte(""), []byte("x\n"))
	f.Add([]byte(`{"event":"dispatch"}`+"\n"), []byte(`{"event":"dispatch"}`+"\n"+`{"event":"result"}`))
	f.Fuzz(func(t *testing.T, remote, local []byte) {
		out := MergeLedger(remote, local)
		rl, ll := wholeLines(remote), wholeLines(local)

		// Starts with remote's whole lines, verbatim.
		var prefix []byte
		for _, l := range rl {
			prefix = append(append(prefix, l...), '\n')
		}
		if !bytes.HasPrefix(out, prefix) {
			t.Fatalf("output %q does not start with remote's whole lines %q", out, prefix)
		}
		// Only whole lines.
		if len(out) > 0 && out[len(out)-1] != '\n' {
			t.Fatalf("output %q ends in a torn line", out)
		}
		// Every whole non-blank line of either input is in the output; the
		// appended part holds only local lines, each once, none of remote's.
		count := map[string]int{}
		for _, l := range wholeLines(out) {
			count[string(l)]++
		}
		inRemote := map[string]bool{}
		for _, l := range rl {
			inRemote[string(l)] = true
		}
		for _, l := range append(append([][]byte{}, rl...), ll...) {
			if len(bytes.TrimSpace(l)) > 0 && count[string(l)] == 0 {
				t.Fatalf("line %q lost", l)
			}
		}
		added := map[string]int{}
		for _, l := range wholeLines(out[len(prefix):]) {
			added[string(l)]++
			if inRemote[string(l)] || added[string(l)] > 1 || !bytes.Contains(append([]byte{'\n'}, local...), append(append([]byte{'\n'}, l...), '\n')) {
				t.Fatalf("appended line %q is not a new local line, once", l)
			}
		}
		// With unique lines in and across the inputs, every line is there
		// exactly once.
		unique := true
		seen := map[string]bool{}
		for _, l := range append(append([][]byte{}, rl...), ll...) {
			if len(bytes.TrimSpace(l)) == 0 || seen[string(l)] {
				unique = false
				break
			}
			seen[string(l)] = true
		}
		if unique {
			for l := range seen {
				if count[l] != 1 {
					t.Fatalf("line %q appears %d times", l, count[l])
				}
			}
			if len(count) != len(seen) {
				t.Fatalf("output has %d distinct lines, inputs %d", len(count), len(seen))
			}
		}
		// Deterministic and idempotent.
		if !bytes.Equal(out, MergeLedger(remote, local)) || !bytes.Equal(out, MergeLedger(out, local)) {
			t.Fatal("not deterministic or not idempotent")
		}
	})
}

func TestMergeState(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	a, b := state.New(), state.New()

	// host1: a backed off longer, b paused; b dispatched later.
	a.PutHost("host1", state.Host{LastDispatch: at(1), LastCompletion: at(5), Failures: 3, BackoffUntil: at(40), BackoffFromRetryAfter: true, Consecutive403: 1})
	b.PutHost("host1", state.Host{LastDispatch: at(2), LastCompletion: at(3), Failures: 0, Consecutive403: 3, PausedUntil: at(600)})
	// host2: equal backoff, different failures.
	a.PutHost("host2", state.Host{Failures: 2, BackoffUntil: at(10)})
	b.PutHost("host2", state.Host{Failures: 4, BackoffUntil: at(10)})
	// host3, host4: one side only.
	a.PutHost("host3", state.Host{PausedUntil: at(100)})
	b.PutHost("host4", state.Host{Failures: 1, BackoffUntil: at(7)})
	// host5: the later backoff's origin goes with it.
	a.PutHost("host5", state.Host{Failures: 1, BackoffUntil: at(5), BackoffFromRetryAfter: true})
	b.PutHost("host5", state.Host{Failures: 2, BackoffUntil: at(8)})

	a.PutSource("s-later-a", state.Source{Status: state.Fresh, LastCheck: at(9), SHA256: "aa"})
	b.PutSource("s-later-a", state.Source{Status: state.Failing, LastCheck: at(8), Detail: "503"})
	a.PutSource("s-later-b", state.Source{Status: state.Fresh, LastCheck: at(1)})
	b.PutSource("s-later-b", state.Source{Status: state.Gone, LastCheck: at(2), HTTPStatus: 404})
	a.PutSource("s-only-a", state.Source{Status: state.Pending})
	a.PutSource("s-tie", state.Source{Status: state.Fresh, LastCheck: at(5), SHA256: "a"})
	b.PutSource("s-tie", state.Source{Status: state.Fresh, LastCheck: at(5), SHA256: "b"})

	a.PutRobots("https://host1", state.Robots{URL: "https://host1/robots.txt", FetchedAt: at(1), Outcome: state.RobotsParsed, Body: []byte("old")})
	b.PutRobots("https://host1", state.Robots{URL: "https://host1/robots.txt", FetchedAt: at(2), Outcome: state.RobotsParsed, Body: []byte("new")})
	b.PutRobots("https://host4", state.Robots{URL: "https://host4/robots.txt", FetchedAt: at(2), Outcome: state.RobotsMissing})

	wantHosts := map[string]state.Host{
		"host1": {LastDispatch: at(2), LastCompletion: at(5), Failures: 3, BackoffUntil: at(40), BackoffFromRetryAfter: true, Consecutive403: 3, PausedUntil: at(600)},
		"host2": {Failures: 4, BackoffUntil: at(10)},
		"host3": {PausedUntil: at(100)},
		"host4": {Failures: 1, BackoffUntil: at(7)},
		"host5": {Failures: 2, BackoffUntil: at(8)},
	}
	for _, order := range []struct {
		name          string
		remote, local *state.State
	}{{"merge(a,b)", a, b}, {"merge(b,a)", b, a}} {
		t.Run(order.name, func(t *testing.T) {
			m := MergeState(order.remote, order.local)
			hosts := map[string]state.Host{}
			for _, h := range m.HostNames() {
				hosts[h] = m.Host(h)
			}
			if diff := cmp.Diff(wantHosts, hosts); diff != "" {
				t.Errorf("hosts (-want +got):\n%s", diff)
			}
			if got := m.Source("s-later-a"); got.SHA256 != "aa" {
				t.Errorf("s-later-a = %+v", got)
			}
			if got := m.Source("s-later-b"); got.Status != state.Gone || got.HTTPStatus != 404 {
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
		t.Error("MergeState modified its input")
	}
	if m := MergeState(nil, b); !cmp.Equal(m.HostNames(), b.HostNames()) {
		t.Errorf("MergeState(nil, b) hosts = %v", m.HostNames())
	}
	if m := MergeState(a, nil); !cmp.Equal(m.SourceIDs(), a.SourceIDs()) {
		t.Errorf("MergeState(a, nil) sources = %v", m.SourceIDs())
	}
}

// TestMergeStateNeverLosesBackoff: for pairs of host memories, merging in
// either order gives the same host, with the latest backoff and pause of
// either side.
func TestMergeStateNeverLosesBackoff(t *testing.T) {
	times := []time.Time{{}, t0, t0.Add(time.Minute), t0.Add(time.Hour)}
	var hosts []state.Host
	for _, bu := range times {
		for _, pu := range times {
			for f := range 3 {
				hosts = append(hosts, state.Host{BackoffUntil: bu, PausedUntil: pu, Failures: f, Consecutive403: 2 - f, LastDispatch: bu, LastCompletion: pu})
			}
		}
	}
	for _, x := range hosts {
		for _, y := range hosts {
			a, b := state.New(), state.New()
			a.PutHost("h", x)
			b.PutHost("h", y)
			ab, ba := MergeState(a, b).Host("h"), MergeState(b, a).Host("h")
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
