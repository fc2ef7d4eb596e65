package session

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
	"github.com/taxkernel/taxkernelbot/internal/escape/workflow"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

const (
	// summaryEvery is how often a log (not a terminal) gets a summary line.
	summaryEvery = 30 * time.Second
	// longWait is the shortest wait a log line announces.
	longWait = 10 * time.Second
	// liveHosts bounds the hosts the live view lists; the rest are counted.
	liveHosts = 20
)

// progress shows a run as it goes. In a log (CI, a file, a pipe) every line
// is timestamped: one per host event, one whenever a host waits longer
// than longWait (what for, until when), and a summary every summaryEvery.
// On a terminal the same event lines scroll above a live view of every
// host (done, waiting, in backoff; requests left in today's budget; next
// dispatch), redrawn in place. Time is the run's clock.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	clk   clock.Clock
	tty   bool
	last  pipeline.Result
	hosts map[string]*hostView
	// names are the hosts' names, sorted as they come: the view shows the
	// first liveHosts of them after every event, and a wide run has
	// thousands of events and a thousand hosts to sort.
	names []string
	// nextSummary is when the log's next summary line is due.
	nextSummary time.Time
	// drawn is how many lines of the live view are on the screen.
	drawn int
	// every is how often start refreshes the view while every host waits;
	// 0: never, only the run's own events do (a fake clock, which moves
	// with those events).
	every time.Duration
}

// hostView is what the live view knows of one host.
type hostView struct {
	state    string    // requesting, waiting, backoff, done
	reason   string    // what a wait is for; what holds a done host back
	until    time.Time // end of the wait, backoff or pause
	left     int       // requests left in today's budget; -1 not known yet
	requests int       // dispatched in this run
}

func newProgress(w io.Writer, clk clock.Clock, tty bool, tick time.Duration) *progress {
	return &progress{w: w, clk: clk, tty: tty, every: tick, hosts: map[string]*hostView{}, nextSummary: clk.Now().Add(summaryEvery)}
}

// start ticks the progress every p.every until the returned stop is
// called, so that a log gets its summary and a terminal its countdown
// while every host waits. With no tick it does nothing.
func (p *progress) start(ctx context.Context) (stop func()) {
	if p.every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p.clk.Sleep(ctx, p.every) == nil {
			p.tick()
		}
	}()
	return func() { cancel(); <-done }
}

// event prints one line about host (pipeline.Options.Log).
func (p *progress) event(host, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.line("%s  %s", host, msg)
	p.after()
}

// hostEvent follows what a host does (pipeline.Options.HostEvent).
func (p *progress) hostEvent(e pipeline.HostEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hosts[e.Host]
	if h == nil {
		h = &hostView{left: -1}
		p.hosts[e.Host] = h
		at, _ := slices.BinarySearch(p.names, e.Host)
		p.names = slices.Insert(p.names, at, e.Host)
	}
	if e.Left >= 0 {
		h.left = e.Left
	}
	h.state, h.reason, h.until = string(e.Kind), e.Reason, e.Until
	switch e.Kind {
	case pipeline.HostDispatched:
		h.state, h.reason, h.until = "requesting", "", time.Time{}
		h.requests++
	case pipeline.HostWaiting:
		if e.Reason != "spacing" {
			h.state = "backoff"
		}
		if wait := e.Until.Sub(e.At); wait > longWait {
			p.clear()
			p.line("%s  waits %s for %s, until %s", e.Host, roughly(wait), waitFor(e.Reason), e.Until.UTC().Format("15:04:05 UTC"))
		}
	}
	p.after()
}

// waitFor says what a gate's wait reason means.
func waitFor(reason string) string {
	switch reason {
	case "spacing":
		return "the spacing between requests (delay or Crawl-delay)"
	case "backoff":
		return "the backoff after failed requests"
	case "retry-after":
		return "the server's Retry-After"
	case "ratelimit":
		return "the server's RateLimit quota to come back"
	}
	return reason
}

// update takes the run's counts (pipeline.Options.Progress).
func (p *progress) update(r pipeline.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = r
	p.clear()
	p.after()
}

func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.after()
}

// done removes the live view so that the final lines stand alone.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// finish prints one of the run's closing lines, timestamped in a log.
func (p *progress) finish(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.line(format, args...)
}

// after ends each change: the summary line when due in a log, the live
// view on a terminal.
func (p *progress) after() {
	if p.tty {
		p.clear()
		p.draw()
		return
	}
	now := p.clk.Now()
	if now.Before(p.nextSummary) {
		return
	}
	for !now.Before(p.nextSummary) {
		p.nextSummary = p.nextSummary.Add(summaryEvery)
	}
	p.line("summary: %s; hosts: %s", p.counts(), p.hostCounts())
}

// line prints one line, with the time in front in a log and on a
// terminal (UTC there too: the ledgers and the reports are in UTC).
func (p *progress) line(format string, args ...any) {
	now := p.clk.Now().UTC()
	stamp := now.Format(time.RFC3339)
	if p.tty {
		stamp = now.Format("15:04:05")
	}
	// A line quotes hosts, URLs and what servers said: shown inert, on
	// one line, in a terminal and in a log.
	fmt.Fprintf(p.w, "%s  %s\n", stamp, workflow.Line(fmt.Sprintf(format, args...)))
}

func (p *progress) counts() string {
	r := p.last
	return fmt.Sprintf("%d/%d checked, %d request(s), %d failing, %d deferred", r.Checked, r.Due, r.Dispatches, r.Failed, r.Deferred)
}

// hostCounts says how many hosts are in each state, in a fixed order.
func (p *progress) hostCounts() string {
	n := map[string]int{}
	for _, h := range p.hosts {
		n[h.state]++
	}
	var parts []string
	for _, s := range []string{"requesting", "waiting", "backoff", "done"} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	if len(parts) == 0 {
		return "none started yet"
	}
	return strings.Join(parts, ", ")
}

// clear erases the live view from the terminal.
func (p *progress) clear() {
	if p.tty && p.drawn > 0 {
		// To the start of the view's first line, then erase to the end.
		fmt.Fprintf(p.w, "\033[%dF\033[J", p.drawn)
		p.drawn = 0
	}
}

// draw writes the live view below the event lines: the counts, then one
// line per host.
func (p *progress) draw() {
	now := p.clk.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "── %s ──\n", p.counts())
	lines := 1
	for i, name := range p.names {
		if i == liveHosts {
			fmt.Fprintf(&b, "  … and %d more host(s)\n", len(p.names)-liveHosts)
			lines++
			break
		}
		h := p.hosts[name]
		left := "-"
		if h.left >= 0 {
			left = fmt.Sprint(h.left)
		}
		fmt.Fprintf(&b, "  %-28s %-10s %4d sent %5s left today  %s\n", terminal.Text(name), h.state, h.requests, left, terminal.Text(next(h, now)))
		lines++
	}
	fmt.Fprint(p.w, b.String())
	p.drawn = lines
}

// next says when a host sends next, or what holds it back.
func next(h *hostView, now time.Time) string {
	switch {
	case h.state == "requesting":
		return "request in flight"
	case h.state == "done" && h.reason != "":
		return fmt.Sprintf("%s until %s", h.reason, h.until.UTC().Format("15:04:05 UTC"))
	case h.state == "done":
		return ""
	case h.until.IsZero():
		return ""
	}
	in := max(h.until.Sub(now), 0)
	return fmt.Sprintf("next %s (in %s, %s)", h.until.UTC().Format("15:04:05 UTC"), roughly(in), h.reason)
}
