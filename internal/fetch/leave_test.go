package fetch

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// SentAt is stamped once the connection is set up, over HTTP/1.1 and HTTP/2
// alike: a handshake the server holds up lies before it, not after.
func TestSentIsAfterTheHandshake(t *testing.T) {
	const hold = 80 * time.Millisecond
	for _, h2 := range []bool{false, true} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(r.Proto))
		}))
		srv.EnableHTTP2 = h2
		srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			time.Sleep(hold)
			return nil, nil
		}}
		srv.StartTLS()
		pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
		c := New(Config{UserAgent: "t", AllowPrivate: true, RootCAs: pool})
		for i := range 2 { // a new connection, then a reused one
			start := time.Now()
			resp, err := c.Get(t.Context(), Request{URL: srv.URL + "/"}, &hashSink{})
			if err != nil {
				t.Fatal(err)
			}
			if resp.SentAt.IsZero() || resp.SentAt.Before(start) {
				t.Fatalf("h2=%v request %d: SentAt %v, want a time after the call began (%v)", h2, i, resp.SentAt, start)
			}
			if i == 0 && resp.SentAt.Sub(start) < hold {
				t.Errorf("h2=%v: SentAt %v after the call began, before the %v handshake ended", h2, resp.SentAt.Sub(start), hold)
			}
		}
		srv.Close()
	}
}
