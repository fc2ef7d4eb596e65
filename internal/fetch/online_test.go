package fetch

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"testing"
)

// tableResolver answers from a table: the root when root is true, the
// names in known; every other name is not found.
type tableResolver struct {
	root  bool
	known map[string]bool

	mu    sync.Mutex
	asked []string
}

func (r *tableResolver) LookupNS(_ context.Context, name string) ([]*net.NS, error) {
	r.note(".")
	if r.root {
		return []*net.NS{{Host: "a.root-servers.net."}}, nil
	}
	return nil, &net.DNSError{Err: "server misbehaving", Name: name, IsTemporary: true}
}

func (r *tableResolver) LookupHost(_ context.Context, host string) ([]string, error) {
	r.note(host)
	if r.known[host] {
		return []string{"192.0.2.7"}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *tableResolver) note(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, name)
}

func TestCheckNetwork(t *testing.T) {
	hosts := []string{"www.gov.uk", "www.ato.gov.au:443", "www.irs.gov"}
	for _, tt := range []struct {
		name    string
		r       *tableResolver
		hosts   []string
		offline bool
	}{
		// One host whose name does not resolve, on a working resolver, is
		// that host's failure.
		{"root answers, no host resolves", &tableResolver{root: true}, hosts, false},
		{"root refused, one host resolves", &tableResolver{known: map[string]bool{"www.irs.gov": true}}, hosts, false},
		{"nothing resolves", &tableResolver{}, hosts, true},
		{"one host, nothing resolves", &tableResolver{}, hosts[:1], true},
		{"addresses only: nothing to ask", &tableResolver{}, []string{"127.0.0.1:8080", "[::1]:443", "localhost:9"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckNetwork(t.Context(), tt.r, tt.hosts)
			if got := errors.Is(err, ErrNoNetwork); got != tt.offline {
				t.Fatalf("CheckNetwork = %v, want offline %v", err, tt.offline)
			}
			if tt.offline && len(tt.r.asked) != 1+len(tt.hosts) {
				t.Errorf("asked %v before saying offline, want the root and every host", tt.r.asked)
			}
		})
	}
	if r := (&tableResolver{}); CheckNetwork(t.Context(), r, []string{"127.0.0.1"}) != nil || len(r.asked) != 0 {
		t.Errorf("an address needed a look-up: %v", r.asked)
	}
}

// Go's own resolver on a machine where no name server can be reached.
func TestCheckNetworkWithNoRoute(t *testing.T) {
	r := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: "udp", Err: syscall.ENETUNREACH}
	}}
	err := CheckNetwork(t.Context(), r, []string{"www.gov.uk", "www.bzst.de"})
	if !errors.Is(err, ErrNoNetwork) {
		t.Fatalf("CheckNetwork = %v, want ErrNoNetwork", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := CheckNetwork(ctx, r, []string{"www.gov.uk"}); errors.Is(err, ErrNoNetwork) || err == nil {
		t.Errorf("stopped check = %v, want the stop, not a verdict", err)
	}
}
