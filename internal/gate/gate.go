package gate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// Reasons a host cannot be dispatched to now. None of them is a failure of a
// source: its sources are deferred (or, for ErrPaused, shown paused).
var (
	ErrCapReached = errors.New("daily cap reached")
	ErrPaused     = errors.New("paused after repeated 403s")
	ErrOffPeak    = errors.New("outside off-peak windows")
)

// DeferredError says the next dispatch may not happen before Until, which is
// past the run's deadline: the host is left for a later run.
type DeferredError struct {
	Until  time.Time
	Reason string // "backoff", "spacing", "retry-after", "ratelimit"
	// Pace, for "spacing", names the site's hint that set the gap
	// ("max-crawl-rate: 10/m"); "" when the policy's delay did.
	Pace string
}

func (e *DeferredError) Error() string {
	return fmt.Sprintf("deferred until %s (%s)", e.Until.UTC().Format(time.RFC3339), e.Why())
}

// Why is the reason in words, with the hint behind a spacing.
func (e *DeferredError) Why() string {
	if e.Pace != "" {
		return e.Reason + ", " + e.Pace
	}
	return e.Reason
}

// Rand is the randomness the gate draws delays from; *math/rand/v2.Rand
// satisfies it.
type Rand interface {
	Int64N(n int64) int64
}

// Request describes a dispatch for the ledger.
type Request struct {
	URL     string
	Purpose string // ledger.PurposeRobots, PurposeDocument, PurposeRedirect
	Source  string // source id, empty for robots.txt
}

// Config is everything a Gate needs.
type Config struct {
	Host          policy.Host // effective settings, floors applied
	BackoffMax    time.Duration
	PauseAfter403 int
	Clock         clock.Clock
	Rand          Rand
	// Deadline is when the run must end; a wait that would end after it
	// returns *DeferredError instead of sleeping. Zero means none.
	Deadline time.Time
	// State is the host's memory from earlier runs.
	State state.Host
	// Spent returns the dispatches already spent on a UTC day
	// ("YYYY-MM-DD") before this gate existed: ledger lines plus other runs'
	// reservations. It is called once per day the gate sees.
	Spent func(day string) (int, error)
	// Record makes the dispatch durable (the ledger line) before Acquire
	// returns. If it fails, Acquire fails and nothing is sent. at is when
	// the request is to leave: a dispatch that waits is recorded in the last
	// moments of its wait, so the cost of the write is not added to the gap.
	Record func(at time.Time, r Request) error
	// Cushion is added to every wait, to cover what the clock cannot see:
	// between the dispatch time and the server's arrival lies the send (and
	// a dial, on a new connection), so two arrivals can be that much closer
	// than their dispatches.
	Cushion time.Duration
	// Notify, when set, is told of each wait as it begins and of each
	// dispatch once it is counted, so that progress can say what the host
	// is doing. It is called by the holder of the host's turn and must not
	// block.
	Notify func(Event)
}

// Event is what a gate tells Config.Notify.
type Event struct {
	// Wait is true when a wait begins (until Until, for Reason: "spacing",
	// "backoff", "retry-after" or "ratelimit"); false when a dispatch was
	// counted. Pace names the site's hint behind a spacing, as
	// DeferredError's does.
	Wait   bool
	Until  time.Time
	Reason string
	Pace   string
	// Left is what remains of the UTC day's budget after the dispatches
	// counted so far.
	Left int
}

// Gate serialises and spaces the requests to one host. It is safe for
// concurrent use: Acquire blocks while another Permit of the same Gate is
// outstanding.
type Gate struct {
	cfg Config

	// sem holds a token while Acquire runs or a Permit is outstanding. It is
	// a channel rather than a mutex so that waiting for it honours ctx.
	sem chan struct{}

	// spent is touched only by the holder of sem, so it needs no lock:
	// UTC day → dispatches (cfg.Spent's count, then ours on top).
	spent map[string]int
	// day is the last UTC day utcDay named, kept beside spent (and by the
	// same rule) so that a request does not format its date three times.
	day struct {
		year, yearDay int
		name          string
	}

	// mu guards what State and SetHint may reach at any time. It is
	// never held across Sleep, Spent or Record.
	mu    sync.Mutex
	st    state.Host
	hints map[string]Hint // by Source

	// recordCost is how long Record has lately taken (a decaying maximum);
	// twice it, within minRecordLead and maxRecordLead, is how far ahead of
	// its time a waiting dispatch is recorded.
	// Touched only by the holder of sem.
	recordCost time.Duration
}

// A dispatch line that had to wait is written between minRecordLead and
// maxRecordLead ahead of its request (twice what the writes have lately
// cost, within those bounds). The floor keeps the fsync clear of the
// dispatch even when hosts run in step (a fixed delay): otherwise their
// fsyncs all fall on the moment they dispatch and hold up each other's
// wake-ups. The ceiling keeps rare what a stop in between leaves: a line
// for a request never sent, which errs on the side of the cap.
const (
	minRecordLead = 20 * time.Millisecond
	maxRecordLead = 50 * time.Millisecond
)

// New returns a Gate for cfg.Host. Clock, Rand, Spent and Record are
// required: a gate that could not count or record would let the cap slip.
func New(cfg Config) *Gate {
	switch {
	case cfg.Clock == nil:
		panic("gate: Config.Clock is nil")
	case cfg.Rand == nil:
		panic("gate: Config.Rand is nil")
	case cfg.Spent == nil:
		panic("gate: Config.Spent is nil")
	case cfg.Record == nil:
		panic("gate: Config.Record is nil")
	}
	g := &Gate{
		cfg:   cfg,
		sem:   make(chan struct{}, 1),
		spent: make(map[string]int),
		st:    cfg.State,
		hints: map[string]Hint{},
	}
	g.keepRateLimitPolicy(cfg.State.RateLimitPolicy)
	return g
}

// SetCrawlDelay sets the robots.txt Crawl-delay that applies to us; it is
// the spacing whenever it is longer than the drawn delay.
func (g *Gate) SetCrawlDelay(d time.Duration) { g.SetHint(CrawlDelayHint(d)) }

// CrawlDelayHint is a Crawl-delay of d as a hint, its value in seconds.
func CrawlDelayHint(d time.Duration) Hint {
	return Hint{Source: FromCrawlDelay, Gap: d, Text: strconv.FormatFloat(d.Seconds(), 'f', -1, 64)}
}

// SetHint sets the site's hint from h.Source (replacing any earlier one
// from there; a Gap of zero or less removes it). The longest hint is the
// spacing whenever it is longer than the drawn delay.
func (g *Gate) SetHint(h Hint) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if h.Gap <= 0 {
		delete(g.hints, h.Source)
		return
	}
	g.hints[h.Source] = h
}

// slowest is the longest hint. g.mu must be held.
func (g *Gate) slowest() Hint {
	var s Hint
	for _, h := range g.hints {
		if h.Gap > s.Gap {
			s = h
		}
	}
	return s
}

// keepRateLimitPolicy makes a RateLimit-Policy field the host's hint from
// that source (none when it gives no gap). g.mu must be held, or g not yet
// shared.
func (g *Gate) keepRateLimitPolicy(field string) {
	if field == "" {
		return
	}
	if gap, ok := ParseRateLimitPolicy(field); ok {
		g.hints[FromRateLimitPolicy] = Hint{Source: FromRateLimitPolicy, Gap: gap, Text: field}
	} else {
		delete(g.hints, FromRateLimitPolicy)
	}
}

// Acquire waits until the host may receive r, then records the dispatch
// (Config.Record) and counts it against the day's cap, and returns the
// Permit the caller must complete with Done.
//
// The wait is the later of: previous dispatch + d (d uniform in
// [Delay.Min, Delay.Max], or the Crawl-delay if longer); previous
// completion + Delay.Min; and the backoff's end. Errors: ErrPaused,
// ErrOffPeak, ErrCapReached, *DeferredError, ctx.Err(), or Record's error.
func (g *Gate) Acquire(ctx context.Context, r Request) (_ *Permit, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() {
		if err != nil {
			<-g.sem
		}
	}()

	g.mu.Lock()
	st, hint := g.st, g.slowest()
	g.mu.Unlock()

	now := g.cfg.Clock.Now()
	if st.PausedUntil.After(now) {
		return nil, ErrPaused
	}
	if !g.offPeak(now) {
		return nil, ErrOffPeak
	}
	// Checked before waiting so that a spent host does not sleep for nothing.
	if err := g.checkCap(now); err != nil {
		return nil, err
	}

	until, reason, pace, fromDispatch := g.earliest(st, hint)
	at := now
	if wait := until.Sub(now); wait > 0 {
		if fromDispatch {
			// Only a wait counted from the previous dispatch needs it: one
			// counted from the previous completion is longer than the
			// server's own view of it, since an answer ends after its
			// request arrived.
			until = until.Add(g.cfg.Cushion)
		}
		if !g.cfg.Deadline.IsZero() && until.After(g.cfg.Deadline) {
			return nil, &DeferredError{Until: until, Reason: reason, Pace: pace}
		}
		g.notify(Event{Wait: true, Until: until, Reason: reason, Pace: pace, Left: g.left(now)})
		// Wake early to write the ledger line ahead, so that its fsync is
		// done before the wait ends instead of on the way to the server.
		lead := min(max(2*g.recordCost, minRecordLead), maxRecordLead, wait)
		if err := g.cfg.Clock.Sleep(ctx, until.Sub(now)-lead); err != nil {
			return nil, err
		}
		now = g.cfg.Clock.Now()
		// The wait may have run past the end of the window, or into a new
		// UTC day, whose budget is its own.
		if !g.offPeak(until) {
			return nil, ErrOffPeak
		}
		if err := g.checkCap(until); err != nil {
			return nil, err
		}
		at = later(until, now)
	}

	// The ledger line must be durable before the request exists, so the
	// cap counts it whatever happens next; if it is not, the dispatch
	// never happened and costs nothing.
	began := g.cfg.Clock.Now()
	if err := g.cfg.Record(at, r); err != nil {
		return nil, err
	}
	now = g.cfg.Clock.Now()
	g.recordCost = max(g.recordCost*3/4, now.Sub(began))
	g.spent[g.utcDay(at)]++
	g.notify(Event{Until: at, Left: g.left(at)})
	if rest := at.Sub(now); rest > 0 {
		// Recorded ahead: the line counts (spent above) even if a stop
		// comes before the request leaves.
		if err := g.cfg.Clock.Sleep(ctx, rest); err != nil {
			return nil, err
		}
		now = g.cfg.Clock.Now()
	}
	// The dispatch time is when the request leaves, after the write:
	// spacing is measured from there.
	g.mu.Lock()
	g.st.LastDispatch = now
	g.mu.Unlock()
	return &Permit{g: g}, nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// offPeak reports whether t is inside the host's windows. It leaves
// policy out of it for hosts without windows, the common case.
func (g *Gate) offPeak(t time.Time) bool {
	return len(g.cfg.Host.OffPeak) == 0 || g.cfg.Host.OffPeakNow(t)
}

func (g *Gate) notify(e Event) {
	if g.cfg.Notify != nil {
		g.cfg.Notify(e)
	}
}

// left is what remains of t's UTC day's budget, as far as this gate has
// counted it. Only the holder of sem may call it.
func (g *Gate) left(t time.Time) int {
	return max(g.cfg.Host.DailyCap-g.spent[g.utcDay(t)], 0)
}

// checkCap returns ErrCapReached when t's UTC day has no budget left.
func (g *Gate) checkCap(t time.Time) error {
	day := g.utcDay(t)
	n, ok := g.spent[day]
	if !ok {
		prior, err := g.cfg.Spent(day)
		if err != nil {
			return fmt.Errorf("gate: dispatches spent on %s: %w", day, err)
		}
		n = prior
		g.spent[day] = n
	}
	if n >= g.cfg.Host.DailyCap {
		return ErrCapReached
	}
	return nil
}

// earliest returns when the next dispatch may go, what holds it back (and,
// for a spacing the site's hint set, that hint: "max-crawl-rate: 10/m"),
// and whether that is the spacing from the previous dispatch. It draws d,
// so call it once per dispatch.
func (g *Gate) earliest(st state.Host, hint Hint) (time.Time, string, string, bool) {
	delay := g.cfg.Host.Delay
	d := delay.Min + g.draw(delay.Max-delay.Min)
	pace := ""
	if hint.Gap > d {
		d, pace = hint.Gap, hint.Source+": "+hint.Text
	}

	until, reason, fromDispatch := st.LastDispatch.Add(d), "spacing", true
	if t := st.LastCompletion.Add(delay.Min); t.After(until) {
		until, fromDispatch, pace = t, false, ""
	}
	if st.BackoffUntil.After(until) {
		until, reason, pace, fromDispatch = st.BackoffUntil, "backoff", "", false
		if st.BackoffFromRetryAfter {
			reason = "retry-after"
		}
	}
	if st.RateLimitUntil.After(until) {
		until, reason, pace, fromDispatch = st.RateLimitUntil, "ratelimit", "", false
	}
	return until, reason, pace, fromDispatch
}

// draw returns a duration uniform in [0, n]; no draw at all when n <= 0.
func (g *Gate) draw(n time.Duration) time.Duration {
	if n <= 0 {
		return 0
	}
	return time.Duration(g.cfg.Rand.Int64N(int64(n) + 1))
}

// State returns the host's memory as it stands, to be saved.
func (g *Gate) State() state.Host {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.st
}

// Outcome is how a request ended.
type Outcome struct {
	Status int   // HTTP status; 0 when Err is set
	Err    error // timeout, connection error (a failure for backoff)
	// At is when the request completed (its body's end), if known; Done's
	// own time otherwise. Work after the body, such as the store's fsync,
	// is then not counted as part of the response.
	At time.Time
	// RetryAfter is the raw Retry-After header of a 429 or 503, if any.
	RetryAfter string
	// Refused marks an answer that refuses us whatever its status: a bot
	// challenge or block page served with a 200. It counts towards the
	// pause as a 403 does.
	Refused bool
	// RateLimit and RateLimitPolicy are the answer's RateLimit and
	// RateLimit-Policy header fields, if any, each repeated field joined
	// by ", " (draft-ietf-httpapi-ratelimit-headers).
	RateLimit, RateLimitPolicy string
	// SentAt is when the request really left, if known: after its
	// connection and TLS set-up, which can take longer for one request
	// than for the next. Spacing is counted from it when it is later than
	// the dispatch, so two arrivals at the server are never closer than
	// the rule, however long a handshake took.
	SentAt time.Time
}

// Permit is one granted dispatch.
type Permit struct {
	g    *Gate
	done atomic.Bool
}

// Done records the completion and its outcome: 2xx/3xx/304 reset the
// failure count and the 403 count; 429, 5xx and errors are the n-th
// consecutive failure and set the backoff; 403 (or an answer marked
// Refused) counts towards the pause; 404/410 and other 4xx change nothing. Done must be
// called exactly once; it releases the host for the next Acquire.
//
// A second call panics: silently ignoring it would hide an outcome lost by
// the caller, and releasing twice would let two requests overlap.
func (p *Permit) Done(o Outcome) {
	if !p.done.CompareAndSwap(false, true) {
		panic("gate: Permit.Done called twice")
	}
	g := p.g
	now := g.cfg.Clock.Now()
	if !o.At.IsZero() && o.At.Before(now) {
		now = o.At
	}
	g.mu.Lock()
	g.settle(now, o)
	g.mu.Unlock()
	<-g.sem
}

// settle applies outcome o, completed at now, to g.st. g.mu must be held.
func (g *Gate) settle(now time.Time, o Outcome) {
	st := &g.st
	st.LastCompletion = now
	// A request cannot have left after it completed: a stamp from another
	// clock than the gate's is ignored rather than trusted.
	if o.SentAt.After(st.LastDispatch) && !o.SentAt.After(now) {
		st.LastDispatch = o.SentAt
	}

	// With no error and no status there was no answer either: count it as
	// a failure rather than let a caller's slip skip the backoff.
	responded := o.Err == nil && o.Status != 0
	switch {
	case !responded || o.Status == http.StatusTooManyRequests || o.Status >= 500:
		st.Failures++
		lo, hi := Backoff(st.Failures, g.cfg.Host.Delay.Max, g.cfg.BackoffMax)
		wait := lo + g.draw(hi-lo)
		st.BackoffFromRetryAfter = false
		if ra, ok := ParseRetryAfter(o.RetryAfter, now); ok && ra > wait {
			wait, st.BackoffFromRetryAfter = ra, true
		}
		st.BackoffUntil = now.Add(wait)
	case o.Status >= 200 && o.Status < 400:
		st.Failures = 0
		st.BackoffUntil = time.Time{}
		st.BackoffFromRetryAfter = false
	}

	if !responded {
		return // a network error says nothing about whether we are welcome
	}
	g.rateLimit(now, o)
	if o.Status != http.StatusForbidden && !o.Refused {
		st.Consecutive403 = 0
		return
	}
	st.Consecutive403++
	// ">=" rather than "==": once paused, a host that still answers 403 the
	// next day is paused again at the first one.
	if g.cfg.PauseAfter403 > 0 && st.Consecutive403 >= g.cfg.PauseAfter403 {
		u := now.UTC()
		st.PausedUntil = time.Date(u.Year(), u.Month(), u.Day()+1, 0, 0, 0, 0, time.UTC)
	}
}

// rateLimit applies an answer's RateLimit-Policy (kept, as the host's
// hint) and RateLimit (nothing remaining pauses the host until the
// reset). A Retry-After the answer also carried takes precedence, as the
// draft asks: the backoff already waits for it. g.mu must be held.
func (g *Gate) rateLimit(now time.Time, o Outcome) {
	st := &g.st
	if o.RateLimitPolicy != "" && o.RateLimitPolicy != st.RateLimitPolicy {
		if _, ok := ParseRateLimitPolicy(o.RateLimitPolicy); ok {
			st.RateLimitPolicy = o.RateLimitPolicy
			g.keepRateLimitPolicy(o.RateLimitPolicy)
		}
	}
	if wait, ok := ParseRateLimit(o.RateLimit, st.RateLimitPolicy); ok && o.RetryAfter == "" {
		st.RateLimitUntil = now.Add(wait)
	}
}

// MaxRetryAfter bounds how long a Retry-After can ask us to wait.
const MaxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a Retry-After value, delta-seconds or HTTP-date,
// relative to now. Negative results are 0, absurd or overflowing ones are
// MaxRetryAfter; ok is false when v is empty or unreadable.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if digits := strings.TrimPrefix(v, "-"); digits != "" && isDigits(digits) {
		if digits != v {
			return 0, true // a negative delta: not RFC 9110, but clearly "now"
		}
		// ParseUint reports overflow as an error instead of wrapping, and
		// comparing in seconds keeps the multiplication below in range.
		secs, err := strconv.ParseUint(digits, 10, 64)
		if err != nil || secs > uint64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter, true
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	// Sub saturates instead of overflowing for dates far off.
	return min(max(t.Sub(now), 0), MaxRetryAfter), true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Backoff returns the range the backoff draws from after the n-th consecutive
// failure: b = min(backoffMax, 2^n × delayMax, MaxBackoff), range [b/2, b].
// A backoffMax of zero or less means MaxBackoff.
func Backoff(n int, delayMax, backoffMax time.Duration) (lo, hi time.Duration) {
	limit := policy.MaxBackoff
	if backoffMax > 0 {
		limit = min(limit, backoffMax)
	}
	if delayMax <= 0 {
		return 0, 0
	}
	// Double only while under the limit: the limit is at most 30 min, so b
	// never overflows and a huge n costs at most a few dozen steps.
	b := delayMax
	for i := 0; i < n && b < limit; i++ {
		b *= 2
	}
	b = min(b, limit)
	return b / 2, b
}

// utcDay names t's UTC day ("YYYY-MM-DD"), the key of spent. Only the
// holder of sem may call it.
func (g *Gate) utcDay(t time.Time) string {
	u := t.UTC()
	if y, d := u.Year(), u.YearDay(); y != g.day.year || d != g.day.yearDay || g.day.name == "" {
		g.day.year, g.day.yearDay, g.day.name = y, d, u.Format(time.DateOnly)
	}
	return g.day.name
}
