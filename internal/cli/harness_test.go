package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/report"
)

// authority is a scripted tax-office server that records what it saw, the
// way an operator's access log would: arrival and completion per request.
type authority struct {
	srv *httptest.Server

	mu       sync.Mutex
	reqs     []seen
	inflight int
	maxIn    int
}

type seen struct {
	Arrived, Completed time.Time
	Method, Path       string
	Header             http.Header
}

func newAuthority(t testing.TB, routes map[string]http.HandlerFunc) *authority {
	t.Helper()
	a := &authority{}
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, h)
	}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		i := len(a.reqs)
		a.reqs = append(a.reqs, seen{Arrived: time.Now(), Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone()})
		a.inflight++
		a.maxIn = max(a.maxIn, a.inflight)
		a.mu.Unlock()
		mux.ServeHTTP(w, r)
		a.mu.Lock()
		a.inflight--
		a.reqs[i].Completed = time.Now()
		a.mu.Unlock()
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *authority) url(path string) string { return a.srv.URL + path }
func (a *authority) host() string           { return strings.TrimPrefix(a.srv.URL, "http://") }

func (a *authority) seen() []seen {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]seen(nil), a.reqs...)
}

func (a *authority) paths() []string {
	var ps []string
	for _, s := range a.seen() {
		ps = append(ps, s.Path)
	}
	return ps
}

func (a *authority) count(path string) int {
	n := 0
	for _, p := range a.paths() {
		if p == path {
			n++
		}
	}
	return n
}

// Handlers used throughout.
func text(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Error(w, http.StatusText(code), code) }
}

// workspace is a repository checkout in a temp dir: manifests, snapshots,
// reports and state, as `taxkernelbot run` sees them.
type workspace struct {
	t testing.TB
	paths
	clock clock.Clock
	out   bytes.Buffer
}

// testPolicy is a millisecond policy for loopback servers.
const testPolicy = `user_agent: "TaxKernelBot/1.0 (+https://taxkernel.com/bot)"
from: contact@taxkernel.com
delay: {min: 5ms, max: 10ms}
daily_cap: 100
backoff_max: 50ms
pause_after_403: 3
robots_ttl: 24h
timeout: 2s
max_body: 64KiB
allow_private_networks: true
`

// src is one manifest source line.
type src struct {
	id, url, extra string
}

func newWorkspace(t testing.TB, policy string, hostsBlock string, sources ...src) *workspace {
	t.Helper()
	dir := t.TempDir()
	w := &workspace{t: t, paths: paths{
		Manifests: filepath.Join(dir, "manifests"),
		Snapshots: filepath.Join(dir, "snapshots"),
		Reports:   filepath.Join(dir, "reports"),
		State:     filepath.Join(dir, "state"),
	}}
	must(t, os.MkdirAll(w.Manifests, 0o755))
	must(t, os.WriteFile(filepath.Join(w.Manifests, "policy.yaml"), []byte(policy), 0o644))
	w.writeManifest(hostsBlock, sources...)
	return w
}

// writeManifest writes the workspace's one jurisdiction file, as a
// contributor's edit would.
func (w *workspace) writeManifest(hostsBlock string, sources ...src) {
	var b strings.Builder
	b.WriteString("jurisdiction: test\nname: Test\ntimezone: UTC\n")
	b.WriteString(hostsBlock)
	b.WriteString("sources:\n")
	for _, s := range sources {
		fmt.Fprintf(&b, "  - id: %s\n    url: %s\n    kind: rates-page\n    title: %s\n    recheck: 1ms\n", s.id, s.url, s.id)
		if s.extra != "" {
			b.WriteString(s.extra)
		}
	}
	must(w.t, os.WriteFile(filepath.Join(w.Manifests, "test.yaml"), []byte(b.String()), 0o644))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// run runs `taxkernelbot run` in the workspace and returns its exit code.
func (w *workspace) run(ctx context.Context, extra ...func(*runOptions)) int {
	w.t.Helper()
	opts := runOptions{paths: w.paths, Limits: pipeline.Limits{MaxDuration: time.Minute, Clock: w.clock, RunID: "test"}, IO: IO{Out: &w.out, Err: &w.out, Getenv: func(string) string { return "" }}}
	for _, f := range extra {
		f(&opts)
	}
	err := runRun(ctx, opts)
	return exitCode(err)
}

func (w *workspace) report() map[string]report.Entry {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.Reports, "coverage.json"))
	must(w.t, err)
	r, err := report.Parse(data)
	must(w.t, err)
	m := map[string]report.Entry{}
	for _, e := range r.Sources {
		m[e.ID] = e
	}
	return m
}

func (w *workspace) status(id string) string {
	w.t.Helper()
	e, ok := w.report()[id]
	if !ok {
		w.t.Fatalf("no %s in the report", id)
	}
	return string(e.Status)
}

// ledgerLines reads every ledger line of every day and host.
func (w *workspace) ledgerLines() []ledger.Line {
	w.t.Helper()
	var lines []ledger.Line
	files, _ := filepath.Glob(filepath.Join(w.ledgerDir(), "*", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(w.t, err)
		for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			var line ledger.Line
			if err := json.Unmarshal(l, &line); err != nil {
				w.t.Fatalf("%s: corrupt line %q: %v", f, l, err)
			}
			lines = append(lines, line)
		}
	}
	return lines
}

func (w *workspace) dispatches(host string) int {
	n := 0
	for _, l := range w.ledgerLines() {
		if l.Event == ledger.Dispatch && l.Host == host {
			n++
		}
	}
	return n
}

// dispatchTimes returns the times of host's dispatch lines, in file order.
func (w *workspace) dispatchTimes(host string) []time.Time {
	var ts []time.Time
	for _, l := range w.ledgerLines() {
		if l.Event == ledger.Dispatch && l.Host == host {
			ts = append(ts, l.Time)
		}
	}
	return ts
}

// reset forgets what the server saw so far.
func (a *authority) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = nil
}
