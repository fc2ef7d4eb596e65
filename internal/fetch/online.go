package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"
)

// ErrNoNetwork means the machine the bot runs on cannot reach the network
// at all: not a site's failure, so none may be recorded against a site.
var ErrNoNetwork = errors.New("this runner has no network")

// Resolver is the part of *net.Resolver that CheckNetwork asks.
type Resolver interface {
	LookupNS(ctx context.Context, name string) ([]*net.NS, error)
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// lookupTimeout bounds each look-up of CheckNetwork: a runner whose resolver
// cannot be reached otherwise waits the resolver's own timeouts, host by host.
const lookupTimeout = 10 * time.Second

// CheckNetwork tells a runner's own outage apart from the sites' before a
// run sends anything, by name look-ups alone (no site sees a request). The
// network is there when the root zone's name servers can be looked up —
// every working resolver answers that — or, failing that (a resolver that
// refuses such questions), when any one of hosts resolves. When neither
// does, it returns an error wrapping ErrNoNetwork that names what failed.
// Hosts that are IP addresses need no look-up and prove nothing, so with
// no names among hosts there is nothing to check and nil is returned. One
// host whose name does not resolve, on a runner whose resolver works, is
// that host's failure, and CheckNetwork says nothing of it.
func CheckNetwork(ctx context.Context, r Resolver, hosts []string) error {
	if r == nil {
		r = net.DefaultResolver
	}
	var names []string
	for _, h := range hosts {
		name := h
		if host, _, err := net.SplitHostPort(h); err == nil {
			name = host
		}
		if _, err := netip.ParseAddr(name); err == nil || name == "localhost" || name == "" {
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil
	}
	lookup := func(f func(context.Context) error) error {
		ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
		defer cancel()
		return f(ctx)
	}
	rootErr := lookup(func(ctx context.Context) error { _, err := r.LookupNS(ctx, "."); return err })
	if rootErr == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The hosts are asked at once, a few at a time, and the first answer
	// settles it.
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		resolved bool
		firstErr error
	)
	sem := make(chan struct{}, 8)
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				return
			}
			err := lookup(func(ctx context.Context) error { _, err := r.LookupHost(ctx, name); return err })
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				resolved = true
				cancel()
			} else if firstErr == nil {
				firstErr = err
			}
		}()
	}
	wg.Wait()
	if resolved {
		return nil
	}
	if err := parent.Err(); err != nil {
		return err // stopped: nothing learnt
	}
	return fmt.Errorf("%w: the root zone's name servers cannot be looked up (%v), and none of the %d host name(s) to contact resolves (first: %v)", ErrNoNetwork, rootErr, len(names), firstErr)
}
