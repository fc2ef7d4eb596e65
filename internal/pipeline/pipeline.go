package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/answer"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// Fetcher sends one GET; *fetch.Client is the real one.
type Fetcher interface {
	Get(ctx context.Context, req fetch.Request, sink fetch.Sink) (*fetch.Response, error)
	GetBytes(ctx context.Context, req fetch.Request, limit int64) (*fetch.Response, []byte, error)
}

// Options is everything a run works with. Set, Store, Index, Ledger, State
// and HTTP are required.
type Options struct {
	Set    *manifest.Set
	Store  *store.Store
	Index  *store.Index
	Ledger *ledger.Ledger
	State  *state.State
	HTTP   Fetcher

	Limits
	// NewRand returns the randomness of one host's gate; default a PCG
	// seeded from the runtime's random source. The hosts' goroutines call
	// it at once: it must be safe for concurrent use.
	NewRand func() gate.Rand
	// Log receives one line per host event; it may be called concurrently.
	Log func(host, msg string)
	// SourceDone, when set, is called once each source's turn is over,
	// whatever its outcome: its state and its index entries are final for
	// the run, so what is made of them can be written while the hosts
	// wait. It may be called concurrently and must not block.
	SourceDone func(id string)
	// CheckNetwork, when set, is asked before anything is sent or recorded
	// whether the runner can reach the network at all, given the hosts the
	// run would contact (fetch.CheckNetwork is the real one). Its error
	// ends the run there: the sites are not blamed for the runner's outage.
	CheckNetwork func(ctx context.Context, hosts []string) error
	// HostEvent, when set, hears what each host is doing: a wait that
	// begins, a dispatch, the end of its turn. It may be called
	// concurrently and must not block.
	HostEvent func(HostEvent)
}

// HostEvent is one step of one host's turn, for progress.
type HostEvent struct {
	Host string
	Kind HostEventKind
	At   time.Time // when it happened, on the run's clock
	// Until is, for HostWaiting, when the wait ends; for HostDispatched,
	// when the request left; for HostDone, the end of a backoff or pause
	// that outlives the turn (zero when none).
	Until time.Time
	// Reason is what the host waits for: "spacing", "backoff",
	// "retry-after", or for HostDone "backoff" or "paused" (or empty).
	Reason string
	// Left is what remains of the UTC day's request budget; -1 when the
	// event does not say (HostDone).
	Left int
}

// HostEventKind names a step of a host's turn.
type HostEventKind string

const (
	HostWaiting    HostEventKind = "waiting"
	HostDispatched HostEventKind = "dispatched"
	HostDone       HostEventKind = "done"
)

// Result counts what a run did.
type Result struct {
	Due        int // sources planned for this run
	Dispatches int // requests sent, robots and redirect hops included
	Checked    int // sources whose check completed (whatever the outcome)
	Failed     int // sources left failing, robots-unavailable or too-large
	Deferred   int // due sources left for a later run (cap, backoff, off-peak, interruption)
	Planned    []Planned
}

// Planned is one due source in the order it would be requested.
type Planned struct {
	Host, SourceID, URL string
}

// ErrFatal wraps failures that make the run unable to go on safely (the
// ledger or the store cannot be written): nothing more is sent.
var ErrFatal = errors.New("run stopped")

// Due is what a run started now would take up, without a request or a
// write: the due sources host by host (hosts in name order), each host's
// in the order the run would request them, those that waited longest
// first. Sources the policy excludes are never due. Set, Store and State
// are required; Only, Hosts and Clock are honoured, nothing else is read.
func Due(o Options) []Planned {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	hosts, _ := plan(o, o.Clock.Now())
	return planned(hosts)
}

func planned(hosts []hostPlan) []Planned {
	var out []Planned
	for _, hp := range hosts {
		for _, src := range hp.sources {
			out = append(out, Planned{Host: hp.host, SourceID: src.ID, URL: src.URL})
		}
	}
	return out
}

// Run performs one fetch run. It returns an error wrapping ErrFatal when the
// ledger or store failed, CheckNetwork's error when the runner is offline
// (nothing sent, nothing recorded), or ctx's error when interrupted;
// per-source failures are recorded in the state, not returned.
func Run(ctx context.Context, o Options) (*Result, error) {
	o = withDefaults(o)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := newRun(o, o.Ledger, cancel)
	plan, excluded := plan(o, r.start)
	if o.CheckNetwork != nil && len(plan) > 0 {
		hosts := make([]string, len(plan))
		for i, hp := range plan {
			hosts[i] = hp.host
		}
		if err := o.CheckNetwork(ctx, hosts); err != nil {
			return &r.res, err
		}
	}
	for _, ex := range excluded {
		s := o.State.Source(ex.id)
		s.SetStatus(state.Excluded, r.start)
		s.Detail = ex.why
		o.State.PutSource(ex.id, s)
	}
	r.res.Planned = planned(plan)
	r.res.Due = len(r.res.Planned)
	// Finding pdftotext runs it (tens of milliseconds): not on the way to
	// the first dispatch, which needs no text.
	var engine sync.WaitGroup
	engine.Go(func() {
		if e := textview.Engine(textview.KindPDF); !strings.HasPrefix(e, "pdftotext ") {
			r.log("", "PDF text by the %s", e)
		}
	})
	defer engine.Wait()
	var wg sync.WaitGroup
	for _, hp := range plan {
		wg.Go(func() {
			if end := r.runHost(ctx, hp); end.message != "" {
				r.log(hp.host, "%s", end.message)
			}
			r.hostDone(hp.host)
		})
	}
	wg.Wait()
	r.sweep()
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, ErrFatal) {
		return &r.res, cause
	}
	return &r.res, ctx.Err()
}

// withDefaults fills in the options a run may leave out.
func withDefaults(o Options) Options {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.NewRand == nil {
		o.NewRand = func() gate.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }
	}
	if o.Spent == nil {
		o.Spent = func(host, day string) (int, error) { return o.Ledger.Dispatches(day, host) }
	}
	return o
}

// journal is where a run writes its ledger lines and reads back a day's:
// the ledger in a run, a recorder in a simulation.
type journal interface {
	Append(ledger.Line) error
	Read(day, host string) ([]ledger.Line, error)
}

func newRun(o Options, led journal, cancel context.CancelCauseFunc) *run {
	return &run{
		o:      o,
		led:    led,
		cancel: cancel,
		token:  o.Set.Policy.ProductToken(),
		start:  o.Clock.Now(),
		gates:  map[string]func() *gate.Gate{},
		robots: map[string]*robotsEntry{},
		docs:   map[string][]textview.Doc{},
	}
}

type run struct {
	o      Options
	led    journal
	cancel context.CancelCauseFunc
	token  string
	start  time.Time

	mu     sync.Mutex
	res    Result
	gates  map[string]func() *gate.Gate // made once, on first use
	robots map[string]*robotsEntry
	// unkept are blobs stored by this run and then not kept (same text);
	// docs holds, per source, where the two blobs of its last same-text
	// fetch are (not their bytes), for a view suggestion; the entry goes
	// as soon as the fetch is recorded.
	unkept []string
	docs   map[string][]textview.Doc
}

type hostPlan struct {
	host    string
	sources []manifest.Source
}

// exclusion is a source the policy's exclude list keeps out, and why.
type exclusion struct{ id, why string }

// selected says whether o's Only and Hosts take src in.
func selected(o Options, src manifest.Source) bool {
	return (o.Only == "" || o.Only == src.ID || o.Only == src.Jurisdiction) && (o.Hosts == nil || o.Hosts(src.Host))
}

// plan picks the due sources and orders each host's sources so that
// those that waited longest go first; the excluded ones come apart, with
// the reason the policy gives.
func plan(o Options, now time.Time) ([]hostPlan, []exclusion) {
	byHost := map[string][]manifest.Source{}
	var excluded []exclusion
	for _, src := range o.Set.Sources {
		if !selected(o, src) {
			continue
		}
		if ex, ok := o.Set.Policy.Excluded(src.Parsed); ok {
			excluded = append(excluded, exclusion{src.ID, "excluded at the owner's request: " + ex.Reason})
			continue
		}
		if !due(o.Store, src, o.State.Source(src.ID), now) {
			continue
		}
		byHost[src.Host] = append(byHost[src.Host], src)
	}
	hosts := make([]string, 0, len(byHost))
	for h := range byHost {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	plan := make([]hostPlan, 0, len(hosts))
	for _, h := range hosts {
		srcs := byHost[h]
		sort.SliceStable(srcs, func(i, j int) bool {
			a, b := o.State.Source(srcs[i].ID).LastCheck, o.State.Source(srcs[j].ID).LastCheck
			if !a.Equal(b) {
				return a.Before(b)
			}
			return srcs[i].ID < srcs[j].ID
		})
		plan = append(plan, hostPlan{host: h, sources: srcs})
	}
	return plan, excluded
}

// due says whether a source is due: never checked, recheck passed since the last
// good check, or last check not good.
func due(held *store.Store, src manifest.Source, s state.Source, now time.Time) bool {
	if s.LastCheck.IsZero() {
		return true
	}
	kept := s.SHA256 != "" && held.Has(s.SHA256)
	switch s.Status {
	case state.Fresh:
		if !kept {
			return true
		}
	case state.Gone, state.Moved:
	default:
		return true
	}
	if src.Never { // immutable once held
		return !kept
	}
	return !now.Before(s.LastCheck.Add(src.Recheck))
}

// gate returns the one gate of host, shared by every goroutine that sends
// to it (a redirect from another host included). It is made outside the
// run's lock: making it reads the host's ledger of the day, and the hosts'
// first requests would queue behind each other's reads.
func (r *run) gate(host string) *gate.Gate {
	r.mu.Lock()
	g, ok := r.gates[host]
	if !ok {
		g = sync.OnceValue(func() *gate.Gate { return r.newGate(host) })
		r.gates[host] = g
	}
	r.mu.Unlock()
	return g()
}

// newGate makes host's gate, with its rules and its memory of the day.
func (r *run) newGate(host string) *gate.Gate {
	// The same rules the public rules page is rendered from.
	cfg := gate.RulesFor(r.o.Set.Policy, r.o.Set.Host(host)).Config()
	cfg.Clock = r.o.Clock
	cfg.Cushion = cushion
	cfg.Rand = r.o.NewRand()
	cfg.Deadline = r.o.Deadline
	cfg.State = r.hostMemory(host)
	cfg.Spent = func(day string) (int, error) { return r.o.Spent(host, day) }
	if r.o.HostEvent != nil {
		cfg.Notify = func(e gate.Event) {
			kind := HostDispatched
			if e.Wait {
				kind = HostWaiting
			}
			r.o.HostEvent(HostEvent{Host: host, Kind: kind, At: r.o.Clock.Now(), Until: e.Until, Reason: e.Reason, Left: e.Left})
		}
	}
	cfg.Record = func(at time.Time, req gate.Request) error {
		err := r.led.Append(ledger.Line{
			Event: ledger.Dispatch, Time: at.UTC(), Host: host, URL: req.URL,
			Purpose: req.Purpose, Source: req.Source, RunID: r.o.RunID,
		})
		if err != nil {
			err = fmt.Errorf("%w: ledger unwritable, nothing sent: %w", ErrFatal, err)
			r.cancel(err)
			return err
		}
		r.count(func(res *Result) { res.Dispatches++ })
		return nil
	}
	return gate.New(cfg)
}

// hostMemory is the host's saved state, with its last dispatch taken from
// today's ledger when that is later: a run killed before saving its state
// must not let the next one send sooner than the spacing allows.
func (r *run) hostMemory(host string) state.Host {
	h := r.o.State.Host(host)
	lines, err := r.led.Read(ledger.Day(r.start), host)
	if err != nil {
		return h
	}
	for _, l := range lines {
		if l.Event == ledger.Dispatch && l.Time.After(h.LastDispatch) {
			h.LastDispatch = l.Time
		}
	}
	return h
}

// send passes one request through host's gate, sends it, reports the outcome
// to the gate, and writes the result line. get does the HTTP part. judge,
// when set, may amend what the gate and the ledger are told of an answer
// that HTTP calls a success but the caller cannot use: a robots.txt
// redirect that leads nowhere (a failure of the host, for its backoff), a
// bot challenge served with a 200 (a refusal, for the pause), a
// maintenance page (the server is down, for the backoff).
//
// ended, when set and not zero, is when the answer's body ended: the
// completion the gate counts spacing from, so that work after the body
// (the store's fsync) is not taken for the server's time.
func (r *run) send(ctx context.Context, host string, req gate.Request, get func() (*fetch.Response, error), judge func(*fetch.Response, *gate.Outcome, *ledger.Line), ended func() time.Time) (*fetch.Response, error, error) {
	g := r.gate(host)
	permit, err := g.Acquire(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	resp, ferr := get()
	out := gate.Outcome{Err: ferr}
	if ended != nil {
		out.At = ended()
	}
	if resp != nil {
		out.Status, out.RetryAfter, out.SentAt = resp.Status, resp.RetryAfter, resp.SentAt
		out.RateLimit = strings.Join(resp.Header.Values("RateLimit"), ", ")
		out.RateLimitPolicy = strings.Join(resp.Header.Values("RateLimit-Policy"), ", ")
		if ferr != nil && (errors.Is(ferr, fetch.ErrTooLarge) || errors.Is(ferr, fetch.ErrUndecodable)) {
			// The server answered: the size is our limit, and a coding
			// we cannot undo is a fault of that answer; neither is the
			// sign of a struggling host that backoff is for.
			out.Err = nil
		}
	}
	line := ledger.Line{
		Event: ledger.Result, Host: host, URL: req.URL,
		Purpose: req.Purpose, Source: req.Source, RunID: r.o.RunID,
	}
	if resp != nil && ferr == nil && judge != nil {
		judge(resp, &out, &line)
	}
	permit.Done(out)
	r.o.State.PutHost(host, g.State())
	line.Time = r.o.Clock.Now().UTC()
	if resp != nil {
		line.Status, line.Bytes, line.SHA256 = resp.Status, resp.Size, resp.SHA256
		if resp.SHA256 != "" && req.Purpose != ledger.PurposeRobots {
			line.ContentType = resp.ContentType
		}
		line.DurationMS = resp.Duration.Milliseconds()
	}
	if ferr != nil {
		line.Error = ferr.Error()
	}
	if err := r.led.Append(line); err != nil {
		err = fmt.Errorf("%w: ledger unwritable: %w", ErrFatal, err)
		r.cancel(err)
		return resp, ferr, err
	}
	return resp, ferr, nil
}

// hostDone tells HostEvent that host's turn ended, and what holds it
// back beyond the turn.
func (r *run) hostDone(host string) {
	if r.o.HostEvent == nil {
		return
	}
	now := r.o.Clock.Now()
	e := HostEvent{Host: host, Kind: HostDone, At: now, Left: -1}
	st := r.gate(host).State()
	switch {
	case st.PausedUntil.After(now):
		e.Until, e.Reason = st.PausedUntil, "paused"
	case st.BackoffUntil.After(now) && st.BackoffFromRetryAfter:
		e.Until, e.Reason = st.BackoffUntil, "retry-after"
	case st.BackoffUntil.After(now):
		e.Until, e.Reason = st.BackoffUntil, "backoff"
	case st.RateLimitUntil.After(now):
		e.Until, e.Reason = st.RateLimitUntil, "ratelimit"
	}
	r.o.HostEvent(e)
}

func (r *run) log(host, format string, args ...any) {
	if r.o.Log != nil { // no line is formatted for nobody
		r.o.Log(host, fmt.Sprintf(format, args...))
	}
}

func (r *run) count(f func(*Result)) {
	r.mu.Lock()
	f(&r.res)
	snapshot := r.res
	r.mu.Unlock()
	if r.o.Progress != nil {
		snapshot.Planned = nil
		r.o.Progress(snapshot)
	}
}

// storeSink remembers whether the body reader failed, so that storeFailed
// can blame the store only for errors that are its own, and when the body
// ended, so that the store's fsync does not count as part of the response.
type storeSink struct {
	s       *store.Store
	clock   clock.Clock
	readErr error
	ended   time.Time
	// head is the start of the body, for telling whether it is the
	// document without reading the blob back.
	head []byte
}

func (k *storeSink) Put(ctx context.Context, rd io.Reader) (string, int64, error) {
	sum, n, err := k.s.Put(ctx, &errReader{r: rd, k: k})
	return string(sum), n, err // fetch speaks hex strings; the store's type starts here
}

// PutSent keeps the bytes of an encoded answer as they were sent, beside
// the document. It runs beside Put and touches none of the sink's fields:
// a failure of the body reaches Put's reader too, where it is told.
func (k *storeSink) PutSent(ctx context.Context, rd io.Reader) (string, int64, error) {
	sum, n, err := k.s.Put(ctx, rd)
	return string(sum), n, err
}

type errReader struct {
	r io.Reader
	k *storeSink
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if room := answer.HeadSize - len(e.k.head); room > 0 {
		e.k.head = append(e.k.head, p[:min(n, room)]...)
	}
	switch {
	case err == io.EOF:
		if e.k.ended.IsZero() {
			e.k.ended = e.k.clock.Now()
		}
	case err != nil:
		e.k.readErr = err
	}
	return n, err
}

// cushion is added to every politeness wait (gate.Config.Cushion). Spacing
// is counted from when a request began to leave on its connection (the
// dial and TLS set-up are behind it, see fetch.Response.SentAt); the server
// sees it a moment later, the time its first bytes take to be written and
// read, which varies a little from one request to the next. 1 ms covers
// that with room on loopback, where 5 ms used to cover an fsync as well.
const cushion = time.Millisecond
