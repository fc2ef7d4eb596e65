package cli

// Hostile servers: each case is a scripted loopback authority that
// misbehaves in one way; the run must end within its bound, store nothing
// that was not served whole, say in the report what happened, and bend no
// operating rule.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// blobs lists the files under the store's sha256/ (temp files included).
func (w *workspace) blobs() []string {
	w.t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(w.Snapshots, "sha256"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestHostilePartialContentIsFailingNothingStored(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/doc": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-9/1000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write([]byte("0123456789"))
		},
		"/empty": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
	})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""}, src{"t-empty", a.url("/empty"), ""})
	if code := w.run(ctx); code != ExitFailures {
		t.Errorf("exit %d, want 1 (failures recorded)\n%s", code, w.out.String())
	}
	for id, code := range map[string]string{"t-doc": "206", "t-empty": "204"} {
		e := w.report()[id]
		if e.Status != "failing" || e.SHA256 != "" || !strings.Contains(e.Detail, code) {
			t.Errorf("%s: %+v, want failing with a detail naming the %s and no hash", id, e, code)
		}
	}
	if b := w.blobs(); len(b) != 0 {
		t.Errorf("store holds %v after a 206 and a 204, want nothing", b)
	}
}

func TestHostileGzipRobotsIsObeyed(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("User-agent: *\nDisallow: /private/\n"))
	zw.Close()
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip") // as S3 serves it
			w.Write(gz.Bytes())
		},
		"/private/doc": text("secret"),
		"/public":      text("public"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-private", a.url("/private/doc"), ""}, src{"t-public", a.url("/public"), ""})
	w.run(ctx)
	if n := a.count("/private/doc"); n != 0 || w.status("t-private") != "blocked-robots" {
		t.Errorf("t-private: %s after %d requests, want blocked-robots and never requested", w.status("t-private"), n)
	}
	if got := w.status("t-public"); got != "fresh" {
		t.Errorf("t-public: %s, want fresh", got)
	}
}

// TestHostileUnreachableSaidOncePerHost: a host nobody answers for is
// `unreachable`, not blamed on robots.txt, and the Markdown says why once.
func TestHostileUnreachableSaidOncePerHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	dead := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	w := newWorkspace(t, testPolicy, "", src{"t-a", dead + "/a", ""}, src{"t-b", dead + "/b", ""}, src{"t-c", dead + "/c", ""})
	if code := w.run(ctx); code != ExitFailures {
		t.Errorf("exit %d, want 1", code)
	}
	for _, id := range []string{"t-a", "t-b", "t-c"} {
		e := w.report()[id]
		if e.Status != "unreachable" || !strings.Contains(e.Detail, "connection refused") || strings.Contains(e.Detail, "robots") {
			t.Errorf("%s: %+v, want unreachable saying the connection was refused, not blaming robots.txt", id, e)
		}
	}
	md, err := os.ReadFile(filepath.Join(w.Reports, "coverage.md"))
	must(t, err)
	if n := strings.Count(string(md), "connection refused"); n != 1 {
		t.Errorf("coverage.md says %q %d times, want once for the host:\n%s", "connection refused", n, md)
	}
	if n := strings.Count(w.out.String(), "connection refused"); n != 1 {
		t.Errorf("the run log says %q %d times, want once for the host:\n%s", "connection refused", n, w.out.String())
	}
}

// TestHostileTLSFailureIsUnreachable: a certificate the bot cannot verify
// is a host it cannot reach, whatever robots.txt would say.
func TestHostileTLSFailureIsUnreachable(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "x") }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
	srv.StartTLS()
	t.Cleanup(srv.Close)
	w := newWorkspace(t, testPolicy, "", src{"t-a", srv.URL + "/a", ""})
	w.run(ctx)
	if e := w.report()["t-a"]; e.Status != "unreachable" || !strings.Contains(e.Detail, "TLS") {
		t.Errorf("t-a: %+v, want unreachable with a TLS failure", e)
	}
}

// TestHostileRobotsFailuresFeedBackoff: a robots.txt that cannot be read is
// a failure of the host like any other request's: it counts towards the
// backoff, which the next run honours instead of asking again.
func TestHostileRobotsFailuresFeedBackoff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	dead := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name   string
		robots http.HandlerFunc // nil: nothing listens
	}{
		{"503", status(503)},
		{"429", status(429)},
		{"connection refused", nil},
		{"more than five redirects", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/robots.txt", http.StatusFound)
		}},
		{"3xx without Location", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusFound) }},
		{"broken off mid-answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			w.Write([]byte("User-agent: *\n"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, host := dead, strings.TrimPrefix(dead, "http://")
			var a *authority
			if tc.robots != nil {
				a = newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": tc.robots, "/doc": text("d")})
				base, host = a.srv.URL, a.host()
			}
			// Slow enough that the backoff (2 × delay.max at least) is
			// plainly told from spacing.
			pol := strings.Replace(testPolicy, "backoff_max: 50ms", "backoff_max: 30m", 1)
			pol = strings.Replace(pol, "delay: {min: 5ms, max: 10ms}", "delay: {min: 1m, max: 1m}", 1)
			w := newWorkspace(t, pol, "", src{"t-doc", base + "/doc", ""})
			fake := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
			w.clock = fake
			long := func(o *runOptions) { o.MaxDuration = 20 * time.Minute }
			w.run(ctx, long)
			st, err := state.Load(w.State)
			must(t, err)
			h := st.Host(host)
			if h.Failures != 1 || h.BackoffUntil.Before(h.LastCompletion.Add(time.Minute)) {
				t.Fatalf("host state after an unreadable robots.txt: %+v, want 1 failure and a backoff of at least delay.max", h)
			}
			first := len(w.ledgerLines())
			w.run(ctx, long)
			for _, l := range w.ledgerLines()[first:] {
				if l.Event == ledger.Dispatch && l.Time.Before(h.BackoffUntil) {
					t.Errorf("the next run asked %s at %s, inside the backoff that ends %s", l.URL, l.Time, h.BackoffUntil)
				}
			}
			if w.status("t-doc") == "fresh" {
				t.Errorf("t-doc fresh although robots.txt was never readable")
			}
		})
	}
}

// TestHostileUnreachableDocumentsStopTheHost: a host that answered robots.txt
// earlier and cannot be reached now is tried once, not once per source.
func TestHostileUnreachableDocumentsStopTheHost(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"t-a", a.url("/a"), ""}, src{"t-b", a.url("/b"), ""}, src{"t-c", a.url("/c"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, w.out.String())
	}
	before := w.dispatches(a.host())
	a.srv.Close() // the robots.txt copy is kept; the host is gone
	w.out.Reset()
	w.run(ctx)
	if n := w.dispatches(a.host()) - before; n != 1 {
		t.Errorf("%d requests to an unreachable host, want 1", n)
	}
	unreachable := 0
	for _, id := range []string{"t-a", "t-b", "t-c"} {
		if w.status(id) == "unreachable" {
			unreachable++
		}
	}
	if unreachable != 1 {
		t.Errorf("%d sources unreachable, want the one tried (the others keep their status)", unreachable)
	}
	if n := strings.Count(w.out.String(), "connection refused"); n != 1 {
		t.Errorf("the log says %q %d times, want once:\n%s", "connection refused", n, w.out.String())
	}
}
