package gate

import (
	"context"
	"errors"
	"fmt"
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
	Reason string // "backoff", "spacing", "retry-after"
}

func (e *DeferredError) Error() string {
	return fmt.Sprintf("deferred until %s (%s)", e.Until.UTC().Format(time.RFC3339), e.Reason)
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
	// returns. If it fails, Acquire fails and nothing is sent.
	Record func(at time.Time, r Request) error
}

// Gate serialises and spaces the requests to one host. It is safe for
// concurrent use: Acquire blocks while another Permit of the same Gate is
// outstanding.
type Gate struct {
	// TODO
}

// New returns a Gate for cfg.Host.
func New(cfg Config) *Gate {
	panic("TODO")
}

// SetCrawlDelay sets the robots.txt Crawl-delay that applies to us; it is
// the spacing whenever it is longer than the drawn delay.
func (g *Gate) SetCrawlDelay(d time.Duration) {
	panic("TODO")
}

// Acquire waits until the host may receive r, then records the dispatch
// (Config.Record) and counts it against the day's cap, and returns the
// Permit the caller must complete with Done.
//
// The wait is the later of: previous dispatch + d (d uniform in
// [Delay.Min, Delay.Max], or the Crawl-delay if longer); previous
// completion + Delay.Min; and the backoff's end. Errors: ErrPaused,
// ErrOffPeak, ErrCapReached, *DeferredError, ctx.Err(), or Record's error.
func (g *Gate) Acquire(ctx context.Context, r Request) (*Permit, error) {
	panic("TODO")
}

// State returns the host's memory as it stands, to be saved.
func (g *Gate) State() state.Host {
	panic("TODO")
}

// Outcome is how a request ended.
type Outcome struct {
	Status int   // HTTP status; 0 when Err is set
	Err    error // timeout, connection error (a failure for backoff)
	// RetryAfter is the raw Retry-After header of a 429 or 503, if any.
	RetryAfter string
}

// Permit is one granted dispatch.
type Permit struct {
	// TODO
}

// Done records the completion and its outcome: 2xx/3xx/304 reset the
// failure count and the 403 count; 429, 5xx and errors are the n-th
// consecutive failure and set the backoff (SPEC §3.7); 403 counts towards
// the pause (SPEC §3.8); 404/410 and other 4xx change nothing. Done must be
// called exactly once; it releases the host for the next Acquire.
func (p *Permit) Done(o Outcome) {
	panic("TODO")
}

// MaxRetryAfter bounds how long a Retry-After can ask us to wait.
const MaxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a Retry-After value, delta-seconds or HTTP-date,
// relative to now. Negative results are 0, absurd or overflowing ones are
// MaxRetryAfter; ok is false when v is empty or unreadable.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	panic("TODO")
}

// Backoff returns the range SPEC §3.7 draws from after the n-th consecutive
// failure: b = min(backoffMax, 2^n × delayMax, MaxBackoff), range [b/2, b].
func Backoff(n int, delayMax, backoffMax time.Duration) (lo, hi time.Duration) {
	panic("TODO")
}
