package pipeline

import (
	"crypto/tls"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestSpacingCountedOnTheWire: a TLS server that takes a random 0–300 ms
// to shake hands and closes every connection must still see its requests
// arrive no closer than its Crawl-delay. Counted from the moment the run
// decided to dial, a long handshake followed by a short one brings two
// arrivals closer than the rule by the difference.
func TestSpacingCountedOnTheWire(t *testing.T) {
	const crawlDelay = 300 * time.Millisecond
	// How much closer than the rule two arrivals may be, the clock having
	// no view of it: the time between our stamp and the server's handler
	// for one request, less that of the next (writing and reading a few
	// hundred bytes over loopback, and the scheduling of two goroutines on
	// a busy machine). The handshakes differ by up to 300 ms.
	const tolerance = 30 * time.Millisecond

	rng := rand.New(rand.NewPCG(12, 26))
	var (
		mu         sync.Mutex
		handshakes []time.Duration
		arrivals   []time.Time
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %g\n", crawlDelay.Seconds())
			return
		}
		fmt.Fprintf(w, "document %s", r.URL.Path)
	}))
	srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		mu.Lock()
		d := time.Duration(rng.IntN(301)) * time.Millisecond
		handshakes = append(handshakes, d)
		mu.Unlock()
		time.Sleep(d) // the server's own slowness, which no clock of ours drives
		return nil, nil
	}}
	srv.Config.SetKeepAlivesEnabled(false)
	srv.StartTLS()
	defer srv.Close()

	const docs = 8
	dir := t.TempDir()
	var b []byte
	b = fmt.Appendf(b, "jurisdiction: wire\nname: Wire\ntimezone: UTC\nsources:\n")
	for i := range docs {
		b = fmt.Appendf(b, "  - id: w-%d\n    url: %s/doc/%d\n    kind: rates-page\n    title: W %d\n", i, srv.URL, i, i)
	}
	must(t, os.WriteFile(filepath.Join(dir, "wire.yaml"), b, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte("delay: {min: 5ms, max: 5ms}\nallow_private_networks: true\n"), 0o644))
	set, diags := manifest.Load(dir)
	if diags.HasErrors() {
		t.Fatalf("manifests: %v", diags)
	}
	st, err := store.Open(filepath.Join(dir, "snapshots"))
	must(t, err)
	led, err := ledger.Open(filepath.Join(dir, "ledgers"))
	must(t, err)
	defer led.Close()
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	client := fetch.New(fetch.Config{UserAgent: "TaxKernelBot-test/1", AllowPrivate: true, RootCAs: pool})
	res, err := Run(t.Context(), Options{Set: set, Store: st, Index: store.NewIndex(), Ledger: led, State: state.New(), HTTP: client})
	must(t, err)
	if res.Checked != docs {
		t.Fatalf("checked %d of %d documents: %+v", res.Checked, docs, res)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) != docs+1 || len(handshakes) != docs+1 {
		t.Fatalf("server saw %d requests in %d handshakes, want %d each (every connection closed)", len(arrivals), len(handshakes), docs+1)
	}
	// The schedule must hold the case that exposes the fault: a long
	// handshake followed by a much shorter one.
	drop := time.Duration(0)
	for i := 1; i < len(handshakes); i++ {
		drop = max(drop, handshakes[i-1]-handshakes[i])
	}
	if drop < 5*tolerance {
		t.Fatalf("the seeded handshakes %v never drop by more than %v: pick another seed", handshakes, drop)
	}
	least := time.Duration(1 << 62)
	for i := 1; i < len(arrivals); i++ {
		gap := arrivals[i].Sub(arrivals[i-1])
		least = min(least, gap)
		if gap < crawlDelay-tolerance {
			t.Errorf("requests %d and %d arrived %v apart (handshakes %v then %v), under the Crawl-delay of %v",
				i-1, i, gap.Round(time.Millisecond), handshakes[i-1], handshakes[i], crawlDelay)
		}
	}
	t.Logf("handshakes %v; the closest arrivals %v apart, under a Crawl-delay of %v", handshakes, least.Round(100*time.Microsecond), crawlDelay)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
