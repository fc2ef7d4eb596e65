package cli

// The adversarial suite: one scripted loopback server per hostile
// behaviour, old and new. For each, the run must end within its bound
// (a hang guard fails the test instead of hanging it), store nothing that
// was not served whole, say in the report what happened, and bend no
// operating rule (one request at a time, identity headers only, no cookie
// sent back, a dispatch line for every request, verify clean).

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// hostilePolicy is testPolicy with a short whole-request timeout, so that
// servers that never finish cost a fraction of a second each.
var hostilePolicy = strings.Replace(testPolicy, "timeout: 2s", "timeout: 300ms", 1)

// runBounded runs the workspace under a hang guard: limit is far above
// what the run should take, and only a broken bound reaches it.
func runBounded(t *testing.T, w *workspace, limit time.Duration, extra ...func(*runOptions)) int {
	t.Helper()
	done := make(chan int, 1)
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { done <- w.run(runCtx, extra...) }()
	select {
	case code := <-done:
		return code
	case <-time.After(limit):
		cancel()
		t.Fatalf("the run did not end within %v: some response path is unbounded", limit)
		return -1
	}
}

// checkRules checks what must hold whatever a server did.
func checkRules(t *testing.T, w *workspace, auths ...*authority) {
	t.Helper()
	lines := w.ledgerLines() // fails on a corrupt line
	s, err := store.Open(w.Snapshots)
	must(t, err)
	ix, err := store.LoadIndex(w.indexPath())
	must(t, err)
	probs, err := s.Verify(context.Background(), ix)
	must(t, err)
	for _, p := range probs {
		t.Errorf("verify: %s: %s", p.Path, p.Message)
	}
	for _, a := range auths {
		if a.maxIn > 1 {
			t.Errorf("%s had %d requests in flight at once", a.host(), a.maxIn)
		}
		dispatched := 0
		for _, l := range lines {
			if l.Event == ledger.Dispatch && l.Host == a.host() {
				dispatched++
			}
		}
		if n := len(a.seen()); n > dispatched {
			t.Errorf("%s saw %d requests, but only %d dispatch lines were written", a.host(), n, dispatched)
		}
		for _, r := range a.seen() {
			if r.Method != http.MethodGet || r.Header.Get("Cookie") != "" || r.Header.Get("Authorization") != "" ||
				!strings.HasPrefix(r.Header.Get("User-Agent"), "TaxKernelBot/") || r.Header.Get("From") == "" {
				t.Errorf("%s %s: request outside the bot's identity: %v", r.Method, r.Path, r.Header)
			}
		}
	}
}

// blobBytes returns the bytes the report's hash for id names, or nil.
func (w *workspace) blobBytes(id string) []byte {
	w.t.Helper()
	e := w.report()[id]
	if e.SHA256 == "" {
		return nil
	}
	s, err := store.Open(w.Snapshots)
	must(w.t, err)
	r, err := s.Open(store.Sum(e.SHA256))
	must(w.t, err)
	defer r.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		w.t.Fatalf("%s: %v", id, err)
	}
	return b.Bytes()
}

func hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter) {
	conn, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	return conn, rw
}

func TestHostileSuite(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(make([]byte, 16<<20)) // 16 MiB of zeros in about 16 KiB
	zw.Close()
	var gz bytes.Buffer
	zw = gzip.NewWriter(&gz)
	zw.Write([]byte("Basic rate 20%\n"))
	zw.Close()
	gzipped := gz.Bytes()
	farFuture := time.Now().AddDate(50, 0, 0).UTC().Format(http.TimeFormat)
	past := time.Now().AddDate(-1, 0, 0).UTC().Format(http.TimeFormat)

	type tc struct {
		name    string
		doc     http.HandlerFunc
		status  string // wanted in the report
		detail  string // wanted in the detail ("" when none)
		stored  []byte // the bytes to be held, nil when nothing
		maxReqs int    // documents requested at most (redirect hops included)
	}
	retryAfter := func(v string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", v)
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}
	}
	hops := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var i int
			fmt.Sscanf(r.URL.Query().Get("hop"), "%d", &i)
			if i < n {
				http.Redirect(w, r, fmt.Sprintf("/doc?hop=%d", i+1), http.StatusFound)
				return
			}
			fmt.Fprint(w, "arrived")
		}
	}
	cases := []tc{
		{"never answers", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, "failing", "timeout", nil, 1},
		{"drips a byte at a time", func(w http.ResponseWriter, r *http.Request) {
			for {
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}, "failing", "timeout", nil, 1},
		{"endless body", func(w http.ResponseWriter, r *http.Request) {
			chunk := bytes.Repeat([]byte("tax "), 8<<10)
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "too-large", "max_body", nil, 1},
		{"declared over max_body", func(w http.ResponseWriter, r *http.Request) {
			// The bot gives up on the declaration alone; the rest would
			// only sit in a write to a closed connection.
			w.Header().Set("Content-Length", "1000000")
			w.Write(make([]byte, 1000))
		}, "too-large", "max_body", nil, 1},
		{"gzip bomb document is too large decoded", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb.Bytes())
		}, "too-large", "max_body", nil, 1},
		{"pre-compressed document is the document", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped)
		}, "fresh", "", []byte("Basic rate 20%\n"), 1},
		{"unknown Content-Encoding", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "zstd")
			w.Write([]byte("(\xb5/\xfd not really"))
		}, "failing", "unreadable answer", nil, 1},
		{"gzip that is not", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("Basic rate 20%\n"))
		}, "failing", "unreadable answer", nil, 1},
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/doc", http.StatusFound)
		}, "failing", "more than 5 redirects", nil, 6},
		{"chain of five redirects is followed", hops(5), "fresh", "", []byte("arrived"), 6},
		{"chain of six redirects is not", hops(6), "failing", "more than 5 redirects", nil, 6},
		{"header flood", func(w http.ResponseWriter, r *http.Request) {
			for i := range 2000 {
				w.Header().Set(fmt.Sprintf("X-Flood-%d", i), strings.Repeat("f", 1000))
			}
			fmt.Fprint(w, "body")
		}, "failing", "header", nil, 1},
		{"Retry-After -1", retryAfter("-1"), "failing", "503", nil, 1},
		{"Retry-After huge", retryAfter("99999999999999999999999"), "failing", "503", nil, 1},
		{"Retry-After in the past", retryAfter(past), "failing", "503", nil, 1},
		{"Retry-After far future", retryAfter(farFuture), "failing", "503", nil, 1},
		{"Retry-After garbage", retryAfter("soon, maybe"), "failing", "503", nil, 1},
		{"Content-Length longer than the body", func(w http.ResponseWriter, r *http.Request) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly forty bytes of the hundred promised")
			rw.Flush()
		}, "failing", "unexpected EOF", nil, 1},
		{"Content-Length shorter than the body", func(w http.ResponseWriter, r *http.Request) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nwhole, and then some trailing garbage")
			rw.Flush()
		}, "fresh", "", []byte("whole"), 1},
		{"reset mid-body", func(w http.ResponseWriter, r *http.Request) {
			conn, rw := hijack(w)
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n" + strings.Repeat("half", 1000))
			rw.Flush()
			conn.(*net.TCPConn).SetLinger(0) // RST instead of FIN
			conn.Close()
		}, "failing", "", nil, 1},
		{"304 without validators", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotModified)
		}, "failing", "without validators", nil, 1},
		{"401", status(http.StatusUnauthorized), "failing", "401", nil, 1},
		{"206 to a plain GET", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-9/1000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write([]byte("0123456789"))
		}, "failing", "206", nil, 1},
		{"101 and silence", func(w http.ResponseWriter, r *http.Request) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
			rw.Flush()
			var b [1]byte
			conn.Read(b[:]) // silence, until the client gives up and closes
		}, "failing", "101", nil, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/doc": c.doc})
			w := newWorkspace(t, hostilePolicy, "", src{"t-doc", a.url("/doc"), ""}, src{"t-next", a.url("/next"), ""})
			runBounded(t, w, 20*time.Second)
			e := w.report()["t-doc"]
			if string(e.Status) != c.status || !strings.Contains(e.Detail, c.detail) {
				t.Errorf("t-doc: status %s, detail %q; want %s with %q\n%s", e.Status, e.Detail, c.status, c.detail, w.out.String())
			}
			if got := w.blobBytes("t-doc"); !bytes.Equal(got, c.stored) {
				t.Errorf("held %d bytes %.40q, want %d bytes %.40q", len(got), got, len(c.stored), c.stored)
			}
			if n := a.count("/doc") + len(a.paths()) - a.count("/doc") - a.count("/robots.txt") - a.count("/next"); n > c.maxReqs {
				t.Errorf("documents requested %d times, want at most %d: %v", n, c.maxReqs, a.paths())
			}
			checkRules(t, w, a)
		})
	}
}

// TestHostileRetryAfterClampedAndDeferred: whatever a Retry-After says, the
// wait it causes is clamped (a day at most, never negative), and one past
// the run's end defers the host instead of sleeping.
func TestHostileRetryAfterClampedAndDeferred(t *testing.T) {
	for _, v := range []string{"-1", "99999999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT", "garbage", "3600"} {
		t.Run(v, func(t *testing.T) {
			a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", v)
				http.Error(w, "busy", http.StatusServiceUnavailable)
			}})
			w := newWorkspace(t, hostilePolicy, "", src{"t-1", a.url("/1"), ""}, src{"t-2", a.url("/2"), ""})
			start := time.Now()
			runBounded(t, w, 20*time.Second, func(o *runOptions) { o.MaxDuration = 2 * time.Second })
			st, err := state.Load(w.State)
			must(t, err)
			h := st.Host(a.host())
			if wait := h.BackoffUntil.Sub(start); wait < 0 || wait > 24*time.Hour+time.Minute {
				t.Errorf("backoff until %v, %v from now: want between now and a day", h.BackoffUntil, wait)
			}
			if got := w.status("t-1"); got != "failing" {
				t.Errorf("t-1: %s, want failing", got)
			}
			checkRules(t, w, a)
		})
	}
}

// TestHostileCookiesNeverReturned: a server that sets a cookie on every
// answer never gets one back.
func TestHostileCookiesNeverReturned(t *testing.T) {
	set := func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "track", Value: "me", Path: "/"})
		fmt.Fprint(w, r.URL.Path)
	}
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": set, "/": set})
	w := newWorkspace(t, hostilePolicy, "", src{"t-1", a.url("/1"), ""}, src{"t-2", a.url("/2"), ""}, src{"t-3", a.url("/3"), ""})
	runBounded(t, w, 20*time.Second)
	if len(a.seen()) != 4 {
		t.Fatalf("server saw %v", a.paths())
	}
	checkRules(t, w, a) // fails on any Cookie header
}

// TestHostileStopDuring101: a stop signal ends a run held by a 101 at once,
// and leaves the files whole.
func TestHostileStopDuring101(t *testing.T) {
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var switched atomic.Bool
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/first":      text("first"),
		"/doc": func(w http.ResponseWriter, r *http.Request) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n")
			rw.Flush()
			switched.Store(true)
			cancel() // SIGTERM arrives while the connection is held
			var b [1]byte
			conn.Read(b[:])
		},
	})
	pol := strings.Replace(testPolicy, "timeout: 2s", "timeout: 1h", 1) // only the stop can end it
	w := newWorkspace(t, pol, "", src{"t-1", a.url("/first"), ""}, src{"t-2", a.url("/doc"), ""}, src{"t-3", a.url("/never"), ""})
	done := make(chan struct{})
	go func() { defer close(done); w.run(runCtx) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not stop after the stop signal while a 101 held its connection")
	}
	if !switched.Load() || a.count("/never") != 0 {
		t.Errorf("server saw %v", a.paths())
	}
	if got := w.status("t-1"); got != "fresh" {
		t.Errorf("t-1: %s, want fresh (saved despite the stop)", got)
	}
	checkRules(t, w, a)
}

// TestHostileThousandURLsOneHostCapFive: 1,000 sources on one host with a
// cap of 5 could never all be checked; the manifests are refused before
// any request, saying so with the figures. Under a cap that can check them
// in a week, the cap holds however many sources the host has, and the
// rest wait for another day.
func TestHostileThousandURLsOneHostCapFive(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("doc")})
	var srcs []src
	for i := range 1000 {
		srcs = append(srcs, src{fmt.Sprintf("t-%04d", i), a.url(fmt.Sprintf("/d/%d", i)), ""})
	}
	w := newWorkspace(t, strings.Replace(hostilePolicy, "daily_cap: 100", "daily_cap: 5", 1), "", srcs...)
	if code := runBounded(t, w, 30*time.Second); code != ExitUsage {
		t.Fatalf("1,000 sources under a cap of 5: exit %d, want %d\n%s", code, ExitUsage, w.out.String())
	}
	if n := len(a.seen()); n != 0 || !strings.Contains(w.out.String(), "has 1000 sources, but its daily cap of 5") {
		t.Fatalf("server saw %d requests; output:\n%s", n, w.out.String())
	}

	w = newWorkspace(t, strings.Replace(hostilePolicy, "daily_cap: 100", "daily_cap: 144", 1), "", srcs...)
	runBounded(t, w, 30*time.Second)
	if n := len(a.seen()); n != 144 {
		t.Errorf("server saw %d requests, the cap is 144", n)
	}
	pending := 0
	for _, e := range w.report() {
		if e.Status == state.Pending {
			pending++
		}
	}
	if pending != 1000-143 {
		t.Errorf("%d sources pending, want %d (143 fetched after robots.txt, the rest deferred)", pending, 1000-143)
	}
	checkRules(t, w, a)
}

// TestHostileThousandHosts: a thousand hosts run concurrently, each spaced
// on its own: their turns overlap, and every source is fetched. How
// long it takes is measured by BenchmarkManyHostRun, not here: a loaded
// machine serves a thousand loopback servers slowly, so the bound below
// only catches a run that never ends.
func TestHostileThousandHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand loopback servers")
	}
	var auths []*authority
	var srcs []src
	for h := range 1000 {
		a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text(fmt.Sprintf("doc of host %d", h))})
		auths = append(auths, a)
		srcs = append(srcs, src{fmt.Sprintf("t-%04d", h), a.url("/doc"), ""})
	}
	// A thousand requests at once on a small shared machine can take
	// seconds to be served: the point here is concurrency, not timeouts.
	pol := strings.Replace(testPolicy, "timeout: 2s", "timeout: 30s", 1)
	w := newWorkspace(t, pol, "", srcs...)
	start := time.Now()
	if code := runBounded(t, w, 4*time.Minute); code != ExitOK {
		for id, e := range w.report() {
			if e.Status != state.Fresh {
				t.Errorf("%s: %s %s", id, e.Status, e.Detail)
			}
		}
		t.Fatalf("exit %d", code)
	}
	fresh := 0
	for _, e := range w.report() {
		if e.Status == state.Fresh {
			fresh++
		}
	}
	if fresh != 1000 {
		t.Errorf("%d of 1000 sources fresh", fresh)
	}
	// Hosts in parallel: hosts' turns (first arrival to last completion,
	// robots.txt and the document spaced by the delay) overlapped; one
	// host at a time never would. A single request is served in
	// microseconds, too short to overlap another for sure.
	type edge struct {
		at   time.Time
		open int
	}
	var edges []edge
	for _, a := range auths {
		a.mu.Lock()
		if n := len(a.reqs); n > 0 {
			edges = append(edges, edge{a.reqs[0].Arrived, 1}, edge{a.reqs[n-1].Completed, -1})
		}
		a.mu.Unlock()
	}
	slices.SortFunc(edges, func(x, y edge) int { return cmp.Or(x.at.Compare(y.at), x.open-y.open) })
	open, most := 0, 0
	for _, e := range edges {
		open += e.open
		most = max(most, open)
	}
	if most < 2 {
		t.Errorf("at most %d host(s) in their turn at once: the hosts ran one after another", most)
	}
	t.Logf("1000 hosts in %v, at most %d in their turn at once", time.Since(start), most)
	checkRules(t, w, auths...)
}
