package fetch

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// connServer is a loopback server that counts the connections it was
// opened and tells when one is closed.
type connServer struct {
	*httptest.Server
	mu     sync.Mutex
	opened int
	closed chan struct{}
}

func newConnServer(t *testing.T) *connServer {
	s := &connServer{closed: make(chan struct{}, 8)}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.mu.Lock()
			s.opened++
			s.mu.Unlock()
		case http.StateClosed:
			s.closed <- struct{}{}
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *connServer) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened
}

func (s *connServer) host(t *testing.T) string {
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return policy.Authority(u)
}

// waitClosed fails the test if no connection of s is closed in a time no
// loopback close takes (the close itself is not timed).
func (s *connServer) waitClosed(t *testing.T, what string) {
	t.Helper()
	select {
	case <-s.closed:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the connection was never closed", what)
	}
}

// TestReleaseClosesOneHostsConnections: a host whose turn is over has its
// kept-alive connection closed, the others keep theirs, and a later
// request to the released host dials again.
func TestReleaseClosesOneHostsConnections(t *testing.T) {
	a, b := newConnServer(t), newConnServer(t)
	c := newClient(nil)
	get := func(s *connServer) {
		t.Helper()
		if _, err := c.Get(t.Context(), Request{URL: s.URL + "/doc"}, &hashSink{}); err != nil {
			t.Fatal(err)
		}
	}
	get(a)
	get(b)
	c.Release(a.host(t))
	a.waitClosed(t, "released host")
	get(b)
	if n := b.connections(); n != 1 {
		t.Errorf("the host not released was dialled %d times, want 1 (its connection kept)", n)
	}
	select {
	case <-b.closed:
		t.Error("the host not released had its connection closed")
	default:
	}
	get(a)
	if n := a.connections(); n != 2 {
		t.Errorf("the released host was dialled %d times, want 2", n)
	}
	c.CloseIdle()
	a.waitClosed(t, "CloseIdle, released host")
	b.waitClosed(t, "CloseIdle, other host")
}
