package pipeline

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// signalRig is one run against a loopback server whose robots.txt and
// per-path response headers a test sets; arrivals are read on the run's
// fake clock.
type signalRig struct {
	mu       sync.Mutex
	clk      *clock.Fake
	arrivals []time.Time
	ix       *store.Index
	sta      *state.State
	logs     []string
}

func runSignals(t *testing.T, robotsTxt string, headers map[string]http.Header, paths ...string) *signalRig {
	t.Helper()
	r := &signalRig{clk: clock.NewFake(time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC))}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.arrivals = append(r.arrivals, r.clk.Now())
		r.mu.Unlock()
		for k, v := range headers[req.URL.Path] {
			w.Header()[k] = v
		}
		if req.URL.Path == "/robots.txt" {
			fmt.Fprint(w, robotsTxt)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "The rates in force at %s are those of the schedule below, for the year of assessment.\n", req.URL.Path)
	}))
	t.Cleanup(srv.Close)
	set := &manifest.Set{Policy: policy.Default()}
	for i, p := range paths {
		u, _ := url.Parse(srv.URL + p)
		set.Sources = append(set.Sources, manifest.Source{
			Jurisdiction: "xx", ID: fmt.Sprintf("xx-%d", i), URL: u.String(), Parsed: u, Host: manifest.HostOf(u),
			Kind: manifest.TaxTable, Title: p, Recheck: 24 * time.Hour,
		})
	}
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "snapshots"))
	must(t, err)
	led, err := ledger.Open(filepath.Join(dir, "ledgers"))
	must(t, err)
	t.Cleanup(func() { led.Close() })
	r.ix, r.sta = store.NewIndex(), state.New()
	_, err = Run(t.Context(), Options{
		Set: set, Store: st, Index: r.ix, Ledger: led, State: r.sta, Limits: Limits{Clock: r.clk},
		HTTP: fetch.New(fetch.Config{UserAgent: "TaxKernelBot/1.0", AllowPrivate: true}),
		Log: func(_, msg string) {
			r.mu.Lock()
			r.logs = append(r.logs, msg)
			r.mu.Unlock()
		},
	})
	must(t, err)
	return r
}

func (r *signalRig) usage(t *testing.T, id string) *usage.Prefs {
	t.Helper()
	es := r.ix.Entries(id)
	if len(es) != 1 {
		t.Fatalf("%s: %d index entries, want 1", id, len(es))
	}
	return es[0].Usage
}

// The preferences of the robots.txt copy the fetch was decided by
// (draft-ietf-aipref-attach-05's example) and of the response's header are
// kept with each capture, the most restrictive winning; a capture nobody
// said anything about keeps none.
func TestCapturesKeepTheirPreferences(t *testing.T) {
	robotsTxt := `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y
Content-Signal: /signal/ search=yes, ai-train=no, ai-input=no
`
	hdr := map[string]http.Header{
		"/ai-ok/header": {"Content-Usage": {"train-ai=n, search=y"}},
		"/ai-ok/plain":  {"Content-Usage": {"example-new=y"}},
	}
	r := runSignals(t, robotsTxt, hdr, "/test", "/ai-ok/plain", "/ai-ok/header", "/signal/x")
	for _, tt := range []struct {
		id     string
		usage  map[string]string
		signal map[string]string
		n      int
	}{
		{"xx-0", map[string]string{"train-ai": "n"}, nil, 1},
		{"xx-1", map[string]string{"train-ai": "y", "example-new": "y"}, nil, 2},
		{"xx-2", map[string]string{"train-ai": "n", "search": "y"}, nil, 2},
		{"xx-3", map[string]string{"train-ai": "n"}, map[string]string{"search": "yes", "ai-train": "no", "ai-input": "no"}, 2},
	} {
		p := r.usage(t, tt.id)
		if p == nil {
			t.Errorf("%s: no preferences kept", tt.id)
			continue
		}
		if diff := cmp.Diff(tt.usage, p.Usage); diff != "" {
			t.Errorf("%s Content-Usage (-want +got):\n%s", tt.id, diff)
		}
		if diff := cmp.Diff(tt.signal, p.Signal); diff != "" {
			t.Errorf("%s Content-Signal (-want +got):\n%s", tt.id, diff)
		}
		if len(p.Statements) != tt.n {
			t.Errorf("%s: %d statements %+v, want %d", tt.id, len(p.Statements), p.Statements, tt.n)
		}
	}

	r = runSignals(t, "User-agent: *\nAllow: /\n", nil, "/quiet")
	if p := r.usage(t, "xx-0"); p != nil {
		t.Errorf("nothing said: kept %+v, want none", p)
	}
}

// draft-meunier-signature-agent-rep: robots.txt's max-crawl-rate of 10/m
// spaces the documents 6 s apart on the server's side, above the policy's
// 3–5 s, and the run's log says the rate it read.
func TestMaxCrawlRateSpacesTheHost(t *testing.T) {
	r := runSignals(t, "User-agent: *\nMax-crawl-rate: 10/m\nAllow: /\n", nil, "/a", "/b", "/c")
	if len(r.arrivals) != 4 {
		t.Fatalf("%d requests, want robots.txt and 3 documents", len(r.arrivals))
	}
	for i := 2; i < len(r.arrivals); i++ {
		if gap := r.arrivals[i].Sub(r.arrivals[i-1]); gap < 6*time.Second {
			t.Errorf("documents %d and %d arrived %v apart, under max-crawl-rate 10/m", i-2, i-1, gap)
		}
	}
	if !strings.Contains(strings.Join(r.logs, "\n"), "max-crawl-rate 10/m") {
		t.Errorf("the log does not say the rate read:\n%s", strings.Join(r.logs, "\n"))
	}
}

// draft-ietf-httpapi-ratelimit-headers-10: an answer with nothing remaining
// holds the next request until the reset, and the host's state keeps the
// policy it announced.
func TestRateLimitHoldsTheHost(t *testing.T) {
	hdr := map[string]http.Header{"/a": {
		"Ratelimit-Policy": {`"default";q=100;w=60`},
		"Ratelimit":        {`"default";r=0;t=30`},
	}}
	r := runSignals(t, "User-agent: *\nAllow: /\n", hdr, "/a", "/b")
	if len(r.arrivals) != 3 {
		t.Fatalf("%d requests, want robots.txt and 2 documents", len(r.arrivals))
	}
	if gap := r.arrivals[2].Sub(r.arrivals[1]); gap < 30*time.Second {
		t.Errorf("second document %v after the first, want at least the 30 s reset", gap)
	}
	var host state.Host
	for _, name := range r.sta.HostNames() {
		host = r.sta.Host(name)
	}
	if host.RateLimitPolicy != `"default";q=100;w=60` {
		t.Errorf("kept RateLimit-Policy %q", host.RateLimitPolicy)
	}
}
