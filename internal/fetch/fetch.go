package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"time"
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
}

// Client sends requests. It is safe for concurrent use.
type Client struct {
	// TODO
}

// New returns a Client for cfg, with its own transport.
func New(cfg Config) *Client {
	panic("TODO")
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
	Duration     time.Duration
}

// Sink receives a 2xx body as a stream; store.Store satisfies it.
type Sink interface {
	Put(ctx context.Context, r io.Reader) (sum string, size int64, err error)
}

// Get sends the GET and, for a 2xx answer, streams the body into sink while
// it is hashed (SHA256 and Size set from the sink). Other bodies are
// drained up to a small bound and discarded. A body over MaxBody returns the
// Response so far with an error wrapping ErrTooLarge. Transport errors are
// returned as is (see IsTimeout); no redirect is followed.
func (c *Client) Get(ctx context.Context, req Request, sink Sink) (*Response, error) {
	panic("TODO")
}

// GetBytes is Get for small bodies (robots.txt): up to limit bytes of a 2xx
// body are returned; the rest is read and dropped up to MaxBody.
func (c *Client) GetBytes(ctx context.Context, req Request, limit int64) (*Response, []byte, error) {
	panic("TODO")
}

// IsTimeout reports whether err is a timeout of any phase.
func IsTimeout(err error) bool {
	panic("TODO")
}

// Forbidden reports whether addr may not be dialled by the guard:
// unspecified, loopback, private (RFC 1918, ULA), link-local, CGNAT,
// multicast, broadcast, documentation, benchmarking, reserved ranges, and
// IPv4-mapped / NAT64 forms of those.
func Forbidden(addr netip.Addr) bool {
	panic("TODO")
}
