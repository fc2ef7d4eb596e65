package lease

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
)

var (
	t0  = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	day = ledger.Day(t0)
)

const (
	hostA = "www.gov.uk"
	hostB = "www.legislation.gov.uk"
	ttl   = 30 * time.Minute
)

func req(run, holder string, want map[string]int, remaining map[string]int) Request {
	return Request{RunID: run, Holder: holder, Shard: "1-of-1", TTL: ttl, Want: want, Remaining: remaining}
}

// acquired returns the lease file content of run after an Acquire at at.
func acquired(t *testing.T, existing []byte, r Request, at time.Time) []byte {
	t.Helper()
	l, err := Acquire(existing, r, at)
	if err != nil {
		t.Fatalf("Acquire(%s): %v", r.RunID, err)
	}
	return l.Encode()
}

func dispatchLine(t testing.TB, host, run string, at time.Time) []byte {
	t.Helper()
	b, err := json.Marshal(ledger.Line{Event: ledger.Dispatch, Time: at.UTC(), Host: host, URL: "https://" + host + "/x", Purpose: ledger.PurposeDocument, RunID: run})
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func resultLine(t testing.TB, host, run string, at time.Time) []byte {
	t.Helper()
	b, err := json.Marshal(ledger.Line{Event: ledger.Result, Time: at.UTC(), Host: host, URL: "https://" + host + "/x", RunID: run, Status: 200})
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestAcquire(t *testing.T) {
	want := map[string]int{hostA: 5, hostB: 3}
	rem := map[string]int{hostA: 10, hostB: 1}
	liveA := acquired(t, nil, req("run-a", "runner-1", want, rem), t0)
	released := func() []byte {
		l, _ := Decode(liveA)
		return Release(l, map[string]int{hostA: 2}, t0.Add(time.Minute)).Encode()
	}()

	for _, tc := range []struct {
		name     string
		existing []byte
		req      Request
		at       time.Time
		err      error  // errors.Is target, nil for success
		errText  string // substrings of the message
		res      map[string]int
		records  []string // run ids of the records kept
	}{
		{name: "no lease file", req: req("run-b", "runner-2", want, rem), at: t0,
			res: map[string]int{hostA: 5, hostB: 1}},
		{name: "empty lease file is no lease", existing: []byte{}, req: req("run-b", "runner-2", want, rem), at: t0,
			res: map[string]int{hostA: 5, hostB: 1}},
		{name: "live lease of another run", existing: liveA, req: req("run-b", "runner-2", want, rem), at: t0.Add(29 * time.Minute),
			err: ErrHeld, errText: "held by run run-a (holder runner-1) until 2026-11-03T10:30:00Z"},
		{name: "same run id under another holder while live", existing: liveA, req: req("run-a", "runner-9", want, rem), at: t0.Add(time.Minute),
			err: ErrHeld, errText: "runner-1"},
		{name: "same run re-acquiring", existing: liveA, req: req("run-a", "runner-1", want, map[string]int{hostA: 2}), at: t0.Add(time.Minute),
			res: map[string]int{hostA: 2, hostB: 0}},
		{name: "expired lease is taken over and kept", existing: liveA, req: req("run-b", "runner-2", want, rem), at: t0.Add(30 * time.Minute),
			res: map[string]int{hostA: 5, hostB: 1}, records: []string{"run-a"}},
		{name: "own expired lease is kept too", existing: liveA, req: req("run-a", "runner-1", want, rem), at: t0.Add(31 * time.Minute),
			res: map[string]int{hostA: 5, hostB: 1}, records: []string{"run-a"}},
		{name: "released lease is replaced", existing: released, req: req("run-b", "runner-2", want, rem), at: t0.Add(2 * time.Minute),
			res: map[string]int{hostA: 5, hostB: 1}},
		{name: "run id reused after expiry", existing: liveA, req: req("run-a", "runner-9", want, rem), at: t0.Add(time.Hour),
			err: ErrRunIDReused, errText: "runner-9"},
		{name: "records older than a day are dropped", existing: liveA, req: req("run-b", "runner-2", want, rem), at: t0.Add(49 * time.Hour),
			res: map[string]int{hostA: 5, hostB: 1}},
		{name: "records of yesterday are kept", existing: liveA, req: req("run-b", "runner-2", want, rem), at: t0.Add(20 * time.Hour),
			res: map[string]int{hostA: 5, hostB: 1}, records: []string{"run-a"}},
		{name: "corrupt lease file", existing: []byte(`{"run_id":`), req: req("run-b", "runner-2", want, rem), at: t0,
			errText: "corrupt lease"},
		{name: "unknown field", existing: []byte(strings.Replace(string(liveA), `"day"`, `"extra": 1, "day"`, 1)), req: req("run-b", "runner-2", want, rem), at: t0,
			errText: "unknown field"},
		{name: "another shard's file", existing: liveA, req: Request{RunID: "run-b", Holder: "h", Shard: "1-of-2", TTL: ttl}, at: t0.Add(time.Hour),
			errText: `shard "1-of-1"`},
		{name: "missing holder", req: Request{RunID: "run-b", Shard: "1-of-1", TTL: ttl}, at: t0, errText: "holder"},
		{name: "zero TTL", req: Request{RunID: "run-b", Holder: "h", Shard: "1-of-1"}, at: t0, errText: "TTL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Acquire(tc.existing, tc.req, tc.at)
			if tc.err != nil || tc.errText != "" {
				if err == nil || tc.err != nil && !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("err = %v; want %v containing %q", err, tc.err, tc.errText)
				}
				if !errors.Is(tc.err, ErrHeld) && errors.Is(err, ErrHeld) {
					t.Fatalf("err %v must not be ErrHeld", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.res, l.Reservations); diff != "" {
				t.Errorf("reservations (-want +got):\n%s", diff)
			}
			var recs []string
			for _, r := range l.Superseded {
				recs = append(recs, r.RunID)
				if !r.SupersededAt.Equal(tc.at) {
					t.Errorf("record %s superseded at %v, want %v", r.RunID, r.SupersededAt, tc.at)
				}
			}
			if diff := cmp.Diff(tc.records, recs); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if l.RunID != tc.req.RunID || l.Holder != tc.req.Holder || l.Shard != tc.req.Shard || l.Released ||
				!l.Acquired.Equal(tc.at) || !l.Expires.Equal(tc.at.Add(ttl)) || l.Day != ledger.Day(tc.at) {
				t.Errorf("lease = %+v", l)
			}
			// What Acquire returns is a valid lease file.
			back, err := Decode(l.Encode())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(l, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeldErrorMessage(t *testing.T) {
	live := acquired(t, nil, Request{RunID: "4711-1", Holder: "GitHub Actions 7", Shard: "2-of-4", TTL: ttl}, t0)
	_, err := Acquire(live, Request{RunID: "4712-1", Holder: "GitHub Actions 9", Shard: "2-of-4", TTL: ttl}, t0.Add(time.Minute))
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) {
		t.Fatalf("err = %v, want *HeldError", err)
	}
	const want = "lease: shard 2-of-4 is held by run 4711-1 (holder GitHub Actions 7) until 2026-11-03T10:30:00Z"
	if err.Error() != want {
		t.Errorf("message = %q\nwant      %q", err.Error(), want)
	}
}

// branch is a cache branch tip: path → content.
type branch map[string][]byte

func (b branch) leases(t *testing.T) []Lease {
	t.Helper()
	files := map[string][]byte{}
	for p, data := range b {
		if strings.HasPrefix(p, Dir+"/") {
			files[p] = data
		}
	}
	all, err := DecodeAll(files)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func (b branch) usage(t *testing.T, day, host string) ledger.Usage {
	t.Helper()
	u, err := ledger.Count(b["ledgers/"+day+"/"+ledger.FileName(host)], host)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// remaining is what the ci command computes inside its acquire edit.
func (b branch) remaining(t *testing.T, caps map[string]int, self ID, now time.Time) map[string]int {
	t.Helper()
	d := ledger.Day(now)
	usage := map[string]ledger.Usage{}
	for host := range caps {
		usage[host] = b.usage(t, d, host)
	}
	return Remaining(d, caps, usage, b.leases(t), self, now)
}

func (b branch) appendLines(host string, lines ...[]byte) {
	p := "ledgers/" + day + "/" + ledger.FileName(host)
	for _, l := range lines {
		b[p] = append(b[p], l...)
	}
}

// TestDeadRunKeepsItsReservation: cap 10, a run reserved 6, pushed 2
// dispatch lines and died. The next run may reserve at most 4, and after
// it, nothing is left.
func TestDeadRunKeepsItsReservation(t *testing.T) {
	caps := map[string]int{hostA: 10}
	b := branch{}
	path := Path("1-of-1")

	dead := req("dead", "runner-1", map[string]int{hostA: 6}, nil)
	dead.Remaining = b.remaining(t, caps, dead.ID(), t0)
	b[path] = acquired(t, nil, dead, t0)
	b.appendLines(hostA, dispatchLine(t, hostA, "dead", t0.Add(time.Minute)), resultLine(t, hostA, "dead", t0.Add(time.Minute)),
		dispatchLine(t, hostA, "dead", t0.Add(2*time.Minute)))
	// It sent 4 more that were never pushed, then its runner vanished.

	// Within the lease's life another run is refused.
	at := t0.Add(10 * time.Minute)
	next := req("next", "runner-2", map[string]int{hostA: 10}, nil)
	next.Remaining = b.remaining(t, caps, next.ID(), at)
	if _, err := Acquire(b[path], next, at); !errors.Is(err, ErrHeld) {
		t.Fatalf("err = %v, want ErrHeld", err)
	}

	at = t0.Add(ttl + time.Second)
	next.Remaining = b.remaining(t, caps, next.ID(), at)
	if got := next.Remaining[hostA]; got != 4 {
		t.Fatalf("remaining after the dead run = %d, want 4", got)
	}
	l, err := Acquire(b[path], next, at)
	if err != nil {
		t.Fatal(err)
	}
	if l.Reservations[hostA] != 4 || len(l.Superseded) != 1 || l.Superseded[0].RunID != "dead" {
		t.Fatalf("lease = %+v", l)
	}
	b[path] = l.Encode()

	// A third run, whether next is live or dead, finds nothing left.
	for _, at := range []time.Time{at.Add(time.Minute), at.Add(2 * ttl)} {
		third := Request{RunID: "third", Holder: "runner-3", Shard: "1-of-1"}
		if got := b.remaining(t, caps, third.ID(), at)[hostA]; got != 0 {
			t.Errorf("remaining at %v = %d, want 0", at, got)
		}
	}
	// Once next has pushed its 4 lines and released, still nothing is left:
	// dead's record still counts 6 − 2.
	b.appendLines(hostA, dispatchLine(t, hostA, "next", at), dispatchLine(t, hostA, "next", at.Add(time.Minute)),
		dispatchLine(t, hostA, "next", at.Add(2*time.Minute)), dispatchLine(t, hostA, "next", at.Add(3*time.Minute)))
	rel, err := ReleaseFile(b[path], l, map[string]int{hostA: 4}, at.Add(4*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	b[path] = rel.Encode()
	third := Request{RunID: "third", Holder: "runner-3", Shard: "1-of-1"}
	if got := b.remaining(t, caps, third.ID(), at.Add(5*time.Minute))[hostA]; got != 0 {
		t.Errorf("remaining after release = %d, want 0", got)
	}
	// The next day the record no longer matters.
	tomorrow := t0.Add(24 * time.Hour)
	if got := b.remaining(t, caps, third.ID(), tomorrow)[hostA]; got != 10 {
		t.Errorf("remaining tomorrow = %d, want 10", got)
	}
}

func lease(run, shard, d string, res map[string]int, expires time.Time) Lease {
	return Lease{RunID: run, Holder: "h-" + run, Shard: shard, Acquired: expires.Add(-ttl), Expires: expires, Day: d, Reservations: res}
}

func TestSpent(t *testing.T) {
	live := t0.Add(time.Hour)
	dead := t0.Add(-time.Minute)
	released := func(l Lease, d map[string]int) Lease { return Release(l, d, t0) }
	record := func(l Lease) Lease { l.SupersededAt = t0; return l }
	u := func(byRun map[string]int) ledger.Usage {
		n := 0
		for _, c := range byRun {
			n += c
		}
		return ledger.Usage{Total: n, ByRun: byRun}
	}
	self := ID{"self", "h-self", "1-of-1"}

	for _, tc := range []struct {
		name   string
		usage  ledger.Usage
		leases []Lease
		want   int
	}{
		{"nothing", ledger.Usage{}, nil, 0},
		{"ledger lines only", u(map[string]int{"": 3, "old": 2}), nil, 5},
		{"released: only ledger lines", u(map[string]int{"r": 4}),
			[]Lease{released(lease("r", "1-of-1", day, map[string]int{hostA: 9}, live), map[string]int{hostA: 4})}, 4},
		{"released with lines not pushed counts what it dispatched", u(map[string]int{"r": 1}),
			[]Lease{released(lease("r", "1-of-1", day, map[string]int{hostA: 9}, live), map[string]int{hostA: 4})}, 4},
		{"live: reservation minus its pushed lines", u(map[string]int{"r": 2, "x": 1}),
			[]Lease{lease("r", "1-of-1", day, map[string]int{hostA: 6}, live)}, 7},
		{"live: pushed lines never counted twice", u(map[string]int{"r": 6}),
			[]Lease{lease("r", "1-of-1", day, map[string]int{hostA: 6}, live)}, 6},
		{"live: lines beyond the reservation still count", u(map[string]int{"r": 8}),
			[]Lease{lease("r", "1-of-1", day, map[string]int{hostA: 6}, live)}, 8},
		{"expired, never released: whole reservation", u(map[string]int{"r": 2}),
			[]Lease{lease("r", "1-of-1", day, map[string]int{hostA: 6}, dead)}, 6},
		{"record: whole reservation", u(map[string]int{"r": 2}),
			[]Lease{record(lease("r", "1-of-1", day, map[string]int{hostA: 6}, dead))}, 6},
		{"another day's lease does not count", u(map[string]int{"r": 2}),
			[]Lease{lease("r", "1-of-1", "2026-11-02", map[string]int{hostA: 6}, live)}, 2},
		{"another host's reservation does not count", ledger.Usage{},
			[]Lease{lease("r", "1-of-1", day, map[string]int{hostB: 6}, live)}, 0},
		{"self is left out", u(map[string]int{"self": 1}),
			[]Lease{lease("self", "1-of-1", day, map[string]int{hostA: 6}, live)}, 1},
		{"self's record is not", u(map[string]int{"self": 1}),
			[]Lease{record(lease("self", "1-of-1", day, map[string]int{hostA: 6}, dead)), lease("self", "1-of-1", day, map[string]int{hostA: 3}, live)}, 6},
		{"a run's leases are summed before its lines are subtracted", u(map[string]int{"r": 5}),
			[]Lease{record(lease("r", "1-of-1", day, map[string]int{hostA: 6}, dead)), lease("r", "1-of-1", day, map[string]int{hostA: 4}, live)}, 10},
		{"live lease of another shard counts (defensive)", u(map[string]int{"m": 1}),
			[]Lease{lease("m", "2-of-4", day, map[string]int{hostA: 5}, live)}, 5},
		{"several runs", u(map[string]int{"a": 1, "b": 3, "c": 2, "": 1}),
			[]Lease{
				lease("a", "1-of-2", day, map[string]int{hostA: 4}, live),                                     // +3
				lease("b", "2-of-2", day, map[string]int{hostA: 2}, dead),                                     // +0
				released(lease("c", "1-of-1", day, map[string]int{hostA: 5}, live), map[string]int{hostA: 2}), // +0
			}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Spent(day, hostA, tc.usage, tc.leases, self); got != tc.want {
				t.Errorf("Spent = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestRemainingHostHeldElsewhere: a host reserved by a live lease of another
// shard (runs sharded differently) is not reserved again until that lease
// ends, so a host never gets two requests at once.
func TestRemainingHostHeldElsewhere(t *testing.T) {
	caps := map[string]int{hostA: 10, hostB: 10}
	other := lease("matrix", "2-of-4", day, map[string]int{hostA: 3, hostB: 0}, t0.Add(ttl))
	b := branch{Path("2-of-4"): other.Encode()}
	self := ID{"solo", "runner", "1-of-1"}

	if got, want := b.remaining(t, caps, self, t0), map[string]int{hostA: 0, hostB: 10}; !cmp.Equal(got, want) {
		t.Errorf("while live: %v, want %v", got, want)
	}
	if l, ok := HeldElsewhere(hostA, b.leases(t), self, t0); !ok || l.RunID != "matrix" {
		t.Errorf("HeldElsewhere = %v, %v", l, ok)
	}
	// Expired: free again, but its reservation is spent.
	if got, want := b.remaining(t, caps, self, t0.Add(ttl)), map[string]int{hostA: 7, hostB: 10}; !cmp.Equal(got, want) {
		t.Errorf("after expiry: %v, want %v", got, want)
	}
	// Released after 1 dispatch, pushed with its line: 9 left.
	b[Path("2-of-4")] = Release(other, map[string]int{hostA: 1}, t0.Add(time.Minute)).Encode()
	b.appendLines(hostA, dispatchLine(t, hostA, "matrix", t0))
	if got, want := b.remaining(t, caps, self, t0.Add(2*time.Minute)), map[string]int{hostA: 9, hostB: 10}; !cmp.Equal(got, want) {
		t.Errorf("after release: %v, want %v", got, want)
	}
}

func TestRenew(t *testing.T) {
	l := lease("r", "1-of-1", day, map[string]int{hostA: 1}, t0.Add(ttl))
	got, err := Renew(l, t0.Add(10*time.Minute), ttl)
	if err != nil || !got.Expires.Equal(t0.Add(40*time.Minute)) {
		t.Fatalf("Renew = %v, %v", got.Expires, err)
	}
	if _, err := Renew(l, t0.Add(ttl), ttl); !errors.Is(err, ErrExpired) {
		t.Errorf("renew at expiry: %v, want ErrExpired", err)
	}
	if _, err := Renew(Release(l, nil, t0), t0, ttl); !errors.Is(err, ErrLost) {
		t.Errorf("renew released: %v, want ErrLost", err)
	}
	if _, err := Renew(l, t0, 0); err == nil {
		t.Error("renew with zero TTL must fail")
	}

	// RenewFile works on the tip's copy.
	file := l.Encode()
	got, err = RenewFile(file, l, t0.Add(time.Minute), ttl)
	if err != nil || !got.Expires.Equal(t0.Add(31*time.Minute)) {
		t.Fatalf("RenewFile = %v, %v", got.Expires, err)
	}
	taken, err := Acquire(file, req("other", "h-other", nil, nil), t0.Add(ttl+time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RenewFile(taken.Encode(), l, t0.Add(ttl+2*time.Second), ttl); !errors.Is(err, ErrLost) {
		t.Errorf("RenewFile after takeover: %v, want ErrLost", err)
	}
	if _, err := RenewFile(nil, l, t0, ttl); !errors.Is(err, ErrLost) {
		t.Errorf("RenewFile of no file: %v, want ErrLost", err)
	}
	// A same-run re-acquire has another acquisition time: the old copy is
	// no longer the lease.
	again, err := Acquire(file, req("r", "h-r", nil, nil), t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RenewFile(again.Encode(), l, t0.Add(2*time.Minute), ttl); !errors.Is(err, ErrLost) {
		t.Errorf("RenewFile of a replaced lease: %v, want ErrLost", err)
	}
}

func TestRelease(t *testing.T) {
	l := lease("r", "1-of-1", day, map[string]int{hostA: 5, hostB: 2}, t0.Add(ttl))
	got := Release(l, map[string]int{hostA: 3, hostB: 0}, t0.Add(time.Minute))
	if !got.Released || !got.ReleasedAt.Equal(t0.Add(time.Minute)) || !cmp.Equal(got.Dispatched, map[string]int{hostA: 3}) ||
		!cmp.Equal(got.Reservations, l.Reservations) || got.Live(t0.Add(2*time.Minute)) {
		t.Errorf("Release = %+v", got)
	}
	if l.Released || l.Dispatched != nil {
		t.Error("Release modified its argument")
	}

	// Released in place.
	rel, err := ReleaseFile(l.Encode(), l, map[string]int{hostA: 3}, t0.Add(time.Minute))
	if err != nil || !rel.Released || rel.RunID != "r" {
		t.Fatalf("ReleaseFile = %+v, %v", rel, err)
	}
	// Taken over after expiry: the record is released instead, and then
	// counts only what was dispatched.
	taken, err := Acquire(l.Encode(), req("other", "h-other", nil, nil), t0.Add(ttl))
	if err != nil {
		t.Fatal(err)
	}
	rel, err = ReleaseFile(taken.Encode(), l, map[string]int{hostA: 3}, t0.Add(ttl+time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if rel.RunID != "other" || rel.Released || len(rel.Superseded) != 1 || !rel.Superseded[0].Released ||
		!cmp.Equal(rel.Superseded[0].Dispatched, map[string]int{hostA: 3}) {
		t.Fatalf("ReleaseFile after takeover = %+v", rel)
	}
	if taken.Superseded[0].Released {
		t.Error("ReleaseFile modified the tip's records in place")
	}
	all := Flatten(rel)
	if got := Spent(day, hostA, ledger.Usage{Total: 3, ByRun: map[string]int{"r": 3}}, all, ID{"x", "y", "z"}); got != 3 {
		t.Errorf("Spent after record release = %d, want 3", got)
	}
	if _, err := Decode(rel.Encode()); err != nil {
		t.Fatal(err)
	}
	// Unknown lease: ErrLost.
	if _, err := ReleaseFile(taken.Encode(), lease("ghost", "1-of-1", day, nil, t0), nil, t0); !errors.Is(err, ErrLost) {
		t.Errorf("ReleaseFile of an unknown lease: %v, want ErrLost", err)
	}
}

func TestBudgetAndGateSpent(t *testing.T) {
	l := lease("r", "1-of-1", day, map[string]int{hostA: 4}, t0.Add(ttl))
	spent := l.GateSpent(func(string) int { return 10 })
	for _, tc := range []struct {
		host, day string
		want      int
	}{
		{hostA, day, 6},           // the gate (cap 10) allows 4 more
		{hostB, day, 10},          // nothing reserved: full
		{hostA, "2026-11-04", 10}, // another day: full
	} {
		if got, err := spent(tc.host, tc.day); err != nil || got != tc.want {
			t.Errorf("GateSpent(%s, %s) = %d, %v; want %d", tc.host, tc.day, got, err, tc.want)
		}
	}
	if got := Release(l, nil, t0).Budget(hostA, day); got != 0 {
		t.Errorf("released budget = %d", got)
	}
	if got := l.StopBy(2 * time.Minute); !got.Equal(t0.Add(28 * time.Minute)) {
		t.Errorf("StopBy = %v", got)
	}
}

func TestEncodeDeterministic(t *testing.T) {
	l := lease("r", "1-of-1", day, map[string]int{"b": 1, "a": 2, "c": 0}, t0.Add(ttl))
	a, b := l.Encode(), l.Encode()
	if string(a) != string(b) || !strings.HasSuffix(string(a), "}\n") ||
		strings.Index(string(a), `"a"`) > strings.Index(string(a), `"b"`) {
		t.Errorf("Encode:\n%s", a)
	}
	if got := (Lease{RunID: "r", Shard: "s", Day: day, Acquired: t0, Expires: t0}).Encode(); !strings.Contains(string(got), `"reservations": {}`) {
		t.Errorf("nil reservations encode as %s", got)
	}
	for _, bad := range []string{
		`{"run_id":"r","holder":"h","shard":"s","acquired":"2026-11-03T10:00:00Z","expires":"2026-11-03T10:30:00Z","day":"03/11","reservations":{}}`,
		`{"run_id":"r","holder":"h","shard":"s","acquired":"2026-11-03T10:00:00Z","expires":"2026-11-03T10:30:00Z","day":"2026-11-03","reservations":{"a":-1}}`,
		`{"run_id":"","holder":"h","shard":"s","acquired":"2026-11-03T10:00:00Z","expires":"2026-11-03T10:30:00Z","day":"2026-11-03","reservations":{}}`,
		`{"run_id":"r","holder":"h","shard":"s","acquired":"2026-11-03T10:00:00Z","expires":"2026-11-03T10:30:00Z","day":"2026-11-03","reservations":{},"superseded_at":"2026-11-03T10:00:00Z"}`,
		`{"run_id":"r","holder":"h","shard":"s","acquired":"2026-11-03T10:00:00Z","expires":"2026-11-03T10:30:00Z","day":"2026-11-03","reservations":{},"superseded":[{"run_id":"q","holder":"h","shard":"s","acquired":"2026-11-03T10:00:00Z","expires":"2026-11-03T10:30:00Z","day":"2026-11-03","reservations":{}}]}`,
		`{"run_id":"r","holder":"h","shard":"s","acquired":"2026-11-03T10:00:00Z","expires":"2026-11-03T10:30:00Z","day":"2026-11-03","reservations":{}} {}`,
	} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s) succeeded", bad)
		}
	}
	if _, err := DecodeAll(map[string][]byte{"leases/1-of-1.json": []byte("{")}); err == nil || !strings.Contains(err.Error(), "leases/1-of-1.json") {
		t.Errorf("DecodeAll error %v does not name the file", err)
	}
}

func TestEarlierAttemptOfTheSameRunIsTakenOver(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	req := func(run string) Request {
		return Request{RunID: run, Holder: "runner/" + run, Shard: "1-of-1", TTL: time.Hour,
			Want: map[string]int{"a.gov": 4}, Remaining: map[string]int{"a.gov": 10}}
	}
	first, err := Acquire(nil, req("555-1"), now)
	if err != nil {
		t.Fatal(err)
	}
	// The first attempt could not push its release; its lease is still live.
	if _, err := Acquire(first.Encode(), req("556-1"), now.Add(time.Minute)); !errors.Is(err, ErrHeld) {
		t.Fatalf("another workflow run: %v, want ErrHeld", err)
	}
	if _, err := Acquire(first.Encode(), req("555-0"), now.Add(time.Minute)); !errors.Is(err, ErrHeld) {
		t.Fatalf("a smaller attempt number: %v, want ErrHeld", err)
	}
	second, err := Acquire(first.Encode(), req("555-2"), now.Add(time.Minute))
	if err != nil {
		t.Fatalf("the re-run of the same workflow run: %v", err)
	}
	if len(second.Superseded) != 1 || second.Superseded[0].RunID != "555-1" {
		t.Fatalf("the dead attempt's reservation is not kept as a record: %+v", second.Superseded)
	}
	if got := Spent(second.Day, "a.gov", ledger.Usage{}, Flatten(second), second.ID()); got != 4 {
		t.Errorf("spent %d, want the dead attempt's whole reservation 4", got)
	}
	// Before taking it over, the re-run reckons what is left: the earlier
	// attempt's live lease is dead, not busy; its reservation is spent.
	self := ID{"555-2", "runner/555-2", "1-of-1"}
	left := Remaining(first.Day, map[string]int{"a.gov": 10}, nil, Flatten(first), self, now.Add(time.Minute))
	if left["a.gov"] != 6 {
		t.Errorf("the re-run may reserve %d of a.gov while the dead attempt's lease is live, want 10 − 4 = 6", left["a.gov"])
	}
	for _, c := range []struct {
		held, mine string
		want       bool
	}{{"7-1", "7-2", true}, {"7-2", "7-2", false}, {"7-3", "7-2", false}, {"7-1", "8-2", false}, {"a-b-1", "a-b-2", true}, {"x", "x-2", false}, {"7-a", "7-2", false}} {
		if got := EarlierAttempt(c.held, c.mine); got != c.want {
			t.Errorf("EarlierAttempt(%q, %q) = %v", c.held, c.mine, got)
		}
	}
}
