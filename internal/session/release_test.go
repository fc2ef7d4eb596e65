package session

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// closingServer is a loopback site with no robots.txt that says when the
// connection it was sent a request on is closed.
type closingServer struct {
	*httptest.Server
	closed   chan struct{} // closed when a connection that carried a request closes
	once     sync.Once
	answered func(w http.ResponseWriter, r *http.Request)
}

func newClosingServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) *closingServer {
	s := &closingServer{closed: make(chan struct{}), answered: answer}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		s.answered(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			s.once.Do(func() { close(s.closed) })
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// TestAHostsConnectionIsClosedWhenItsTurnIsOver: the run does not keep a
// connection alive to a site it is done with while other hosts go on
// (the site would see it idle until its keep-alive ran out, and the run
// would hold it, its buffers and goroutines, for every host until it
// exits), and nothing is kept alive once the last answer is in.
func TestAHostsConnectionIsClosedWhenItsTurnIsOver(t *testing.T) {
	done := newClosingServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "rates")
	})
	// The busy site's last document waits for the other site's connection
	// to close, or for the request's own timeout (the policy's 2 s).
	var mu sync.Mutex
	var openWhileBusy bool
	busy := newClosingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/last" {
			select {
			case <-done.closed:
			case <-r.Context().Done():
				mu.Lock()
				openWhileBusy = true
				mu.Unlock()
				return
			}
		}
		fmt.Fprint(w, "rates "+r.URL.Path)
	})
	var out bytes.Buffer
	o := options(t, nil, &out,
		[2]string{"test-done", done.URL + "/rates"},
		[2]string{"test-busy-1", busy.URL + "/first"},
		[2]string{"test-busy-2", busy.URL + "/last"},
	)
	_, err := Run(t.Context(), o)
	mu.Lock()
	defer mu.Unlock()
	if openWhileBusy {
		t.Error("a site's connection was kept alive after its turn was over, while another host's turn went on")
	} else if err != nil {
		t.Fatalf("run: %v\n%s", err, &out)
	}
	select {
	case <-busy.closed:
	case <-time.After(10 * time.Second): // no loopback close takes this long
		t.Error("the last host's connection was kept alive after the run")
	}
}
