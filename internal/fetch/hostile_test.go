package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"

	"bufio"
	"context"
	"errors"
	"github.com/andybalholm/brotli"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// rawServer accepts loopback connections and hands each one to serve after
// reading the request head; it stops (closing every connection) when the
// test ends.
func rawServer(t testing.TB, serve func(conn net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	t.Cleanup(wg.Wait)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Go(func() {
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				serve(conn)
			})
		}
	})
	return "http://" + ln.Addr().String()
}

// switchThenSilence answers 101 Switching Protocols and then says nothing,
// holding the connection open until the test ends.
func switchThenSilence(conn net.Conn) {
	conn.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"))
	var b [1]byte
	conn.Read(b[:]) // until the client or the test closes it
}

// within fails the test if f has not returned after limit: a hang guard
// for code that must stop on its own bounds, not a speed assertion (the
// bounds under test are far shorter).
func within(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still running after %v: the response path is not bounded", limit)
	}
}

func TestSwitchingProtocolsBoundedByTimeout(t *testing.T) {
	url := rawServer(t, switchThenSilence)
	c := newClient(func(c *Config) { c.Timeout = 100 * time.Millisecond })
	within(t, 10*time.Second, func() {
		sink := &hashSink{}
		resp, err := c.Get(t.Context(), Request{URL: url + "/doc"}, sink)
		if sink.calls != 0 {
			t.Errorf("a 101's connection was handed to the sink as a body")
		}
		if err == nil && (resp == nil || resp.Status/100 == 2) {
			t.Errorf("got %+v, %v: want the 101 reported, not a document", resp, err)
		}
	})
}

func TestSwitchingProtocolsBoundedByCancel(t *testing.T) {
	url := rawServer(t, switchThenSilence)
	c := newClient(func(c *Config) { c.Timeout = time.Hour })
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	within(t, 10*time.Second, func() {
		c.Get(ctx, Request{URL: url + "/doc"}, &hashSink{})
	})
	within(t, 10*time.Second, func() {
		c.GetBytes(ctx, Request{URL: url + "/robots.txt"}, 1<<10)
	})
}

// TestBodyReadBoundedByCancel: whatever a transport does with the request's
// context, a stop signal ends the read of a body that never ends.
func TestBodyReadBoundedByCancel(t *testing.T) {
	c := newClient(func(c *Config) { c.Timeout = time.Hour })
	block := &blocking{closed: make(chan struct{})}
	c.http.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		// A body that ignores the request's context, as a 101's raw
		// connection does.
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: block, Request: r, ContentLength: -1}, nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	within(t, 10*time.Second, func() {
		sink := &hashSink{}
		resp, err := c.Get(ctx, Request{URL: "http://origin.test/"}, sink)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the cancellation", err)
		}
		if resp != nil && resp.SHA256 != "" {
			t.Errorf("a hash was recorded for a body cut short: %+v", resp)
		}
	})
}

// blocking is a body whose Read blocks until Close.
type blocking struct {
	once   sync.Once
	closed chan struct{}
}

func (b *blocking) Read([]byte) (int, error) {
	<-b.closed
	return 0, net.ErrClosed
}

func (b *blocking) Close() error { b.once.Do(func() { close(b.closed) }); return nil }

// TestOnlyA200IsABody: a 206 to a plain GET is a fragment, a 204 has nothing;
// neither reaches the sink, and the status says what came back.
func TestOnlyA200IsABody(t *testing.T) {
	for _, status := range []int{http.StatusCreated, http.StatusNonAuthoritativeInfo, http.StatusNoContent, http.StatusPartialContent} {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			if status == http.StatusPartialContent {
				w.Header().Set("Content-Range", "bytes 0-9/1000")
			}
			w.WriteHeader(status)
			if status != http.StatusNoContent {
				w.Write([]byte("0123456789"))
			}
		})
		sink := &hashSink{}
		resp, err := newClient(nil).Get(t.Context(), Request{URL: srv.URL}, sink)
		if err != nil {
			t.Fatalf("%d: %v", status, err)
		}
		if sink.calls != 0 || resp.SHA256 != "" || resp.Status != status {
			t.Errorf("%d: sink called %d times, response %+v: want the status and nothing stored", status, sink.calls, resp)
		}
	}
}

func encodeAs(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch enc {
	case "gzip", "x-gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "raw-deflate":
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	case "br":
		w = brotli.NewWriter(&buf)
	default:
		t.Fatalf("no encoder for %s", enc)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// TestGetBytesDecodesRobots: a robots.txt is read as the text the operator
// wrote, whatever Content-Encoding their server chose, within the same
// limit on the decoded bytes.
func TestGetBytesDecodesRobots(t *testing.T) {
	robots := []byte("User-agent: *\nDisallow: /private/\n")
	for _, enc := range []string{"gzip", "x-gzip", "deflate", "raw-deflate", "br", "identity"} {
		t.Run(enc, func(t *testing.T) {
			body, header := robots, enc
			switch enc {
			case "identity":
			case "raw-deflate": // what some servers send for "deflate"
				body, header = encodeAs(t, enc, robots), "deflate"
			default:
				body = encodeAs(t, enc, robots)
			}
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", header)
				w.Write(body)
			})
			resp, got, err := newClient(nil).GetBytes(t.Context(), Request{URL: srv.URL + "/robots.txt"}, 1<<10)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, robots) || resp.Size != int64(len(robots)) || resp.SHA256 != sum(robots) {
				t.Errorf("got %q (size %d), want the decoded robots.txt %q", got, resp.Size, robots)
			}
		})
	}
}

func TestGetBytesDecodingIsBounded(t *testing.T) {
	bomb := encodeAs(t, "gzip", bytes.Repeat([]byte("#"), 16<<20)) // 16 MiB of comments
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	resp, got, err := newClient(nil).GetBytes(t.Context(), Request{URL: srv.URL + "/robots.txt"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1000 || resp.Size != 1000 {
		t.Errorf("decoded %d bytes (size %d), want exactly the 1000-byte limit", len(got), resp.Size)
	}
}

func TestGetBytesRefusesWhatItCannotDecode(t *testing.T) {
	for _, enc := range []string{"zstd", "gzip-but-not"} {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", strings.TrimSuffix(enc, "-but-not"))
			w.Write([]byte("User-agent: *\nDisallow: /\n"))
		})
		_, got, err := newClient(nil).GetBytes(t.Context(), Request{URL: srv.URL + "/robots.txt"}, 1<<10)
		if err == nil || !strings.Contains(err.Error(), "Content-Encoding") {
			t.Errorf("%s: got %q, %v: want an error naming the Content-Encoding (the rules cannot be read)", enc, got, err)
		}
	}
}

func TestUnreachable(t *testing.T) {
	dns := &url.Error{Op: "Get", URL: "https://www.gov.ku/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "www.gov.ku", IsNotFound: true}}}
	refused := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	reset := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
	tlsErr := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}
	for _, tt := range []struct {
		err  error
		want string // "" when not unreachable
	}{
		{dns, "name does not resolve"},
		{refused, "connection refused"},
		{reset, "connection reset"},
		{tlsErr, "TLS"},
		{fmt.Errorf("fetch: %w", ErrForbiddenAddress), ""},
		{context.Canceled, ""},
		{context.DeadlineExceeded, ""},
		{io.ErrUnexpectedEOF, ""},
		{nil, ""},
	} {
		why, ok := Unreachable(tt.err)
		if ok != (tt.want != "") || !strings.Contains(why, tt.want) {
			t.Errorf("Unreachable(%v) = %q, %v; want %q", tt.err, why, ok, tt.want)
		}
	}
}

func TestUnreachableFromRealFailures(t *testing.T) {
	// A port nothing listens on: connection refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	// A certificate the client does not trust: TLS failure.
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	for _, u := range []string{closed, tlsSrv.URL + "/robots.txt"} {
		resp, err := newClient(nil).Get(t.Context(), Request{URL: u}, &hashSink{})
		if why, ok := Unreachable(err); resp != nil || !ok {
			t.Errorf("%s: %+v, %v: want no response and an unreachable error (got %q, %v)", u, resp, err, why, ok)
		}
	}
}
