package cli

// End-to-end tests of SPEC §3, one (or more) per rule, measured from the
// servers' side: `taxkernelbot run` against scripted loopback authorities.

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

var ctx = context.Background()

func TestRule31IdentityGETOnlyNoCookies(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nAllow: /\n"),
		"/a": func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "x"})
			fmt.Fprint(w, "a")
		},
		"/b": text("b"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-a", a.url("/a"), ""}, src{"t-b", a.url("/b"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, w.out.String())
	}
	reqs := a.seen()
	if len(reqs) != 3 {
		t.Fatalf("server saw %v, want robots.txt, /a, /b", a.paths())
	}
	for _, r := range reqs {
		if r.Method != http.MethodGet {
			t.Errorf("%s %s: only GET is allowed", r.Method, r.Path)
		}
		if got := r.Header.Get("User-Agent"); got != "TaxKernelBot/1.0 (+https://taxkernel.com/bot)" {
			t.Errorf("%s: User-Agent %q", r.Path, got)
		}
		if got := r.Header.Get("From"); got != "contact@taxkernel.com" {
			t.Errorf("%s: From %q", r.Path, got)
		}
		for _, h := range []string{"Cookie", "Authorization", "Referer", "Accept-Encoding"} {
			if v := r.Header.Get(h); v != "" {
				t.Errorf("%s: sent %s: %q", r.Path, h, v)
			}
		}
	}
}

func TestRule32RobotsDisallowedNeverRequested(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nDisallow: /\n\nUser-agent: TaxKernelBot\nDisallow: /private/\nAllow: /\n"),
		"/public":     text("ok"),
		"/private/x":  text("secret"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-public", a.url("/public"), ""}, src{"t-private", a.url("/private/x"), ""})
	w.run(ctx)
	if n := a.count("/private/x"); n != 0 {
		t.Fatalf("disallowed URL requested %d times", n)
	}
	if got := w.status("t-private"); got != "blocked-robots" {
		t.Errorf("t-private: %s, want blocked-robots", got)
	}
	// Our own group beats "*", which disallows everything.
	if got := w.status("t-public"); got != "fresh" {
		t.Errorf("t-public: %s, want fresh (the TaxKernelBot group allows it)", got)
	}
}

func TestRule32RobotsOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		robots http.HandlerFunc
		want   string
		docs   int
	}{
		{"404 means no robots.txt", status(404), "fresh", 1},
		{"401 means no robots.txt", status(401), "fresh", 1},
		{"503 disallows the host", status(503), "robots-unavailable", 0},
		{"500 disallows the host", status(500), "robots-unavailable", 0},
		{"429 disallows the host", status(429), "robots-unavailable", 0},
		{"redirect is followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/real-robots.txt", http.StatusMovedPermanently)
		}, "blocked-robots", 0},
		{"more than five redirects disallow", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/robots.txt", http.StatusFound)
		}, "robots-unavailable", 0},
		{"a dropped connection disallows", func(w http.ResponseWriter, r *http.Request) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, "robots-unavailable", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuthority(t, map[string]http.HandlerFunc{
				"/robots.txt":      tc.robots,
				"/real-robots.txt": text("User-agent: taxkernelbot\nDisallow: /doc\n"),
				"/doc":             text("document"),
			})
			w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""}, src{"t-doc2", a.url("/doc?2"), ""})
			w.run(ctx)
			if got := w.status("t-doc"); got != tc.want {
				t.Errorf("status %s, want %s\n%s", got, tc.want, w.out.String())
			}
			docs := a.count("/doc") + a.count("/doc?2")
			if docs != tc.docs*2 {
				t.Errorf("documents requested %d times, want %d (server saw %v)", docs, tc.docs*2, a.paths())
			}
			if robots := len(a.paths()) - docs; robots > 6 {
				t.Errorf("robots.txt requested %d times in one run", robots)
			}
		})
	}
}

func TestRule32RobotsFetchedOncePerTTL(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nAllow: /\n"), "/doc": text("d")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	start := time.Now()
	fake := clock.NewFake(start)
	w.clock = fake
	w.run(ctx)
	fake.Advance(time.Hour)
	w.run(ctx)
	if n := a.count("/robots.txt"); n != 1 {
		t.Fatalf("robots.txt fetched %d times within robots_ttl, want 1", n)
	}
	fake.Advance(24 * time.Hour)
	w.run(ctx)
	if n := a.count("/robots.txt"); n != 2 {
		t.Fatalf("robots.txt fetched %d times after robots_ttl passed, want 2", n)
	}
	if n := a.count("/doc"); n != 3 {
		t.Fatalf("document fetched %d times over 3 runs, want 3", n)
	}
}

func TestRule32RobotsCheckedOnRedirectHop(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
		"/old": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/private/new", http.StatusMovedPermanently)
		},
		"/private/new": text("should never be read"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-old", a.url("/old"), ""})
	w.run(ctx)
	if n := a.count("/private/new"); n != 0 {
		t.Fatalf("redirect hop to a disallowed URL was requested")
	}
	if got := w.status("t-old"); got != "blocked-robots" {
		t.Fatalf("status %s, want blocked-robots", got)
	}
}

func TestRule32CrawlDelayLongerThanDelayIsTheDelay(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nCrawl-delay: 0.2\n"),
		"/1":          text("1"), "/2": text("2"), "/3": text("3"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-1", a.url("/1"), ""}, src{"t-2", a.url("/2"), ""}, src{"t-3", a.url("/3"), ""})
	// On a fake clock the gaps are the gate's decisions exactly: the
	// servers' own view (real time) is BenchmarkPolitenessOverhead's.
	w.clock = clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	w.run(ctx)
	if len(a.seen()) != 4 {
		t.Fatalf("server saw %v", a.paths())
	}
	d := w.dispatchTimes(a.host())
	for i := 2; i < len(d); i++ { // the first gap precedes the parse of Crawl-delay
		if g := d[i].Sub(d[i-1]); g < 200*time.Millisecond {
			t.Errorf("gap %d between documents = %v, want ≥ the 200ms Crawl-delay", i-1, g)
		}
	}
}

func TestRule33OneRequestAtATimePerHost(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(w, r.URL.Path)
	}
	var srcs []src
	var auths []*authority
	for h := range 3 {
		a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": slow})
		auths = append(auths, a)
		for i := range 4 {
			srcs = append(srcs, src{fmt.Sprintf("t-h%d-%d", h, i), a.url(fmt.Sprintf("/doc%d", i)), ""})
		}
	}
	w := newWorkspace(t, testPolicy, "", srcs...)
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, w.out.String())
	}
	for _, a := range auths {
		if a.maxIn != 1 {
			t.Errorf("%s had %d requests in flight at once, want 1", a.host(), a.maxIn)
		}
		if n := len(a.seen()); n != 5 {
			t.Errorf("%s saw %d requests, want 5", a.host(), n)
		}
	}
}

func TestRule34SpacingFromDispatchAndFromCompletion(t *testing.T) {
	const min = 40 * time.Millisecond
	fake := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	slowOnce := atomic.Bool{}
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			if !slowOnce.Swap(true) {
				fake.Advance(150 * time.Millisecond) // longer than delay.max
			}
			fmt.Fprint(w, "slow")
		},
		"/a": text("a"), "/b": text("b"),
	})
	pol := strings.Replace(testPolicy, "delay: {min: 5ms, max: 10ms}", "delay: {min: 40ms, max: 60ms}", 1)
	w := newWorkspace(t, pol, "", src{"t-1-slow", a.url("/slow"), ""}, src{"t-2-a", a.url("/a"), ""}, src{"t-3-b", a.url("/b"), ""})
	// The fake clock makes the gaps exact: what the gate decided, from the
	// ledger's dispatch and result times.
	w.clock = fake
	w.run(ctx)
	if len(a.seen()) != 4 {
		t.Fatalf("server saw %v", a.paths())
	}
	var dispatched, completed []time.Time
	for _, l := range w.ledgerLines() {
		switch l.Event {
		case ledger.Dispatch:
			dispatched = append(dispatched, l.Time)
		case ledger.Result:
			completed = append(completed, l.Time)
		}
	}
	for i := 1; i < len(dispatched); i++ {
		if g := dispatched[i].Sub(dispatched[i-1]); g < min {
			t.Errorf("dispatch gap %d = %v, want ≥ delay.min %v", i, g, min)
		}
		// The slow answer must not let the next request go at once.
		if g := dispatched[i].Sub(completed[i-1]); g < min {
			t.Errorf("gap %d after completion = %v, want ≥ delay.min %v", i, g, min)
		}
	}
	if g := dispatched[2].Sub(dispatched[1]); g < 150*time.Millisecond+min {
		t.Errorf("after the 150ms answer the next dispatch came %v later, want ≥ 150ms + delay.min", g)
	}
}

func TestRule35DailyCapCountedOnDispatchAcrossRuns(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": status(500)})
	pol := strings.Replace(testPolicy, "daily_cap: 100", "daily_cap: 4", 1)
	var srcs []src
	for i := range 6 {
		srcs = append(srcs, src{fmt.Sprintf("t-%d", i), a.url(fmt.Sprintf("/doc%d", i)), ""})
	}
	w := newWorkspace(t, pol, "", srcs...)
	w.run(ctx)
	w.run(ctx) // same UTC day: nothing left
	if n := len(a.seen()); n != 4 {
		t.Fatalf("server saw %d requests over two runs, cap is 4 (robots and failures count): %v", n, a.paths())
	}
	if n := w.dispatches(a.host()); n != 4 {
		t.Fatalf("ledger has %d dispatch lines, want 4", n)
	}
	pending := 0
	for _, e := range w.report() {
		if e.Status == state.Pending {
			pending++
		}
	}
	if pending != 3 {
		t.Fatalf("%d sources pending (deferred), want 3", pending)
	}
}

func TestRule35LedgerLineDurableBeforeRequest(t *testing.T) {
	var w *workspace
	var sawLine atomic.Bool
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404)})
	a.srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		for _, l := range w.ledgerLines() {
			if l.Event == ledger.Dispatch && strings.HasSuffix(l.URL, r.URL.Path) {
				sawLine.Store(true)
			}
		}
		fmt.Fprint(rw, "x")
	})
	w = newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	w.run(ctx)
	if !sawLine.Load() {
		t.Fatal("the server received a request before its dispatch line was in the ledger")
	}
}

func TestRule36ConditionalRequests(t *testing.T) {
	const etag, lastMod = `"v1"`, "Mon, 06 Apr 2026 00:00:00 GMT"
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/doc": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", etag)
			w.Header().Set("Last-Modified", lastMod)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, "rates")
		},
		"/same": text("same bytes"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""}, src{"t-same", a.url("/same"), ""})
	w.run(ctx)
	first := w.report()["t-doc"]
	indexBefore, _ := os.ReadFile(w.indexPath())
	w.run(ctx)
	var cond []seen
	for _, s := range a.seen() {
		if s.Path == "/doc" {
			cond = append(cond, s)
		}
	}
	if len(cond) != 2 {
		t.Fatalf("server saw %v", a.paths())
	}
	if cond[0].Header.Get("If-None-Match") != "" {
		t.Error("first request carried validators it could not have")
	}
	if got := cond[1].Header.Get("If-None-Match"); got != etag {
		t.Errorf("re-check If-None-Match = %q, want %q", got, etag)
	}
	if got := cond[1].Header.Get("If-Modified-Since"); got != lastMod {
		t.Errorf("re-check If-Modified-Since = %q, want %q", got, lastMod)
	}
	second := w.report()["t-doc"]
	if second.Status != "fresh" || second.SHA256 != first.SHA256 || !cmp.Equal(second, first) {
		t.Errorf("after 304: %+v, want the entry unchanged (fresh, held hash %s)", second, first.SHA256)
	}
	results := 0
	for _, l := range w.ledgerLines() {
		if l.Event == ledger.Result && l.Status == 304 && strings.HasSuffix(l.URL, "/doc") {
			results++
		}
	}
	if results != 1 {
		t.Errorf("ledger has %d result lines with status 304, want 1", results)
	}
	// A 200 with the same bytes is unchanged too: the index does not grow.
	if indexAfter, _ := os.ReadFile(w.indexPath()); !bytes.Equal(indexBefore, indexAfter) {
		t.Errorf("index changed on a run where nothing changed:\n%s\n→\n%s", indexBefore, indexAfter)
	}
	// Validators are only sent while their bytes are held.
	must(t, os.RemoveAll(filepath.Join(w.Snapshots, "sha256")))
	w.run(ctx)
	last := a.seen()
	var third seen
	for _, s := range last {
		if s.Path == "/doc" {
			third = s
		}
	}
	if third.Header.Get("If-None-Match") != "" || third.Header.Get("If-Modified-Since") != "" {
		t.Error("validators sent although their bytes are no longer in the store")
	}
}

func TestRule37BackoffDefersPastDeadlineAndOutlivesRun(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-1", a.url("/1"), ""}, src{"t-2", a.url("/2"), ""})
	code := w.run(ctx, func(o *runOptions) { o.MaxDuration = 5 * time.Second })
	if code != ExitFailures {
		t.Errorf("exit %d, want 1 (failures recorded)", code)
	}
	if n := len(a.seen()); n != 2 {
		t.Fatalf("server saw %v: after a 503 with Retry-After 3600 the host must be deferred, not retried", a.paths())
	}
	st, err := state.Load(w.State)
	must(t, err)
	h := st.Host(a.host())
	if h.Failures != 1 || time.Until(h.BackoffUntil) < 59*time.Minute {
		t.Fatalf("host state %+v: want 1 failure and a backoff of about an hour kept for the next run", h)
	}
	if got := w.status("t-2"); got != "pending" {
		t.Errorf("t-2: %s, want pending (deferred, not failed)", got)
	}
	w.run(ctx)
	if n := len(a.seen()); n != 2 {
		t.Fatalf("the next run ignored the kept backoff: server saw %v", a.paths())
	}
}

func TestRule37GoneIsNotAFailure(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/404": status(404), "/410": status(410), "/ok": text("ok")})
	w := newWorkspace(t, testPolicy, "", src{"t-a", a.url("/404"), ""}, src{"t-b", a.url("/410"), ""}, src{"t-c", a.url("/ok"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Errorf("exit %d, want 0: gone is information, not failure", code)
	}
	for _, id := range []string{"t-a", "t-b"} {
		if got := w.status(id); got != "gone" {
			t.Errorf("%s: %s, want gone", id, got)
		}
	}
	st, _ := state.Load(w.State)
	if h := st.Host(a.host()); h.Failures != 0 || !h.BackoffUntil.IsZero() {
		t.Fatalf("404/410 caused backoff: %+v", h)
	}
}

func TestRule38PauseAfterRepeated403(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": status(403)})
	var srcs []src
	for i := range 5 {
		srcs = append(srcs, src{fmt.Sprintf("t-%d", i), a.url(fmt.Sprintf("/%d", i)), ""})
	}
	w := newWorkspace(t, testPolicy, "", srcs...)
	w.run(ctx)
	if n := len(a.seen()); n != 4 { // robots.txt + three 403s
		t.Fatalf("server saw %v, want robots.txt and 3 documents", a.paths())
	}
	for _, s := range srcs {
		if got := w.status(s.id); got != "paused" {
			t.Errorf("%s: %s, want paused", s.id, got)
		}
	}
	w.run(ctx)
	if n := len(a.seen()); n != 4 {
		t.Fatalf("a paused host was requested again the same day: %v", a.paths())
	}
}

func TestRule39OffPeakWindows(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/doc": text("d")})
	hosts := fmt.Sprintf("hosts:\n  %q:\n    off_peak: [\"Sat-Sun\"]\n    timezone: Europe/London\n", a.host())
	w := newWorkspace(t, testPolicy, hosts, src{"t-doc", a.url("/doc"), ""})
	monday := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	w.clock = clock.NewFake(monday)
	w.run(ctx)
	if n := len(a.seen()); n != 0 {
		t.Fatalf("host requested outside its off-peak windows: %v", a.paths())
	}
	if got := w.status("t-doc"); got != "pending" {
		t.Fatalf("status %s, want pending (deferred)", got)
	}
	w.clock = clock.NewFake(monday.Add(-36 * time.Hour)) // Saturday 23:00 London
	w.run(ctx)
	if n := a.count("/doc"); n != 1 {
		t.Fatalf("document not fetched inside the window: %v", a.paths())
	}
}

func TestRule310Redirects(t *testing.T) {
	other := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/listed": text("listed"), "/unlisted": text("x")})
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/same": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/final", http.StatusMovedPermanently)
		},
		"/final": text("final"),
		"/to-listed": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.url("/listed"), http.StatusFound)
		},
		"/to-unlisted": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.url("/unlisted"), http.StatusFound)
		},
		"/loop": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) },
	})
	w := newWorkspace(t, testPolicy, "",
		src{"t-same", a.url("/same"), ""}, src{"t-to-listed", a.url("/to-listed"), ""},
		src{"t-to-unlisted", a.url("/to-unlisted"), ""}, src{"t-listed", other.url("/listed"), ""},
		src{"t-loop", a.url("/loop"), ""})
	w.run(ctx)
	rep := w.report()
	if e := rep["t-same"]; e.Status != "fresh" || e.FinalURL != a.url("/final") {
		t.Errorf("same-host redirect: %+v, want fresh with final_url /final", e)
	}
	if e := rep["t-to-listed"]; e.Status != "fresh" || e.FinalURL != other.url("/listed") {
		t.Errorf("redirect to a listed URL: %+v, want fresh", e)
	}
	if e := rep["t-to-unlisted"]; e.Status != "moved" || !strings.Contains(e.Detail, other.url("/unlisted")) {
		t.Errorf("redirect to an unlisted URL: %+v, want moved naming the target", e)
	}
	if other.count("/unlisted") != 0 {
		t.Error("unlisted cross-host redirect target was requested")
	}
	if e := rep["t-loop"]; e.Status != "failing" || a.count("/loop") != 6 {
		t.Errorf("redirect loop: %+v after %d requests, want failing after 6 (5 hops)", e, a.count("/loop"))
	}
	redirects := 0
	for _, l := range w.ledgerLines() {
		if l.Event == ledger.Dispatch && l.Purpose == ledger.PurposeRedirect {
			redirects++
		}
	}
	if redirects != 1+1+5 {
		t.Errorf("%d redirect dispatch lines, want 7: every hop is gated and counted", redirects)
	}
}

func TestRule311BodyLimitAndDecoding(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("tax "), 100))
	zw.Close()
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/big":        text(strings.Repeat("x", 65*1024)),
		"/gz": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-big", a.url("/big"), ""}, src{"t-gz", a.url("/gz"), ""})
	w.run(ctx)
	if got := w.status("t-big"); got != "too-large" {
		t.Errorf("t-big: %s, want too-large", got)
	}
	e := w.report()["t-gz"]
	blob, err := os.ReadFile(filepath.Join(w.Snapshots, "sha256", e.SHA256[:2], e.SHA256))
	must(t, err)
	if !bytes.Equal(blob, bytes.Repeat([]byte("tax "), 100)) {
		t.Error("the document held is not the page under the gzip the server sent")
	}
	sent := sha256.Sum256(gz.Bytes())
	if _, err := os.Stat(filepath.Join(w.Snapshots, "sha256", hex.EncodeToString(sent[:1]), hex.EncodeToString(sent[:]))); err != nil {
		t.Errorf("the gzip bytes as sent are not kept: %v", err)
	}
	blobs, _ := filepath.Glob(filepath.Join(w.Snapshots, "sha256", "*", "*"))
	if len(blobs) != 2 {
		t.Errorf("store holds %v, want the document and its bytes as sent (no partial body)", blobs)
	}
}

func TestRule311DialGuardWithoutTestSwitch(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/": text("x")})
	pol := strings.Replace(testPolicy, "allow_private_networks: true", "allow_private_networks: false", 1)
	pol = strings.Replace(pol, "delay: {min: 5ms, max: 10ms}", "delay: {min: 1s, max: 1s}", 1)
	pol += "reasons: {delay: \"the floor, to keep the test short (loopback only)\", backoff_max: \"loopback only\"}\n"
	w := newWorkspace(t, pol, "", src{"t-doc", a.url("/doc"), ""})
	w.run(ctx)
	if n := len(a.seen()); n != 0 {
		t.Fatalf("a loopback server was reached without allow_private_networks: %v", a.paths())
	}
	if got := w.status("t-doc"); got != "robots-unavailable" {
		t.Fatalf("status %s, want robots-unavailable (robots.txt unreachable)", got)
	}
}

func TestRule313InterruptLeavesEverythingWhole(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/first":      text("first"),
		"/stall": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(strings.Repeat("half", 1000)))
			w.(http.Flusher).Flush()
			cancel() // SIGTERM arrives mid-body
			<-r.Context().Done()
		},
		"/never": text("never"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-1", a.url("/first"), ""}, src{"t-2", a.url("/stall"), ""}, src{"t-3", a.url("/never"), ""})
	w.run(ctx)
	if a.count("/never") != 0 {
		t.Error("a new dispatch was made after the interruption")
	}
	blobs, _ := filepath.Glob(filepath.Join(w.Snapshots, "sha256", "*", "*"))
	if len(blobs) != 1 {
		t.Errorf("store holds %v, want exactly the first document (no partial blob)", blobs)
	}
	leftovers, _ := filepath.Glob(filepath.Join(w.Snapshots, "sha256", "*", ".tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temp files left behind: %v", leftovers)
	}
	w.ledgerLines() // fails on any corrupt line
	if got := w.status("t-1"); got != "fresh" {
		t.Errorf("t-1: %s, want fresh (saved despite the interruption)", got)
	}
}

func TestRule312DueAndOrder(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	pol := strings.Replace(testPolicy, "daily_cap: 100", "daily_cap: 3", 1)
	w := newWorkspace(t, pol, "", src{"t-a", a.url("/a"), ""}, src{"t-b", a.url("/b"), ""}, src{"t-c", a.url("/c"), ""}, src{"t-d", a.url("/d"), ""})
	fake := clock.NewFake(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	w.clock = fake
	w.run(ctx)                   // robots + a, b
	fake.Advance(23 * time.Hour) // the next UTC day, robots.txt still kept
	w.run(ctx)                   // c and d waited longest, then a
	got := slices.DeleteFunc(a.paths(), func(p string) bool { return p == "/robots.txt" })
	want := []string{"/a", "/b", "/c", "/d", "/a"}
	if !slices.Equal(got, want) {
		t.Fatalf("request order %v, want %v: the sources that waited longest go first", got, want)
	}
}

func TestDryRunMakesNoRequest(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	if code := w.run(ctx, func(o *runOptions) { o.DryRun = true }); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if len(a.seen()) != 0 {
		t.Fatal("dry run made a request")
	}
	if !strings.Contains(w.out.String(), a.url("/doc")) {
		t.Errorf("dry run did not print its plan:\n%s", w.out.String())
	}
	if _, err := os.Stat(w.State); !os.IsNotExist(err) {
		t.Errorf("dry run wrote the state directory")
	}
}

func TestQuietRerunLeavesReportsByteIdentical(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/doc": text("same")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	w.run(ctx)
	j1, _ := os.ReadFile(filepath.Join(w.Reports, "coverage.json"))
	m1, _ := os.ReadFile(filepath.Join(w.Reports, "coverage.md"))
	i1, _ := os.ReadFile(w.indexPath())
	w.run(ctx)
	j2, _ := os.ReadFile(filepath.Join(w.Reports, "coverage.json"))
	m2, _ := os.ReadFile(filepath.Join(w.Reports, "coverage.md"))
	i2, _ := os.ReadFile(w.indexPath())
	if a.count("/doc") != 2 {
		t.Fatalf("the document was not re-checked: %v", a.paths())
	}
	if !bytes.Equal(j1, j2) || !bytes.Equal(m1, m2) || !bytes.Equal(i1, i2) {
		t.Fatal("a run with nothing changed changed coverage.json, coverage.md or index.json")
	}
}

func TestInvalidManifestsExit2WithoutRequest(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), "    colour: blue\n"})
	if code := w.run(ctx); code != ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, w.out.String())
	}
	if len(a.seen()) != 0 {
		t.Fatal("a request was made with invalid manifests")
	}
	if !strings.Contains(w.out.String(), "test.yaml:") {
		t.Errorf("no file:line in the error output:\n%s", w.out.String())
	}
}

func TestExcludedSourceNeverRequested(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	pol := testPolicy + fmt.Sprintf("exclude:\n  - {host: %q, path: /private/, reason: \"owner request 2026-11-01\"}\n", a.host())
	w := newWorkspace(t, pol, "", src{"t-ok", a.url("/ok"), ""}, src{"t-ex", a.url("/private/doc"), ""})
	w.run(ctx)
	if a.count("/private/doc") != 0 {
		t.Fatal("excluded URL requested")
	}
	e := w.report()["t-ex"]
	if e.Status != "excluded" || !strings.Contains(e.Detail, "owner request 2026-11-01") {
		t.Fatalf("excluded source: %+v", e)
	}
}

func TestRobotsOverrideIsRecorded(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nDisallow: /\n"), "/doc": text("x")})
	hosts := fmt.Sprintf("hosts:\n  %q:\n    robots_override:\n      permission: \"email from the webmaster, 2026-10-01, ref 4411\"\n      delay: {min: 10ms, max: 20ms}\n", a.host())
	w := newWorkspace(t, testPolicy, hosts, src{"t-doc", a.url("/doc"), ""})
	w.run(ctx)
	e := w.report()["t-doc"]
	if e.Status != "fresh" || !strings.Contains(e.Detail, "ref 4411") {
		t.Fatalf("overridden source: %+v, want fresh with the permission in detail", e)
	}
}

func TestRule34SpacingHoldsAfterAKilledRun(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	pol := strings.Replace(testPolicy, "delay: {min: 5ms, max: 10ms}", "delay: {min: 300ms, max: 300ms}", 1)
	w := newWorkspace(t, pol, "", src{"t-a", a.url("/a"), ""})
	// A fake clock that only moves when the gate waits: a second run that
	// forgot the first one's last dispatch would send at once.
	w.clock = clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	w.run(ctx)
	// The run was killed before saving its state: only the ledger survives.
	must(t, os.Remove(filepath.Join(w.State, "state.json")))
	w.run(ctx)
	if len(a.seen()) != 4 { // the robots.txt copy was lost with the state, so it is fetched again
		t.Fatalf("server saw %v, want robots.txt and /a twice", a.paths())
	}
	d := w.dispatchTimes(a.host())
	if gap := d[2].Sub(d[1]); gap < 300*time.Millisecond {
		t.Fatalf("first request of the next run came %v after the last one, want ≥ 300ms", gap)
	}
}

func TestRule312RecheckZeroAndNever(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "",
		src{"t-always", a.url("/always"), ""},
		src{"t-gazette", a.url("/gazette"), ""})
	// Rewrite the generated recheck lines: 0s for one, never for the other.
	p := filepath.Join(w.Manifests, "test.yaml")
	data, _ := os.ReadFile(p)
	parts := strings.SplitN(string(data), "recheck: 1ms", 3)
	// recheck: never is only for kinds that cannot change.
	gazette := strings.Replace(parts[1], "kind: rates-page", "kind: gazette", 1)
	must(t, os.WriteFile(p, []byte(parts[0]+"recheck: 0s"+gazette+"recheck: never"+parts[2]), 0o644))
	w.run(ctx)
	w.run(ctx)
	if got := a.count("/always"); got != 2 {
		t.Errorf("recheck 0s: fetched %d times in two runs, want 2", got)
	}
	if got := a.count("/gazette"); got != 1 {
		t.Errorf("recheck never: fetched %d times in two runs, want 1 (immutable once held)", got)
	}
}

func TestRule32LargeRobotsTxtParsedPastMaxBody(t *testing.T) {
	// 490 KiB of comments, then the rule: RFC 9309 asks for at least 500 KiB
	// to be parsed, whatever max_body (64 KiB here) says of documents.
	body := strings.Repeat("# padding line of a large robots.txt\n", 490*1024/37) + "User-agent: *\nDisallow: /late/\n"
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text(body), "/ok": text("ok"), "/late/x": text("no")})
	w := newWorkspace(t, testPolicy, "", src{"t-ok", a.url("/ok"), ""}, src{"t-late", a.url("/late/x"), ""})
	w.run(ctx)
	if got := w.status("t-ok"); got != "fresh" {
		t.Errorf("t-ok: %s, want fresh (a robots.txt over max_body is still read)", got)
	}
	if got := w.status("t-late"); got != "blocked-robots" || a.count("/late/x") != 0 {
		t.Errorf("t-late: %s after %d requests, want blocked-robots: the rule at 490 KiB applies", got, a.count("/late/x"))
	}
}

// TestRule312RecheckDoesNotDrift: under hourly runs, a source with
// recheck 24h is fetched once a day, by the same run each day, for 30
// days: the check is stamped with the start of the run that made it, so
// the time a run takes never pushes the next check to the next run.
func TestRule312RecheckDoesNotDrift(t *testing.T) {
	t.Parallel()
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-daily", a.url("/daily"), ""})
	p := filepath.Join(w.Manifests, "test.yaml")
	data, _ := os.ReadFile(p)
	must(t, os.WriteFile(p, []byte(strings.Replace(string(data), "recheck: 1ms", "recheck: 24h", 1)), 0o644))
	start := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	var hours []int
	for h := range 30 * 24 {
		at := start.Add(time.Duration(h) * time.Hour)
		w.clock = clock.NewFake(at)
		before := a.count("/daily")
		w.run(ctx)
		if a.count("/daily") > before {
			hours = append(hours, at.Hour())
		}
	}
	if len(hours) != 30 {
		t.Fatalf("fetched %d times in 30 days of hourly runs, want 30", len(hours))
	}
	for i, h := range hours {
		if h != 6 {
			t.Fatalf("day %d's check was made by the %02d:00 run, want 06:00 every day (drift): %v", i+1, h, hours)
		}
	}
}

// TestDryRunPlanIsWhatTheRunDoes: the plan a dry run prints (requests,
// robots.txt included, in order, host by host, and what it defers and
// why) is what the run then does on the same state: a host held by its
// cap, one outside its off-peak window, one in backoff past the run's end,
// one fetched whole, and a source not due yet.
func TestDryRunPlanIsWhatTheRunDoes(t *testing.T) {
	capped := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	closed := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	backedOff := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}})
	open := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	hosts := fmt.Sprintf("hosts:\n  %q:\n    daily_cap: 4\n  %q:\n    off_peak: [\"Sat-Sun\"]\n    timezone: Europe/London\n", capped.host(), closed.host())
	var srcs []src
	for i := range 5 {
		srcs = append(srcs, src{fmt.Sprintf("t-cap-%d", i), capped.url(fmt.Sprintf("/%d", i)), ""})
	}
	srcs = append(srcs, src{"t-closed", closed.url("/c"), ""}, src{"t-backoff", backedOff.url("/b"), ""},
		src{"t-open-1", open.url("/1"), ""}, src{"t-open-2", open.url("/2"), "    recheck: 24h\n"})
	w := newWorkspace(t, testPolicy, hosts, srcs...)
	p := filepath.Join(w.Manifests, "test.yaml")
	data, _ := os.ReadFile(p)
	must(t, os.WriteFile(p, []byte(strings.Replace(string(data), "recheck: 1ms\n    recheck: 24h", "recheck: 24h", 1)), 0o644))
	monday := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

	// Yesterday's run: t-open-2 is fresh (not due for a day), the 503 host
	// is in backoff; reset what the servers saw.
	w.clock = clock.NewFake(monday.Add(-time.Minute))
	w.run(ctx, func(o *runOptions) { o.Only = "t-open-2" })
	w.run(ctx, func(o *runOptions) { o.Only = "t-backoff" })
	for _, a := range []*authority{capped, closed, backedOff, open} {
		a.reset()
	}

	w.clock = clock.NewFake(monday)
	w.out.Reset()
	dry := func(o *runOptions) { o.DryRun = true; o.MaxDuration = time.Minute }
	if code := w.run(ctx, dry); code != ExitOK {
		t.Fatalf("dry run: exit %d\n%s", code, w.out.String())
	}
	plan := w.out.String()
	t.Logf("the plan:\n%s", plan)
	planned := map[string][]string{}
	host := ""
	for _, line := range strings.Split(plan, "\n") {
		if h, _, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, " ") && strings.Contains(line, "request(s), about") {
			host = h
			continue
		}
		if f := strings.Fields(line); len(f) >= 4 && strings.HasPrefix(f[0], "+") {
			u, _ := url.Parse(f[len(f)-1])
			planned[host] = append(planned[host], u.Path)
		}
	}
	for _, want := range []string{
		"t-cap-3: daily cap of 4 reached", "t-closed: outside its off-peak windows until 2026-12-05 00:00 GMT",
		"t-backoff: retry-after until 2026-11-30 12:59 UTC, past this run's end", "t-open-2: not due until 2026-12-01 11:59 UTC",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan does not say %q", want)
		}
	}
	w.clock = clock.NewFake(monday)
	w.run(ctx, func(o *runOptions) { o.MaxDuration = time.Minute })
	for _, a := range []*authority{capped, closed, backedOff, open} {
		if got, want := a.paths(), planned[a.host()]; !slices.Equal(got, want) {
			t.Errorf("%s: the run requested %v, the plan said %v", a.host(), got, want)
		}
	}
	if len(planned[capped.host()]) != 4 || len(planned[open.host()]) != 1 || len(planned[backedOff.host()]) != 0 {
		t.Errorf("plan %v: want robots.txt and 3 documents at the capped host, t-open-1 at the open one (robots.txt kept), nothing at the one in backoff", planned)
	}
}
