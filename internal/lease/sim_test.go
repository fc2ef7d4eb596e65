package lease

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
)

// The simulation: runs that start at random times, on randomly chosen
// shardings (1/1, 1/2, 2/2, 1/3, …, so lease files overlap in hosts), share
// one cache branch with compare-and-swap pushes (an edit computed on one
// tip is pushed at a later step, and re-applied on the newest tip when the
// branch moved), dispatch under their lease as the gate would (GateSpent,
// spacing, StopBy), push their ledgers, renew, release, and die at random
// points, losing whatever they had not pushed. Every request actually sent
// is recorded; the invariant is checked on those: per host, never two
// requests at once, and per host and UTC day, never more than the cap.

const (
	simSeeds   = 12
	simTTL     = 10 * time.Minute
	simMargin  = 90 * time.Second // ≥ the longest request
	simMaxReq  = 60 * time.Second
	simSpacing = 5 * time.Second
)

var simCaps = map[string]int{
	"a.example.gov":      3,
	"b.example.gov":      10,
	"c.example.gov:8443": 25,
	"d.example.gov":      10,
	"e.example.gov":      1,
}

type simBranch struct {
	version int
	files   map[string][]byte
}

type simEdit struct {
	base    int
	changes map[string][]byte
	lease   Lease // the run's lease as pushed by this edit (zero: unchanged)
	err     error
}

type interval struct {
	start, end time.Time
	run        string
}

type simRun struct {
	id    string
	shard Shard
	want  map[string]int

	phase    string // "new", "acquiring", "running", "releasing", "done", "dead"
	pending  *simEdit
	kind     string // of pending: "acquire", "push", "renew", "release"
	lease    Lease
	stopped  bool // may not dispatch any more (renew failed)
	local    map[string][]byte
	gateN    map[string]int // host+" "+day → count, as the gate keeps it
	hostFree map[string]time.Time
}

type sim struct {
	t      *testing.T
	rng    *rand.Rand
	now    time.Time
	br     simBranch
	runs   []*simRun
	sent   map[string]int // day+" "+host → requests actually sent
	ivals  map[string][]interval
	stats  map[string]int
	nextID int
}

func (s *sim) snapshot() (int, map[string][]byte) { return s.br.version, maps.Clone(s.br.files) }

func (r *simRun) req() Request {
	return Request{RunID: r.id, Holder: "holder-" + r.id, Shard: r.shard.Name(), TTL: simTTL, Want: r.want}
}

// compute runs the edit of r's pending kind on the newest tip.
func (s *sim) compute(r *simRun) *simEdit {
	base, files := s.snapshot()
	e := &simEdit{base: base, changes: map[string][]byte{}}
	path := Path(r.shard.Name())
	switch r.kind {
	case "acquire":
		leaseFiles := map[string][]byte{}
		for p, b := range files {
			if strings.HasPrefix(p, Dir+"/") {
				leaseFiles[p] = b
			}
		}
		all, err := DecodeAll(leaseFiles)
		if err != nil {
			s.t.Fatal(err)
		}
		d := ledger.Day(s.now)
		caps, usage := map[string]int{}, map[string]ledger.Usage{}
		for h := range r.want {
			caps[h] = simCaps[h]
			u, err := ledger.Count(files["ledgers/"+d+"/"+ledger.FileName(h)], h)
			if err != nil {
				s.t.Fatal(err)
			}
			usage[h] = u
		}
		q := r.req()
		q.Remaining = Remaining(d, caps, usage, all, q.ID(), s.now)
		l, err := Acquire(files[path], q, s.now)
		e.lease, e.err = l, err
		if err == nil {
			e.changes[path] = l.Encode()
		}
		return e
	}
	// push, renew, release: merge the local ledgers first.
	for p, local := range r.local {
		if m := ledger.Merge(files[p], local); string(m) != string(files[p]) {
			e.changes[p] = m
		}
	}
	switch r.kind {
	case "renew":
		l, err := RenewFile(files[path], r.lease, s.now, simTTL)
		e.lease, e.err = l, err
		if err == nil {
			e.changes[path] = l.Encode()
		}
	case "release":
		l, err := ReleaseFile(files[path], r.lease, r.dispatched(), s.now)
		if err == nil {
			e.changes[path] = l.Encode()
		} else if !errors.Is(err, ErrLost) {
			s.t.Fatal(err)
		}
	}
	return e
}

// dispatched counts r's dispatch lines per host on its lease's day.
func (r *simRun) dispatched() map[string]int {
	out := map[string]int{}
	for h := range r.want {
		u, err := ledger.Count(r.local["ledgers/"+r.lease.Day+"/"+ledger.FileName(h)], h)
		if err != nil {
			panic(err)
		}
		out[h] = u.ByRun[r.id]
	}
	return out
}

func (s *sim) start(r *simRun, kind string) {
	r.kind = kind
	r.pending = s.compute(r)
}

// push tries to land r's pending edit: it lands when the branch has not
// moved since it was computed; otherwise it is re-applied on the newest tip
// and tried again at a later step.
func (s *sim) push(r *simRun) {
	e := r.pending
	if e.base != s.br.version {
		s.stats["cas-retry"]++
		r.pending = s.compute(r)
		return
	}
	r.pending = nil
	switch {
	case r.kind == "acquire" && e.err != nil:
		if !errors.Is(e.err, ErrHeld) {
			s.t.Fatalf("acquire %s: %v", r.id, e.err)
		}
		s.stats["held"]++
		r.phase = "done"
		return
	case r.kind == "renew" && e.err != nil:
		s.stats["renew-failed"]++
		r.stopped = true
	}
	if len(e.changes) > 0 {
		for p, b := range e.changes {
			s.br.files[p] = b
		}
		s.br.version++
	}
	switch r.kind {
	case "acquire":
		r.lease, r.phase = e.lease, "running"
		s.stats["acquired"]++
		if len(e.lease.Superseded) > 0 && e.lease.Superseded[len(e.lease.Superseded)-1].SupersededAt.Equal(e.lease.Acquired) {
			s.stats["takeover"]++
		}
	case "renew":
		if e.err == nil {
			r.lease = e.lease
		}
	case "release":
		r.phase = "done"
	}
}

// dispatch sends one request from r to host if the lease, the gate and the
// spacing allow it now.
func (s *sim) dispatch(r *simRun, host string) {
	if r.stopped || !s.now.Before(r.lease.StopBy(simMargin)) || s.now.Before(r.hostFree[host]) {
		return
	}
	d := ledger.Day(s.now)
	key := host + " " + d
	n, ok := r.gateN[key]
	if !ok {
		var err error
		n, err = r.lease.GateSpent(func(h string) int { return simCaps[h] })(host, d)
		if err != nil {
			s.t.Fatal(err)
		}
	}
	if n >= simCaps[host] {
		return
	}
	r.gateN[key] = n + 1
	dur := time.Duration(1+s.rng.Int64N(int64(simMaxReq/time.Second))) * time.Second
	s.sent[d+" "+host]++
	s.ivals[host] = append(s.ivals[host], interval{s.now, s.now.Add(dur), r.id})
	r.hostFree[host] = s.now.Add(dur + simSpacing)
	p := "ledgers/" + d + "/" + ledger.FileName(host)
	r.local[p] = append(r.local[p], dispatchLine(s.t, host, r.id, s.now)...)
	if s.rng.IntN(2) == 0 {
		r.local[p] = append(r.local[p], resultLine(s.t, host, r.id, s.now.Add(dur))...)
	}
	s.stats["sent"]++
}

func (s *sim) newRun() {
	s.nextID++
	shardings := []Shard{{1, 1}, {1, 1}, {1, 2}, {2, 2}, {1, 3}, {2, 3}, {3, 3}}
	r := &simRun{
		id:    fmt.Sprintf("run%d-1", s.nextID), // each its own workflow run: attempts of one run never overlap
		shard: shardings[s.rng.IntN(len(shardings))],
		want:  map[string]int{},
		phase: "new", local: map[string][]byte{}, gateN: map[string]int{}, hostFree: map[string]time.Time{},
	}
	// Like the ci command: the run starts from the branch's ledgers.
	_, files := s.snapshot()
	for p, b := range files {
		if strings.HasPrefix(p, "ledgers/") {
			r.local[p] = slices.Clone(b)
		}
	}
	for _, h := range slices.Sorted(maps.Keys(simCaps)) {
		if r.shard.Owns(h) {
			r.want[h] = s.rng.IntN(simCaps[h] + 3)
		}
	}
	s.runs = append(s.runs, r)
}

func (s *sim) step() {
	s.now = s.now.Add(time.Duration(s.rng.Int64N(int64(40 * time.Second))))
	if s.rng.IntN(30) == 0 {
		s.newRun()
	}
	var active []*simRun
	for _, r := range s.runs {
		if r.phase != "done" && r.phase != "dead" {
			active = append(active, r)
		}
	}
	if len(active) == 0 {
		return
	}
	r := active[s.rng.IntN(len(active))]
	if r.phase != "new" && s.rng.IntN(60) == 0 {
		r.phase, r.pending = "dead", nil // the runner vanishes: local lines lost
		s.stats["died"]++
		return
	}
	if r.pending != nil && s.rng.IntN(2) == 0 {
		s.push(r)
		return
	}
	switch r.phase {
	case "new":
		r.phase = "acquiring"
		s.start(r, "acquire")
	case "running":
		switch x := s.rng.IntN(100); {
		case x < 70:
			hosts := slices.Sorted(maps.Keys(r.want))
			if len(hosts) > 0 {
				s.dispatch(r, hosts[s.rng.IntN(len(hosts))])
			}
		case x < 80 && r.pending == nil:
			s.start(r, "push")
		case x < 92 && r.pending == nil:
			s.start(r, "renew")
		case x >= 96 && r.pending == nil, r.stopped && r.pending == nil:
			r.phase = "releasing"
			s.start(r, "release")
		}
	case "releasing":
		if r.pending == nil {
			s.start(r, "release")
		}
	}
}

func (s *sim) check() {
	for key, n := range s.sent {
		d, host, _ := strings.Cut(key, " ")
		if n > simCaps[host] {
			s.t.Errorf("%s on %s: %d requests sent, cap %d", host, d, n, simCaps[host])
		}
	}
	for host, iv := range s.ivals {
		slices.SortFunc(iv, func(a, b interval) int { return a.start.Compare(b.start) })
		for i := 1; i < len(iv); i++ {
			if iv[i].start.Before(iv[i-1].end) {
				s.t.Errorf("%s: request of %s at %v overlaps request of %s %v–%v",
					host, iv[i].run, iv[i].start, iv[i-1].run, iv[i-1].start, iv[i-1].end)
			}
		}
	}
}

func TestSimulatedRunsNeverExceedCaps(t *testing.T) {
	total := map[string]int{}
	capsHit := 0
	for seed := range uint64(simSeeds) {
		s := &sim{
			t:     t,
			rng:   rand.New(rand.NewPCG(seed, 0x7a4b)),
			now:   time.Date(2026, 11, 3, 21, 0, 0, 0, time.UTC),
			br:    simBranch{files: map[string][]byte{}},
			sent:  map[string]int{},
			ivals: map[string][]interval{},
			stats: map[string]int{},
		}
		for range 3 {
			s.newRun()
		}
		for range 3000 {
			s.step()
		}
		s.check()
		if t.Failed() {
			t.Fatalf("seed %d: stats %v", seed, s.stats)
		}
		for k, v := range s.stats {
			total[k] += v
		}
		for key, n := range s.sent {
			_, host, _ := strings.Cut(key, " ")
			if n == simCaps[host] {
				capsHit++
			}
		}
	}
	t.Logf("over all seeds: %v; host-days at their cap: %d", total, capsHit)
	// The runs must really have competed, died and been taken over, or the
	// test proves nothing.
	for _, k := range []string{"sent", "acquired", "held", "takeover", "died", "cas-retry", "renew-failed"} {
		if total[k] == 0 {
			t.Errorf("no %q in any seed: the simulation is too tame", k)
		}
	}
	if capsHit == 0 {
		t.Error("no host ever reached its cap: the caps were never tested")
	}
}
