package lease

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
)

// Dir is the directory of the lease files in the cache branch.
const Dir = "leases"

// Path returns the path of shard's lease file in the cache branch, e.g.
// Path("2-of-4") = "leases/2-of-4.json".
func Path(shard string) string { return Dir + "/" + shard + ".json" }

// Errors.
var (
	// ErrHeld: another run holds a live lease on the shard. The error is a
	// *HeldError naming the holder and the expiry.
	ErrHeld = errors.New("lease held by another run")
	// ErrExpired: a lease past its expiry cannot be renewed; the run must
	// not dispatch again under it.
	ErrExpired = errors.New("lease expired")
	// ErrLost: the lease file no longer holds the caller's lease (it was
	// released, or taken over after it expired).
	ErrLost = errors.New("lease no longer held")
	// ErrRunIDReused: the run id was used by another holder of the shard.
	// Ledger lines are counted per run id, so reuse could hide a dead run's
	// requests; make run ids unique per attempt.
	ErrRunIDReused = errors.New("run id reused by another holder")
)

// HeldError is the error of Acquire when the shard is held. errors.Is(err,
// ErrHeld) is true.
type HeldError struct {
	Shard, RunID, Holder string
	Expires              time.Time
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("lease: shard %s is held by run %s (holder %s) until %s",
		e.Shard, e.RunID, e.Holder, e.Expires.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrHeld) true.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Lease is the content of a lease file, or (with SupersededAt set) the
// record of an unreleased lease kept in its Superseded list.
type Lease struct {
	RunID    string    `json:"run_id"`
	Holder   string    `json:"holder"`
	Shard    string    `json:"shard"`
	Acquired time.Time `json:"acquired"`
	Expires  time.Time `json:"expires"`
	// Day is the UTC day ("YYYY-MM-DD") the reservations are for.
	Day string `json:"day"`
	// Reservations: requests reserved per host out of Day's cap.
	Reservations map[string]int `json:"reservations"`
	Released     bool           `json:"released"`
	ReleasedAt   time.Time      `json:"released_at,omitzero"`
	// Dispatched: requests actually sent per host, filled on release.
	Dispatched map[string]int `json:"dispatched,omitempty"`
	// SupersededAt is set on a record: when a later Acquire replaced the
	// lease without it having been released.
	SupersededAt time.Time `json:"superseded_at,omitzero"`
	// Superseded holds, in the lease file only, the records of earlier
	// unreleased leases of the shard whose day is not over (see package
	// doc). Records themselves have none.
	Superseded []Lease `json:"superseded,omitempty"`
}

// ID identifies a lease: one process (run id and holder) on one shard.
type ID struct{ RunID, Holder, Shard string }

// ID returns l's identity.
func (l Lease) ID() ID { return ID{l.RunID, l.Holder, l.Shard} }

// Live reports whether l still holds its shard and hosts at now: not
// released, not expired, and not a record.
func (l Lease) Live(now time.Time) bool {
	return !l.Released && l.SupersededAt.IsZero() && now.Before(l.Expires)
}

// StopBy is when the holder must stop sending new requests: margin before
// expiry. margin must cover the longest request (the policy timeout) plus
// clock skew between runners, so that every request ends before another run
// can see the lease expired.
func (l Lease) StopBy(margin time.Duration) time.Time { return l.Expires.Add(-margin) }

// Budget is what l lets its holder send to host on day: the reservation on
// l.Day, nothing on any other day (a run that crosses midnight UTC defers
// until a later run reserves for the new day).
func (l Lease) Budget(host, day string) int {
	if day != l.Day || l.Released {
		return 0
	}
	return l.Reservations[host]
}

// GateSpent returns a pipeline Options.Spent (a gate's Spent) for the run
// holding l: a host seems to have cap(host) − Budget spent, so a gate whose
// cap is cap(host) sends at most the reservation. cap must return the
// same daily cap the gates use.
func (l Lease) GateSpent(cap func(host string) int) func(host, day string) (int, error) {
	return func(host, day string) (int, error) {
		c := cap(host)
		return max(0, c-l.Budget(host, day)), nil
	}
}

// Request is what Acquire needs.
type Request struct {
	RunID  string // unique per process: "<GITHUB_RUN_ID>-<GITHUB_RUN_ATTEMPT>"
	Holder string // who, for humans and for telling processes apart: runner name, pid
	Shard  string // Shard.Name(), e.g. "2-of-4"
	TTL    time.Duration
	// Want is the number of requests the run would like per host (hosts of
	// its shard). Remaining is today's remaining cap per host, from
	// Remaining, computed on the same tip inside the same edit. A host in
	// Want but not in Remaining gets 0.
	Want, Remaining map[string]int
}

// ID returns the identity the requested lease will have.
func (r Request) ID() ID { return ID{r.RunID, r.Holder, r.Shard} }

// Acquire returns the new content of the shard's lease file, given its
// current content (nil or empty when there is none).
//
//   - A live lease of another process (other run id, or same run id under
//     another holder) → *HeldError (ErrHeld), nothing to write.
//   - A live lease of the same run id and holder is replaced: that is the
//     same process re-applying its edit (e.g. after an ambiguous push).
//   - An expired, never-released lease (anyone's, the caller's own too) is
//     taken over and kept as a record in Superseded, so its reservation
//     still counts for its day.
//   - A live lease of an earlier attempt of the same workflow run
//     (EarlierAttempt) is taken over like an expired one: a re-run starts
//     only once every job of the attempt before it has ended, so that
//     attempt is dead even if it could not release its lease.
//   - A released lease is replaced; its ledger lines are its record.
//
// Records whose day ended more than a day before now are dropped. A record
// of the same run id under another holder is ErrRunIDReused. A file that
// does not decode is an error: it is never guessed at.
//
// The new lease reserves min(Want, Remaining), at least 0, per host of Want,
// for now's UTC day, until now+TTL.
func Acquire(existing []byte, req Request, now time.Time) (Lease, error) {
	if req.RunID == "" || req.Holder == "" || req.Shard == "" {
		return Lease{}, fmt.Errorf("lease: a request needs a run id, a holder and a shard: %+v", req)
	}
	if req.TTL <= 0 {
		return Lease{}, fmt.Errorf("lease: TTL %v must be positive", req.TTL)
	}
	now = now.UTC()
	var records []Lease
	if len(existing) > 0 {
		cur, err := Decode(existing)
		if err != nil {
			return Lease{}, fmt.Errorf("lease: %s: %w", Path(req.Shard), err)
		}
		if cur.Shard != req.Shard {
			return Lease{}, fmt.Errorf("lease: %s holds a lease of shard %q", Path(req.Shard), cur.Shard)
		}
		same := cur.RunID == req.RunID && cur.Holder == req.Holder
		earlier := EarlierAttempt(cur.RunID, req.RunID)
		if cur.Live(now) && !same && !earlier {
			return Lease{}, &HeldError{Shard: cur.Shard, RunID: cur.RunID, Holder: cur.Holder, Expires: cur.Expires}
		}
		records = slices.Clone(cur.Superseded)
		if !cur.Released && (!cur.Live(now) || earlier) { // dead, never released: keep its record
			rec := cur
			rec.Superseded = nil
			rec.SupersededAt = now
			records = append(records, rec)
		}
		// Otherwise released (its ledger lines are its record) or the
		// caller's own live lease: replaced.
	}
	cutoff := ledger.Day(now.Add(-24 * time.Hour))
	records = slices.DeleteFunc(records, func(r Lease) bool { return r.Day < cutoff })
	for _, r := range records {
		if r.RunID == req.RunID && r.Holder != req.Holder {
			return Lease{}, fmt.Errorf("lease: %w: run %s was held by %s on shard %s and is now asked for by %s",
				ErrRunIDReused, r.RunID, r.Holder, r.Shard, req.Holder)
		}
	}
	l := Lease{
		RunID: req.RunID, Holder: req.Holder, Shard: req.Shard,
		Acquired: now, Expires: now.Add(req.TTL), Day: ledger.Day(now),
		Reservations: make(map[string]int, len(req.Want)),
	}
	for host, want := range req.Want {
		l.Reservations[host] = max(0, min(want, req.Remaining[host]))
	}
	if len(records) > 0 {
		l.Superseded = records
	}
	return l, nil
}

// EarlierAttempt reports whether run id held names an earlier attempt of
// the same workflow run as mine: both "<run>-<attempt>" (GITHUB_RUN_ID and
// GITHUB_RUN_ATTEMPT), same run, smaller attempt.
func EarlierAttempt(held, mine string) bool {
	hr, ha, ok1 := cutAttempt(held)
	mr, ma, ok2 := cutAttempt(mine)
	return ok1 && ok2 && hr == mr && ha < ma
}

func cutAttempt(id string) (run string, attempt int, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 1 {
		return "", 0, false
	}
	return id[:i], n, true
}

// Release returns l released at now, with what was actually dispatched per
// host under it (hosts with 0 are left out). Push it in the same commit as
// the run's last ledger lines: from then on only those lines count.
func Release(l Lease, dispatched map[string]int, now time.Time) Lease {
	l.Released = true
	l.ReleasedAt = now.UTC()
	l.Dispatched = nil
	for host, n := range dispatched {
		if n > 0 {
			if l.Dispatched == nil {
				l.Dispatched = map[string]int{}
			}
			l.Dispatched[host] = n
		}
	}
	return l
}

// Renew returns l with its expiry moved to now+ttl. A released or expired
// lease is not renewed (ErrLost, ErrExpired): once expired, another run may
// have counted the host as free.
func Renew(l Lease, now time.Time, ttl time.Duration) (Lease, error) {
	switch {
	case ttl <= 0:
		return l, fmt.Errorf("lease: TTL %v must be positive", ttl)
	case l.Released || !l.SupersededAt.IsZero():
		return l, fmt.Errorf("lease: renew %s: %w", l.Shard, ErrLost)
	case !now.Before(l.Expires):
		return l, fmt.Errorf("lease: renew %s (expired %s): %w", l.Shard, l.Expires.UTC().Format(time.RFC3339), ErrExpired)
	}
	l.Expires = now.UTC().Add(ttl)
	return l, nil
}

// RenewFile is Renew applied to the shard's lease file as it is on the tip
// (existing), for use inside an edit: it fails with ErrLost unless the file
// still holds mine (same id and acquisition time).
func RenewFile(existing []byte, mine Lease, now time.Time, ttl time.Duration) (Lease, error) {
	cur, err := current(existing, mine)
	if err != nil {
		return Lease{}, err
	}
	if !sameLease(cur, mine) {
		return Lease{}, fmt.Errorf("lease: renew %s: now held by run %s: %w", mine.Shard, cur.RunID, ErrLost)
	}
	return Renew(cur, now, ttl)
}

// ReleaseFile is Release applied to the shard's lease file as it is on the
// tip, for use inside an edit. When the file still holds mine, it is
// released; when mine was taken over after expiring, its record in
// Superseded is marked released with dispatched instead (so it counts what
// was sent, not the whole reservation). ErrLost when neither is found (the
// record's day is over): there is nothing to write but the ledgers.
func ReleaseFile(existing []byte, mine Lease, dispatched map[string]int, now time.Time) (Lease, error) {
	cur, err := current(existing, mine)
	if err != nil {
		return Lease{}, err
	}
	if sameLease(cur, mine) {
		return Release(cur, dispatched, now), nil
	}
	for i, r := range cur.Superseded {
		if sameLease(r, mine) {
			cur.Superseded = slices.Clone(cur.Superseded)
			rec := Release(r, dispatched, now)
			cur.Superseded[i] = rec
			return cur, nil
		}
	}
	return Lease{}, fmt.Errorf("lease: release %s: %w", mine.Shard, ErrLost)
}

func current(existing []byte, mine Lease) (Lease, error) {
	if len(existing) == 0 {
		return Lease{}, fmt.Errorf("lease: %s is gone: %w", Path(mine.Shard), ErrLost)
	}
	cur, err := Decode(existing)
	if err != nil {
		return Lease{}, fmt.Errorf("lease: %s: %w", Path(mine.Shard), err)
	}
	return cur, nil
}

func sameLease(a, b Lease) bool {
	return a.ID() == b.ID() && a.Acquired.Equal(b.Acquired)
}

// Encode returns the file content of l: indented JSON with sorted keys and
// a final newline, so equal leases are equal bytes.
func (l Lease) Encode() []byte {
	if l.Reservations == nil {
		l.Reservations = map[string]int{}
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil { // only maps of ints, strings and times: cannot happen
		panic(fmt.Sprintf("lease: encode: %v", err))
	}
	return append(b, '\n')
}

// Decode parses and checks a lease file. Unknown fields are an error: a
// lease this version does not fully understand is never guessed at.
func Decode(b []byte) (Lease, error) {
	var l Lease
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&l); err != nil {
		return Lease{}, fmt.Errorf("corrupt lease: %w", err)
	}
	if d.More() {
		return Lease{}, errors.New("corrupt lease: data after the object")
	}
	if err := l.check(false); err != nil {
		return Lease{}, err
	}
	for _, r := range l.Superseded {
		if err := r.check(true); err != nil {
			return Lease{}, err
		}
	}
	return l, nil
}

func (l Lease) check(record bool) error {
	if l.RunID == "" || l.Shard == "" || l.Acquired.IsZero() || l.Expires.IsZero() {
		return fmt.Errorf("corrupt lease: missing run_id, shard, acquired or expires: %+v", l)
	}
	if _, err := time.Parse(time.DateOnly, l.Day); err != nil {
		return fmt.Errorf("corrupt lease of run %s: day %q is not YYYY-MM-DD", l.RunID, l.Day)
	}
	for host, n := range l.Reservations {
		if n < 0 {
			return fmt.Errorf("corrupt lease of run %s: reservation %d for %s", l.RunID, n, host)
		}
	}
	for host, n := range l.Dispatched {
		if n < 0 {
			return fmt.Errorf("corrupt lease of run %s: dispatched %d for %s", l.RunID, n, host)
		}
	}
	if record != !l.SupersededAt.IsZero() || record && len(l.Superseded) > 0 {
		return fmt.Errorf("corrupt lease of run %s: misplaced superseded record", l.RunID)
	}
	return nil
}

// DecodeAll decodes every lease file of the branch (path → content, e.g.
// all of leases/*.json) and returns their leases and records, flat, in path
// order: the input of Spent and Remaining. Any file that does not decode is
// an error naming it.
func DecodeAll(files map[string][]byte) ([]Lease, error) {
	var all []Lease
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(p, ".json") {
			continue
		}
		l, err := Decode(files[p])
		if err != nil {
			return nil, fmt.Errorf("lease: %s: %w", p, err)
		}
		all = append(all, Flatten(l)...)
	}
	return all, nil
}

// Flatten returns l (without its list) followed by its records.
func Flatten(l Lease) []Lease {
	recs := l.Superseded
	l.Superseded = nil
	return append([]Lease{l}, recs...)
}
