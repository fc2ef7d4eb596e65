package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	testUA   = "TaxKernelBot/1.0 (+https://taxkernel.com/bot)"
	testFrom = "contact@taxkernel.com"
)

// hashSink stands in for the store: it hashes and counts what it is given
// and remembers the read error it saw.
type hashSink struct {
	calls int
	err   error
	// opaque makes Put report failures without wrapping them, as a careless
	// sink might, so tests can check that Get still names the cause.
	opaque bool
}

func (s *hashSink) Put(_ context.Context, r io.Reader) (string, int64, error) {
	s.calls++
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		s.err = err
		if s.opaque {
			return "", 0, fmt.Errorf("sink: %v", err)
		}
		return "", 0, fmt.Errorf("sink: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func newClient(mod func(*Config)) *Client {
	cfg := Config{
		UserAgent:    testUA,
		From:         testFrom,
		Timeout:      5 * time.Second,
		MaxBody:      1 << 20,
		AllowPrivate: true,
	}
	if mod != nil {
		mod(&cfg)
	}
	return New(cfg)
}

// server starts an httptest server on loopback.
func server(t testing.TB, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// stallingServer is server whose handler can call stall to block until the
// client gives up or the test ends. The 5s bound only fires when the code
// under test is broken, so a failure cannot hang the run.
func stallingServer(t testing.TB, h func(w http.ResponseWriter, r *http.Request, stall func())) *httptest.Server {
	release := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		h(w, r, func() {
			select {
			case <-r.Context().Done():
			case <-release:
			case <-time.After(5 * time.Second):
			}
		})
	})
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for handlers
	return srv
}

var ignoreVolatile = cmpopts.IgnoreFields(Response{}, "Header", "Duration", "SentAt", "Head")

func TestGetSendsOnlyIdentityHeaders(t *testing.T) {
	body := []byte("<html>rates</html>")
	var method string
	var got http.Header
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		method, got = r.Method, r.Header.Clone()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Nov 2026 10:00:00 GMT")
		w.Header().Set("Retry-After", "120")
		w.Write(body)
	})
	sink := &hashSink{}
	resp, err := newClient(nil).Get(t.Context(), Request{URL: srv.URL + "/rates"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if method != http.MethodGet {
		t.Errorf("method = %s, want GET", method)
	}
	// Exactly these: no Cookie, Authorization, Accept-Encoding, Referer or
	// anything else (the server keeps Host out of r.Header).
	want := http.Header{"User-Agent": {testUA}, "From": {testFrom}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request headers (-want +got):\n%s", diff)
	}
	wantResp := &Response{
		Status:       200,
		ContentType:  "text/html; charset=utf-8",
		ETag:         `"v1"`,
		LastModified: "Mon, 02 Nov 2026 10:00:00 GMT",
		RetryAfter:   "120",
		SHA256:       sum(body),
		Size:         int64(len(body)),
	}
	if diff := cmp.Diff(wantResp, resp, ignoreVolatile); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if sink.calls != 1 {
		t.Errorf("sink called %d times, want 1", sink.calls)
	}
	if resp.Duration <= 0 {
		t.Errorf("Duration = %v, want > 0", resp.Duration)
	}
}

func TestConditionalHeadersOnlyWhenGiven(t *testing.T) {
	const lm = "Mon, 02 Nov 2026 10:00:00 GMT"
	tests := []struct {
		name string
		req  Request
		want http.Header
	}{
		{"none", Request{}, http.Header{}},
		{"etag", Request{ETag: `"abc"`}, http.Header{"If-None-Match": {`"abc"`}}},
		{"last-modified", Request{LastModified: lm}, http.Header{"If-Modified-Since": {lm}}},
		{"both", Request{ETag: `W/"x"`, LastModified: lm}, http.Header{"If-None-Match": {`W/"x"`}, "If-Modified-Since": {lm}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got http.Header
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Clone()
				got.Del("User-Agent")
				got.Del("From")
			})
			tt.req.URL = srv.URL
			if _, err := newClient(nil).Get(t.Context(), tt.req, &hashSink{}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("conditional headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotModifiedSkipsSink(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.Header().Set("ETag", `"v1"`)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write([]byte("fresh"))
	})
	sink := &hashSink{}
	resp, err := newClient(nil).Get(t.Context(), Request{URL: srv.URL, ETag: `"v1"`}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Response{Status: 304, ETag: `"v1"`}, resp, ignoreVolatile); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if sink.calls != 0 {
		t.Errorf("sink called %d times for a 304", sink.calls)
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		location string
		want     string // with HOST standing for the server's authority
	}{
		{"absolute path", http.StatusMovedPermanently, "/next?a=1", "http://HOST/next?a=1"},
		{"relative", http.StatusFound, "next", "http://HOST/dir/next"},
		{"dot-dot", http.StatusTemporaryRedirect, "../next", "http://HOST/next"},
		{"absolute URL", http.StatusPermanentRedirect, "https://elsewhere.example/x", "https://elsewhere.example/x"},
		{"no location", http.StatusFound, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var followed atomic.Int32
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/dir/page" {
					followed.Add(1)
					return
				}
				if tt.location != "" {
					w.Header().Set("Location", tt.location)
				}
				w.WriteHeader(tt.status)
			})
			sink := &hashSink{}
			resp, err := newClient(nil).Get(t.Context(), Request{URL: srv.URL + "/dir/page"}, sink)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(tt.want, "HOST", srv.Listener.Addr().String())
			if resp.Status != tt.status || resp.Location != want {
				t.Errorf("got %d %q, want %d %q", resp.Status, resp.Location, tt.status, want)
			}
			if n := followed.Load(); n != 0 {
				t.Errorf("redirect followed %d times", n)
			}
			if sink.calls != 0 {
				t.Errorf("sink called for a %d", tt.status)
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	const max = 4096
	tests := []struct {
		name      string
		size      int
		chunked   bool // no Content-Length: only reading tells the size
		opaque    bool
		wantErr   error
		wantCalls int
	}{
		{"exactly max, length known", max, false, false, nil, 1},
		{"exactly max, chunked", max, true, false, nil, 1},
		{"one over, chunked", max + 1, true, false, ErrTooLarge, 1},
		{"far over, chunked", 10 * max, true, false, ErrTooLarge, 1},
		{"over, sink hides the cause", max + 1, true, true, ErrTooLarge, 1},
		// A declared length over the limit is refused before any download.
		{"one over, length known", max + 1, false, false, ErrTooLarge, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("x"), tt.size)
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.chunked {
					w.(http.Flusher).Flush()
				} else {
					w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				}
				w.Write(body)
			})
			sink := &hashSink{opaque: tt.opaque}
			c := newClient(func(c *Config) { c.MaxBody = max })
			resp, err := c.Get(t.Context(), Request{URL: srv.URL}, sink)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if resp == nil || resp.Status != 200 {
				t.Fatalf("resp = %+v, want the 200 so far", resp)
			}
			if sink.calls != tt.wantCalls {
				t.Errorf("sink called %d times, want %d", sink.calls, tt.wantCalls)
			}
			if tt.wantErr == nil {
				if resp.SHA256 != sum(body) || resp.Size != int64(len(body)) {
					t.Errorf("got %s/%d, want %s/%d", resp.SHA256, resp.Size, sum(body), len(body))
				}
				return
			}
			if tt.wantCalls > 0 && !errors.Is(sink.err, ErrTooLarge) {
				t.Errorf("sink saw %v, want ErrTooLarge", sink.err)
			}
			if resp.SHA256 != "" || resp.Size != 0 {
				t.Errorf("abandoned body reported as %s/%d", resp.SHA256, resp.Size)
			}
		})
	}
}

func TestDialGuardRefusesLoopback(t *testing.T) {
	var hits atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c := newClient(func(c *Config) { c.AllowPrivate = false })
	for _, u := range []string{
		srv.URL,
		// A name resolved to loopback: the check runs after resolution.
		"http://localhost:" + port + "/",
	} {
		resp, err := c.Get(t.Context(), Request{URL: u}, &hashSink{})
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: err = %v, want ErrForbiddenAddress", u, err)
		}
		if resp != nil {
			t.Errorf("%s: got a response %+v", u, resp)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("guarded server was reached %d times", n)
	}
}

func TestUserInfoRefused(t *testing.T) {
	var hits atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	u := strings.Replace(srv.URL, "http://", "http://user:secret@", 1)
	if _, err := newClient(nil).Get(t.Context(), Request{URL: u}, &hashSink{}); err == nil {
		t.Error("URL with user-info was fetched")
	}
	if hits.Load() != 0 {
		t.Error("server was contacted")
	}
}

// TestProxyEnvironmentIgnored runs in a child process: net/http reads the
// proxy variables once per process, so only a fresh one tells for sure.
func TestProxyEnvironmentIgnored(t *testing.T) {
	if os.Getenv("FETCH_TEST_PROXY_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProxyEnvironmentIgnored$", "-test.count=1")
		cmd.Env = append(os.Environ(), "FETCH_TEST_PROXY_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	proxy := server(t, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("proxy contacted for %s", r.RequestURI)
		w.WriteHeader(http.StatusBadGateway)
	})
	origin := server(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("direct")) })
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		t.Setenv(k, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	// net/http never proxies loopback names, so the request goes to a
	// non-loopback name that this dialer alone maps to the origin.
	c := newClient(nil)
	dial := c.transport.DialContext
	c.transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "origin.test:80" {
			addr = origin.Listener.Addr().String()
		}
		return dial(ctx, network, addr)
	}
	resp, err := c.Get(t.Context(), Request{URL: "http://origin.test/"}, &hashSink{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.SHA256 != sum([]byte("direct")) {
		t.Errorf("status %d, body %s: not the origin's", resp.Status, resp.SHA256)
	}
}

func TestTimeouts(t *testing.T) {
	stalledHeaders := func(w http.ResponseWriter, r *http.Request, stall func()) { stall() }
	stalledBody := func(w http.ResponseWriter, r *http.Request, stall func()) {
		w.Write([]byte("first part of the table"))
		w.(http.Flusher).Flush()
		stall()
	}
	tests := []struct {
		name      string
		handler   func(http.ResponseWriter, *http.Request, func())
		opaque    bool
		wantCalls int
	}{
		{"stalled headers", stalledHeaders, false, 0},
		{"stalled body", stalledBody, false, 1},
		{"stalled body, sink hides the cause", stalledBody, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := stallingServer(t, tt.handler)
			sink := &hashSink{opaque: tt.opaque}
			c := newClient(func(c *Config) { c.Timeout = 50 * time.Millisecond })
			_, err := c.Get(t.Context(), Request{URL: srv.URL}, sink)
			if !IsTimeout(err) {
				t.Errorf("err = %v, want a timeout", err)
			}
			if sink.calls != tt.wantCalls {
				t.Errorf("sink called %d times, want %d", sink.calls, tt.wantCalls)
			}
		})
	}
}

func TestTLSHandshakeTimeout(t *testing.T) {
	// Accepts and then says nothing, so the handshake never completes.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	t.Cleanup(func() { ln.Close() }) // runs first, ending the Accept loop
	wg.Go(func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, conn)
		}
	})
	c := newClient(func(c *Config) { c.Timeout = 50 * time.Millisecond })
	_, err = c.Get(t.Context(), Request{URL: "https://" + ln.Addr().String() + "/"}, &hashSink{})
	if !IsTimeout(err) {
		t.Errorf("err = %v, want a timeout", err)
	}
}

func TestPhaseTimeouts(t *testing.T) {
	tests := []struct {
		timeout                   time.Duration
		connect, tls, header, all time.Duration
	}{
		{60 * time.Second, 10 * time.Second, 10 * time.Second, 60 * time.Second, 60 * time.Second},
		{3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second},
		{0, 10 * time.Second, 10 * time.Second, 60 * time.Second, 60 * time.Second}, // policy default
	}
	for _, tt := range tests {
		c := newClient(func(c *Config) { c.Timeout = tt.timeout })
		got := []time.Duration{c.dialer.Timeout, c.transport.TLSHandshakeTimeout, c.transport.ResponseHeaderTimeout, c.cfg.Timeout}
		want := []time.Duration{tt.connect, tt.tls, tt.header, tt.all}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Timeout %v: connect, TLS, headers, whole (-want +got):\n%s", tt.timeout, diff)
		}
	}
}

func TestCookiesNeverSentBack(t *testing.T) {
	var cookies [][]string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		cookies = append(cookies, r.Header.Values("Cookie"))
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "abc", Path: "/"})
		w.Write([]byte("ok"))
	})
	c := newClient(nil)
	for range 2 {
		if _, err := c.Get(t.Context(), Request{URL: srv.URL + "/"}, &hashSink{}); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([][]string{nil, nil}, cookies); diff != "" {
		t.Errorf("Cookie headers received (-want +got):\n%s", diff)
	}
}

func TestNon2xxNotStored(t *testing.T) {
	for _, status := range []int{403, 404, 410, 429, 500, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "30")
				w.WriteHeader(status)
				w.Write([]byte("error page"))
			})
			sink := &hashSink{}
			resp, err := newClient(nil).Get(t.Context(), Request{URL: srv.URL}, sink)
			if err != nil {
				t.Fatal(err)
			}
			want := &Response{Status: status, RetryAfter: "30", ContentType: "text/plain; charset=utf-8"}
			if diff := cmp.Diff(want, resp, ignoreVolatile); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if sink.calls != 0 {
				t.Errorf("sink called for a %d", status)
			}
		})
	}
}

// endless is a body that never ends (until its request's context does) and
// counts what was read of it.
type endless struct {
	ctx    context.Context
	read   atomic.Int64
	closed atomic.Bool
}

func (e *endless) Read(p []byte) (int, error) {
	if err := e.ctx.Err(); err != nil {
		return 0, err
	}
	clear(p)
	e.read.Add(int64(len(p)))
	return len(p), nil
}

func (e *endless) Close() error { e.closed.Store(true); return nil }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestNon2xxDrainIsBounded(t *testing.T) {
	var body *endless
	c := newClient(func(c *Config) { c.Timeout = 500 * time.Millisecond })
	c.http.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body = &endless{ctx: r.Context()}
		return &http.Response{StatusCode: 500, Header: http.Header{}, Body: body, Request: r}, nil
	})
	resp, err := c.Get(t.Context(), Request{URL: "http://origin.test/"}, &hashSink{})
	if err != nil || resp.Status != 500 {
		t.Fatalf("got %+v, %v", resp, err)
	}
	if n := body.read.Load(); n > drainLimit {
		t.Errorf("drained %d bytes of an error page, want at most %d", n, drainLimit)
	}
	if !body.closed.Load() {
		t.Error("body not closed")
	}
}

func TestGetBytes(t *testing.T) {
	robots := []byte("User-agent: *\nDisallow: /private/\n")
	big := bytes.Repeat([]byte("#"), 5000)
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write(robots)
		case "/big":
			w.(http.Flusher).Flush()
			w.Write(big)
		default:
			http.NotFound(w, r)
		}
	})
	c := newClient(func(c *Config) { c.MaxBody = 4096 })
	tests := []struct {
		path     string
		limit    int64
		status   int
		want     []byte
		wantErr  error
		wantSize int64
	}{
		{"/robots.txt", 1 << 10, 200, robots, nil, int64(len(robots))},
		{"/robots.txt", 10, 200, robots[:10], nil, 10}, // the rest is never read
		{"/missing", 1 << 10, 404, nil, nil, 0},
		// Larger than max_body: robots.txt has its own limit, its rules count.
		{"/big", 100, 200, big[:100], nil, 100},
	}
	for _, tt := range tests {
		resp, got, err := c.GetBytes(t.Context(), Request{URL: srv.URL + tt.path}, tt.limit)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: err = %v, want %v", tt.path, err, tt.wantErr)
		}
		if resp.Status != tt.status || resp.Size != tt.wantSize {
			t.Errorf("%s/%d: status %d size %d, want %d %d", tt.path, tt.limit, resp.Status, resp.Size, tt.status, tt.wantSize)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s/%d: bytes (-want +got):\n%s", tt.path, tt.limit, diff)
		}
		if tt.status == 200 && resp.SHA256 != sum(tt.want) {
			t.Errorf("%s/%d: SHA256 %s is not that of the bytes returned", tt.path, tt.limit, resp.SHA256)
		}
	}
}

func TestCanceledIsNotTimeout(t *testing.T) {
	// An interrupted run is not the host's fault: no backoff may follow.
	ctx, cancel := context.WithCancel(t.Context())
	srv := stallingServer(t, func(w http.ResponseWriter, r *http.Request, stall func()) {
		cancel()
		stall()
	})
	_, err := newClient(nil).Get(ctx, Request{URL: srv.URL}, &hashSink{})
	if !errors.Is(err, context.Canceled) || IsTimeout(err) {
		t.Errorf("err = %v (timeout %v), want a cancellation that is not a timeout", err, IsTimeout(err))
	}
}

func BenchmarkGet(b *testing.B) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	srv := server(b, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	c := newClient(func(c *Config) { c.MaxBody = 2 << 20 })
	sink := &hashSink{}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Get(b.Context(), Request{URL: srv.URL}, sink); err != nil {
			b.Fatal(err)
		}
	}
}
