package github

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// Option adjusts a Client made by NewClient.
type Option func(*retry)

// WithClock makes the Client wait between retries on clk (tests: a fake).
func WithClock(clk clock.Clock) Option { return func(r *retry) { r.clock = clk } }

// Retry bounds: a call is tried up to DefaultAttempts times; a wait the
// server asks for (Retry-After) longer than MaxRetryWait is not waited
// for: the call fails and says when to come back.
const (
	DefaultAttempts = 4
	MaxRetryWait    = 2 * time.Minute
)

// retry is an http.RoundTripper that tries a call again when GitHub says
// it may succeed later: a 5xx, or a secondary rate limit (403 or 429 with
// Retry-After or a body that names it). It waits Retry-After when given,
// else 1 s, 2 s, 4 s…, on its clock. A primary rate limit (no requests
// left until X-RateLimit-Reset) is not retried: the reset is usually far
// off, and the error says when it is.
type retry struct {
	base     http.RoundTripper
	clock    clock.Clock
	attempts int

	// Content-creating calls (anything but a read) are paced: GitHub's
	// secondary limits ask for at least a second between them (and allow
	// about 80 a minute, 500 an hour).
	mu        sync.Mutex
	lastWrite time.Time
}

// WriteGap is the least time between two content-creating calls.
const WriteGap = time.Second

// pace waits, on the clock, until WriteGap has passed since the last
// content-creating call.
func (r *retry) pace(req *http.Request) error {
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.lastWrite.IsZero() {
		if wait := r.lastWrite.Add(WriteGap).Sub(r.clock.Now()); wait > 0 {
			if err := r.clock.Sleep(req.Context(), wait); err != nil {
				return err
			}
		}
	}
	r.lastWrite = r.clock.Now()
	return nil
}

func (r *retry) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := r.pace(req); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		resp, err := r.base.RoundTrip(req)
		if attempt >= r.attempts || req.Context().Err() != nil {
			return resp, err
		}
		var wait time.Duration
		switch {
		case err != nil:
			wait = backoff(attempt)
		case retriable(resp):
			wait = retryAfter(resp, r.clock.Now())
			if wait == 0 {
				wait = backoff(attempt)
			}
			if wait > MaxRetryWait {
				return resp, nil
			}
		default:
			return resp, nil
		}
		if req.Body != nil && req.GetBody == nil {
			return resp, err // cannot send the body again
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		if err := r.clock.Sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

func backoff(attempt int) time.Duration { return time.Second << (attempt - 1) }

// retriable: a 5xx, or a secondary rate limit. The body is read (and put
// back) to tell a secondary limit from a permission error: both are 403s.
func retriable(resp *http.Response) bool {
	switch {
	case resp.StatusCode >= 500:
		return true
	case resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests:
		return false
	case resp.Header.Get("X-RateLimit-Remaining") == "0":
		return false // primary limit: see the type's comment
	case resp.Header.Get("Retry-After") != "":
		return true
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return bytes.Contains(bytes.ToLower(data), []byte("secondary rate limit"))
}

// retryAfter reads Retry-After (delta-seconds or an HTTP date); 0 when
// absent or unreadable. Negative values and dates in the past count as 0.
func retryAfter(resp *http.Response, now time.Time) time.Duration {
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(24*time.Hour/time.Second) {
			return 24 * time.Hour
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// primaryLimit describes an exhausted primary rate limit from the headers
// of a 403 or 429: when it resets, in UTC. ok is false when the answer is
// not one.
func primaryLimit(resp *http.Response) (string, bool) {
	if resp == nil || (resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests) ||
		resp.Header.Get("X-RateLimit-Remaining") != "0" {
		return "", false
	}
	reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return "an unknown time (no X-RateLimit-Reset)", true
	}
	return time.Unix(reset, 0).UTC().Format(time.RFC3339), true
}
