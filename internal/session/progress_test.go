package session

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

// screen plays what a terminal shows for out: the live view's "up n
// lines, erase below" escape removes the lines it drew.
func screen(t *testing.T, out string) []string {
	t.Helper()
	shown, _ := escapetest.PlayScreen(t, out)
	return shown
}

// On a terminal, event lines scroll above a live view of every host —
// state, requests sent, what is left of today's budget, next dispatch —
// that is redrawn in place, and removed at the end.
func TestProgressTerminalView(t *testing.T) {
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	var buf bytes.Buffer
	p := newProgress(&buf, clk, true, 0)
	p.hostEvent(pipeline.HostEvent{Host: "www.gov.uk", Kind: pipeline.HostDispatched, At: start, Until: start, Left: 199})
	p.hostEvent(pipeline.HostEvent{Host: "www.ird.govt.nz", Kind: pipeline.HostDispatched, At: start, Until: start, Left: 49})
	p.update(pipeline.Result{Due: 5, Dispatches: 2})
	clk.Advance(2 * time.Second)
	p.event("www.ird.govt.nz", "nz-paye robots.txt → 503")
	p.hostEvent(pipeline.HostEvent{Host: "www.ird.govt.nz", Kind: pipeline.HostWaiting, At: clk.Now(), Until: start.Add(4 * time.Minute), Reason: "backoff", Left: 49})
	p.event("www.gov.uk", "uk-rates https://www.gov.uk/rates → 200 new sha256 0123456789ab (10 bytes)")
	p.update(pipeline.Result{Due: 5, Dispatches: 2, Checked: 1})
	p.hostEvent(pipeline.HostEvent{Host: "www.gov.uk", Kind: pipeline.HostWaiting, At: clk.Now(), Until: start.Add(7 * time.Second), Reason: "spacing", Left: 199})
	p.hostEvent(pipeline.HostEvent{Host: "www.irs.gov", Kind: pipeline.HostDone, At: clk.Now(), Left: -1})

	want := []string{
		"10:00:02  www.ird.govt.nz  nz-paye robots.txt → 503",
		"10:00:02  www.ird.govt.nz  waits 3m58s for the backoff after failed requests, until 10:04:00 UTC",
		"10:00:02  www.gov.uk  uk-rates https://www.gov.uk/rates → 200 new sha256 0123456789ab (10 bytes)",
		"── 1/5 checked, 2 request(s), 0 failing, 0 deferred ──",
		"  www.gov.uk                   waiting       1 sent   199 left today  next 10:00:07 UTC (in 5s, spacing)",
		"  www.ird.govt.nz              backoff       1 sent    49 left today  next 10:04:00 UTC (in 3m58s, backoff)",
		"  www.irs.gov                  done          0 sent     - left today  ",
	}
	if diff := cmp.Diff(want, screen(t, buf.String())); diff != "" {
		t.Fatalf("screen (-want +got):\n%s", diff)
	}
	// The countdown moves with the clock; done leaves the event lines only.
	clk.Advance(3 * time.Second)
	p.tick()
	if got := screen(t, buf.String())[4]; !strings.Contains(got, "(in 2s, spacing)") {
		t.Errorf("after 3 s the view shows %q, want the countdown at 2s", got)
	}
	p.done()
	if got := screen(t, buf.String()); len(got) != 3 {
		t.Errorf("after done the screen holds %q, want the 3 event lines", got)
	}
}

// The log's summary comes every 30 s on the real clock even while every
// host waits and nothing else happens (testing/synctest's bubble moves
// the clock; nothing sleeps for real).
func TestProgressSummaryWhileHostsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(&buf, clock.Real{}, false, time.Second)
		stop := p.start(t.Context())
		now := time.Now()
		p.hostEvent(pipeline.HostEvent{Host: "www.gov.uk", Kind: pipeline.HostWaiting, At: now, Until: now.Add(70 * time.Second), Reason: "retry-after", Left: 10})
		time.Sleep(65 * time.Second)
		synctest.Wait()
		stop()
		want := []string{
			now.UTC().Format(time.RFC3339) + "  www.gov.uk  waits 1m10s for the server's Retry-After, until " + now.Add(70*time.Second).UTC().Format("15:04:05 UTC"),
			now.Add(30*time.Second).UTC().Format(time.RFC3339) + "  summary: 0/0 checked, 0 request(s), 0 failing, 0 deferred; hosts: 1 backoff",
			now.Add(60*time.Second).UTC().Format(time.RFC3339) + "  summary: 0/0 checked, 0 request(s), 0 failing, 0 deferred; hosts: 1 backoff",
		}
		if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(buf.String()), "\n")); diff != "" {
			t.Fatalf("log (-want +got):\n%s", diff)
		}
	})
}

// TestProgressTerminalInert: on a terminal, where no guard stands between
// the run and the screen, a host's event line shows a server's escape
// sequences as text; only the live view's own redraw codes remain.
func TestProgressTerminalInert(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)), true, time.Second)
	p.hostEvent(pipeline.HostEvent{Host: "evil.example\x1b]0;title\x07", Kind: pipeline.HostDispatched})
	p.event("evil.example", "t-a → HTTP 503 (Retry-After: 1 \x1b[2J\x1b[H\x1b[31m)\n::error::x")
	p.done()
	own := regexp.MustCompile("\x1b\\[[0-9]+F\x1b\\[J")
	if c := escapetest.Controls(own.ReplaceAllString(b.String(), "")); len(c) > 0 {
		t.Errorf("control characters on the terminal: %q\n%q", c, b.String())
	}
	if !strings.Contains(b.String(), `\x1b[2J`) {
		t.Errorf("the escape is not shown:\n%q", b.String())
	}
}

// wallClock is the real clock under another type, as a caller may wrap it.
type wallClock struct{ clock.Real }

// TestProgressTicksOnAnyClockGivenATick: the summary of a waiting run
// comes from the tick the run asks for, whatever type its clock is.
func TestProgressTicksOnAnyClockGivenATick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(&buf, wallClock{}, false, time.Second)
		stop := p.start(t.Context())
		now := time.Now()
		p.hostEvent(pipeline.HostEvent{Host: "www.gov.uk", Kind: pipeline.HostWaiting, At: now, Until: now.Add(70 * time.Second), Reason: "spacing", Left: 10})
		time.Sleep(35 * time.Second)
		synctest.Wait()
		stop()
		if !strings.Contains(buf.String(), "summary:") {
			t.Fatalf("no summary after 35 s of waiting:\n%s", buf.String())
		}
	})
}

// TestProgressTerminalViewListsTheFirstHostsByName: however the hosts
// come, the view lists the first liveHosts by name and counts the rest.
func TestProgressTerminalViewListsTheFirstHostsByName(t *testing.T) {
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	p := newProgress(&buf, clock.NewFake(start), true, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(50) {
		p.hostEvent(pipeline.HostEvent{Host: fmt.Sprintf("h%02d.example", i), Kind: pipeline.HostDispatched, At: start, Left: 9})
	}
	shown := screen(t, buf.String())
	if len(shown) != 1+liveHosts+1 {
		t.Fatalf("the view has %d lines, want %d:\n%s", len(shown), 1+liveHosts+1, strings.Join(shown, "\n"))
	}
	for i := range liveHosts {
		if want := fmt.Sprintf("h%02d.example", i); !strings.HasPrefix(strings.TrimSpace(shown[1+i]), want) {
			t.Errorf("line %d is %q, want host %s", 1+i, shown[1+i], want)
		}
	}
	if last := shown[len(shown)-1]; !strings.Contains(last, "and 30 more host(s)") {
		t.Errorf("last line %q, want the 30 others counted", last)
	}
}

// BenchmarkProgressWideRun is what the live view costs a wide run: 1,000
// hosts, each dispatched, waiting, dispatched again and done, with the
// counts updated after each request, on a terminal.
//
//	go test -run '^$' -bench ProgressWideRun -benchmem ./internal/session
func BenchmarkProgressWideRun(b *testing.B) {
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	hosts := make([]string, 1000)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("h%04d.example", (i*7919)%1000)
	}
	for b.Loop() {
		p := newProgress(io.Discard, clock.NewFake(start), true, 0)
		var res pipeline.Result
		for _, kind := range []pipeline.HostEventKind{pipeline.HostDispatched, pipeline.HostWaiting, pipeline.HostDispatched, pipeline.HostDone} {
			for _, h := range hosts {
				p.hostEvent(pipeline.HostEvent{Host: h, Kind: kind, At: start, Until: start.Add(time.Second), Reason: "spacing", Left: 9})
				if kind == pipeline.HostDispatched {
					res.Dispatches++
					p.update(res)
				}
			}
		}
	}
}
