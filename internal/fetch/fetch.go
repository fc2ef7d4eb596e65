package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// ErrTooLarge means the body passed the size limit and was abandoned.
var ErrTooLarge = errors.New("body larger than max_body")

// ErrForbiddenAddress means the host resolved to an address the bot may not
// connect to (loopback, private, link-local, …).
var ErrForbiddenAddress = errors.New("connection to a private or special-purpose address refused")

// Config is the client's identity and limits.
type Config struct {
	UserAgent string
	From      string
	// Timeout bounds the whole request, body included; connect, TLS and
	// response headers get their own, shorter bounds derived from it.
	Timeout time.Duration
	MaxBody int64
	// AllowPrivate lifts the dial-time guard (tests and the demo only).
	AllowPrivate bool
	// Sign, when set, is applied to every request just before it is sent
	// (robots.txt, documents, each redirect hop): it adds the Web Bot
	// Auth signature headers. A failure to sign stops that request.
	Sign func(*http.Request) error
	// Resolver looks up host names; nil is the system's.
	Resolver *net.Resolver
	// RootCAs, when set, replaces the system's trusted certificates: a
	// test's own TLS servers. Nil trusts the system, as a run must.
	RootCAs *x509.CertPool
	// Now is the clock that stamps Response.SentAt; default time.Now. The
	// run passes its own, so that the stamp and the politeness waits are
	// read on the same clock.
	Now func() time.Time
}

// The policy's built-in values, used when a Config leaves them
// zero, so that no Client is ever without a bound.
const (
	defaultTimeout = 60 * time.Second
	defaultMaxBody = 50 << 20
)

const (
	// maxPhase caps connect and TLS: a server that needs longer than this to
	// accept or shake hands is down, whatever the whole-request budget.
	maxPhase = 10 * time.Second
	// drainLimit is how much of a non-2xx body is read so the connection can
	// be reused; past it the connection is simply closed.
	drainLimit = 64 << 10
	// headLimit is how much of a body that is not stored is kept in
	// Response.Head.
	headLimit = 8 << 10
)

// Client sends requests. It is safe for concurrent use.
//
// Each host has a transport of its own, so that Release can close the
// connections of a host whose turn is over while the others keep theirs.
type Client struct {
	cfg    Config
	dialer *net.Dialer
	// transport is what each host's transport is cloned from, on the
	// host's first request.
	transport *http.Transport
	mu        sync.Mutex
	hosts     map[string]*http.Transport // by policy.Authority
	http      *http.Client
	// wall measures Response.Duration: the machine's clock, not the run's
	// (cfg.Now), whose fake in tests moves with other hosts' waits.
	wall clock.Clock
}

// New returns a Client for cfg, with its own transport. A zero Timeout or
// MaxBody takes the policy default (60s, 50 MiB).
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = defaultMaxBody
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	phase := min(cfg.Timeout, maxPhase)
	dialer := &net.Dialer{Timeout: phase, Resolver: cfg.Resolver}
	if !cfg.AllowPrivate {
		// Control sees the resolved IP just before connect(2): checking
		// here rather than the URL's host is what defeats DNS rebinding.
		dialer.Control = guard
	}
	transport := &http.Transport{
		Proxy:                  nil, // proxy variables are ignored: requests go straight to the host
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true, // a custom dialer would otherwise turn HTTP/2 off
		DisableCompression:     true, // stored bytes are exactly what was sent
		TLSHandshakeTimeout:    phase,
		ResponseHeaderTimeout:  cfg.Timeout,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	if cfg.RootCAs != nil {
		transport.TLSClientConfig = &tls.Config{RootCAs: cfg.RootCAs}
	}
	c := &Client{
		cfg:       cfg,
		dialer:    dialer,
		transport: transport,
		hosts:     map[string]*http.Transport{},
		wall:      clock.Real{},
	}
	c.http = &http.Client{
		Transport: hostTransports{c},
		Jar:       nil, // cookies are never kept or sent back
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // the caller gates every hop
		},
	}
	return c
}

// hostTransports sends each request through the transport of its URL's
// host.
type hostTransports struct{ c *Client }

func (h hostTransports) RoundTrip(req *http.Request) (*http.Response, error) {
	return h.c.hostTransport(policy.Authority(req.URL)).RoundTrip(req)
}

func (c *Client) hostTransport(host string) *http.Transport {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.hosts[host]
	if !ok {
		t = c.transport.Clone()
		c.hosts[host] = t
	}
	return t
}

// Release closes the connections kept alive to host (an authority, as
// policy.Authority writes it) that no request is using. A run calls it
// when the host's turn is over: the site then sees us leave at once
// rather than when its keep-alive runs out, and the run stops holding a
// connection, its buffers and two goroutines for each host it is done
// with. A later request to host dials again.
func (c *Client) Release(host string) {
	c.mu.Lock()
	t := c.hosts[host]
	c.mu.Unlock()
	if t != nil {
		t.CloseIdleConnections()
	}
}

// CloseIdle closes every connection no request is using; a run calls it
// once its last request is answered.
func (c *Client) CloseIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.hosts {
		t.CloseIdleConnections()
	}
}

// guard is the dialer's Control: it refuses forbidden addresses.
func guard(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// Fail closed: an address we cannot read is not one we can vouch for.
		return fmt.Errorf("%w: unparsable address %q", ErrForbiddenAddress, address)
	}
	if Forbidden(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}

// Request is one GET.
type Request struct {
	URL string
	// Conditional validators; sent as If-None-Match / If-Modified-Since
	// when not empty.
	ETag         string
	LastModified string
}

// Response is what came back. Body bytes are never kept here except for
// GetBytes.
type Response struct {
	Status       int
	Header       http.Header
	Location     string // absolute, resolved against the request URL; 3xx only
	ContentType  string
	ETag         string
	LastModified string
	RetryAfter   string
	SHA256       string // hex, of the 2xx body handed to the sink
	Size         int64
	Sent         *Sent // the body as sent, when it had a Content-Encoding (Get only)
	Duration     time.Duration
	// Head is the start of a body that was not handed to the sink (a 403,
	// a 503, any answer but a 200 of Get), for telling what it was.
	Head []byte
	// SentAt is when the request began to leave: once the connection was
	// there (dialled and TLS set up, or reused), before its first byte was
	// written. Politeness is counted from it, because a server sees
	// requests arrive, not the moment a client decided to dial.
	SentAt time.Time
}

// Sink receives a 2xx body as a stream; store.Store satisfies it.
type Sink interface {
	Put(ctx context.Context, r io.Reader) (sum string, size int64, err error)
}

// Get sends the GET and, for a 200 answer, streams the body into sink while
// it is hashed (SHA256 and Size set from the sink), its Content-Encoding
// undone first (see putDocument). Other bodies, other 2xx
// included (a 206 is a fragment, a 204 has none), are drained up to a small
// bound and discarded: only a 200 carries the whole document. A body over MaxBody returns the
// Response so far with an error wrapping ErrTooLarge. Transport errors are
// returned as is (see IsTimeout); no redirect is followed.
func (c *Client) Get(ctx context.Context, req Request, sink Sink) (*Response, error) {
	return c.do(ctx, req, c.cfg.MaxBody, http.StatusOK, func(ctx context.Context, body io.Reader, resp *Response) error {
		return putDocument(ctx, req.URL, body, resp, c.cfg.MaxBody, sink)
	})
}

// GetBytes is Get for robots.txt: the first limit bytes of a 2xx body are
// returned and the rest is never read (RFC 9309 lets a crawler stop
// there), so a robots.txt larger than max_body still yields its rules.
// As a document's, the body is decoded first (Content-Encoding gzip,
// deflate or br, as S3 and others serve robots.txt), and limit bounds the
// decoded bytes, so a compression bomb yields limit bytes and no more; a
// coding it cannot undo is an error. SHA256 and Size describe the bytes
// returned.
func (c *Client) GetBytes(ctx context.Context, req Request, limit int64) (*Response, []byte, error) {
	var kept []byte
	resp, err := c.do(ctx, req, math.MaxInt64-1, 0, func(_ context.Context, body io.Reader, resp *Response) error {
		text, err := decoded(body, resp.Header.Get("Content-Encoding"))
		if err != nil {
			return fmt.Errorf("fetch: %s: %w", req.URL, err)
		}
		var rerr error
		kept, rerr = io.ReadAll(io.LimitReader(text, max(limit, 0)))
		if rerr != nil {
			// When the body itself failed, do reports that cause instead;
			// otherwise the coded stream is broken.
			rerr = fmt.Errorf("fetch: %s: decoding Content-Encoding %s: %w", req.URL, resp.Header.Get("Content-Encoding"), rerr)
		}
		sum := sha256.Sum256(kept)
		resp.Size, resp.SHA256 = int64(len(kept)), hex.EncodeToString(sum[:])
		return rerr
	})
	return resp, kept, err
}

// do sends req and hands a body of at most maxBody bytes to consume, under
// the whole-request timeout: that of a 2xx answer, or only of status when
// status is not 0.
func (c *Client) do(ctx context.Context, req Request, maxBody int64, status int, consume func(context.Context, io.Reader, *Response) error) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()

	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	if u.User != nil {
		// net/http would turn user-info into an Authorization header; the
		// bot is anonymous, whatever a manifest or Location says.
		return nil, fmt.Errorf("fetch: %s: URL with user-info refused", u.Redacted())
	}
	// HTTP/2 writes a request from a goroutine of its own.
	var sent atomic.Pointer[time.Time]
	traced := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		// Called once the connection is ready and before the request is
		// written on it, for HTTP/1 and HTTP/2 alike.
		GotConn: func(httptrace.GotConnInfo) {
			t := c.cfg.Now()
			sent.Store(&t)
		},
	})
	hreq, err := http.NewRequestWithContext(traced, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	hreq.Header = http.Header{
		"User-Agent": {c.cfg.UserAgent},
		"From":       {c.cfg.From},
	}
	if req.ETag != "" {
		hreq.Header.Set("If-None-Match", req.ETag)
	}
	if req.LastModified != "" {
		hreq.Header.Set("If-Modified-Since", req.LastModified)
	}
	if c.cfg.Sign != nil {
		if err := c.cfg.Sign(hreq); err != nil {
			return nil, fmt.Errorf("fetch: %s: not sent: %w", u.Redacted(), err)
		}
	}

	start := c.wall.Now()
	hresp, err := c.http.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer hresp.Body.Close()
	// Every read below is bounded by ctx (the whole-request deadline and the
	// caller's stop signal) even where net/http no longer applies it, as for
	// the raw connection of a 101: closing the body is what unblocks a read.
	stop := context.AfterFunc(ctx, func() { hresp.Body.Close() })
	defer stop()

	resp := &Response{
		Status:       hresp.StatusCode,
		Header:       hresp.Header,
		ContentType:  hresp.Header.Get("Content-Type"),
		ETag:         hresp.Header.Get("ETag"),
		LastModified: hresp.Header.Get("Last-Modified"),
		RetryAfter:   hresp.Header.Get("Retry-After"),
	}
	if t := sent.Load(); t != nil {
		resp.SentAt = *t
	}
	if hresp.StatusCode >= 300 && hresp.StatusCode < 400 {
		if loc, err := hresp.Location(); err == nil {
			resp.Location = loc.String()
		}
	}
	if hresp.StatusCode < 200 {
		// A 1xx as the final answer (101 Switching Protocols) hands back the
		// connection itself, not a body: nothing of it is read.
		resp.Duration = clock.Since(c.wall, start)
		return resp, nil
	}
	if hresp.StatusCode >= 300 || status != 0 && hresp.StatusCode != status {
		// The head is kept: a block page says who blocked us.
		var head bytes.Buffer
		io.CopyN(&head, hresp.Body, headLimit)
		resp.Head = head.Bytes()
		io.CopyN(io.Discard, hresp.Body, drainLimit-headLimit)
		resp.Duration = clock.Since(c.wall, start)
		return resp, nil
	}

	if hresp.ContentLength > maxBody {
		// Declared too large: no need to download what will be abandoned.
		resp.Duration = clock.Since(c.wall, start)
		return resp, fmt.Errorf("fetch: %s: declared %d bytes: %w", req.URL, hresp.ContentLength, ErrTooLarge)
	}
	body := &limitedReader{r: hresp.Body, left: maxBody}
	err = consume(ctx, body, resp)
	resp.Duration = clock.Since(c.wall, start)
	// The reader's own failure is the cause; the consumer's error merely
	// follows from it and may not wrap it.
	switch {
	case body.tooLarge:
		err = fmt.Errorf("fetch: %s: over %d bytes: %w", req.URL, maxBody, ErrTooLarge)
	case body.err != nil && ctx.Err() != nil:
		// The body was closed under the read because ctx ended: say why,
		// so that a timeout reads as one and a stop as a stop.
		err = fmt.Errorf("fetch: %s: reading body: %w", req.URL, ctx.Err())
	case body.err != nil:
		err = fmt.Errorf("fetch: %s: reading body: %w", req.URL, body.err)
	}
	if err != nil {
		// No hash may be recorded for bytes that were not kept whole.
		resp.SHA256, resp.Size, resp.Sent = "", 0, nil
	}
	return resp, err
}

// limitedReader passes at most left bytes through and fails with ErrTooLarge
// on the first byte past them. It asks for one byte more than it allows so
// that a body of exactly the limit is told apart from a longer one.
type limitedReader struct {
	r        io.Reader
	left     int64
	tooLarge bool
	err      error // the first read error other than io.EOF
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.tooLarge {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) > l.left {
		n, l.left, l.tooLarge = int(l.left), 0, true
		return n, ErrTooLarge
	}
	l.left -= int64(n)
	if err != nil && err != io.EOF && l.err == nil {
		l.err = err
	}
	return n, err
}

// IsTimeout reports whether err is a timeout of any phase.
func IsTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// forbidden lists the special-purpose ranges (IANA registries, RFC 6890 and
// successors) that a public document never lives in.
// Forbidden reports whether addr may not be dialled by the guard:
// unspecified, loopback, private (RFC 1918, ULA), link-local, CGNAT,
// multicast, broadcast, documentation, benchmarking, reserved ranges, and
// IPv4-mapped / NAT64 forms of those.
func Forbidden(addr netip.Addr) bool {
	return policy.SpecialAddr(addr)
}

// Describe says in a few words what kind of failure err is, for a report's
// detail: refused (a private address), a timeout, an answer whose
// Content-Encoding cannot be undone, or a network error.
func Describe(err error) string {
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return "refused: the host resolves to a private or special-purpose address"
	case IsTimeout(err):
		return "timeout: " + err.Error()
	case errors.Is(err, ErrUndecodable):
		return "unreadable answer: " + err.Error()
	}
	return "network error: " + err.Error()
}
