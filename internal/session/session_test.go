package session

import (
	"bytes"
	"context"
	"errors"
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
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

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

// server is a loopback tax office that counts what it is asked.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// ratesServer has no robots.txt and answers every other path with a page
// of rates of its own.
func ratesServer(t *testing.T) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "rates for "+r.URL.Path)
	})
}

func (s *server) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

func (s *server) host() string { return strings.TrimPrefix(s.URL, "http://") }

// options is a session in a fresh working directory over the sources
// (id → URL), on clk, printing to out.
func options(t *testing.T, clk clock.Clock, out *bytes.Buffer, sources ...[2]string) Options {
	t.Helper()
	dir := t.TempDir()
	set := testSet(t, filepath.Join(dir, "manifests"), sources...)
	return Options{
		Dirs: Dirs{
			Snapshots: filepath.Join(dir, "snapshots"),
			Reports:   filepath.Join(dir, "reports"),
			State:     filepath.Join(dir, "state"),
		},
		Output: Output{Out: out, Err: out},
		Set:    set, Limits: pipeline.Limits{MaxDuration: time.Minute, RunID: "test", Clock: clk},
		Outputs: func(set *manifest.Set, st *state.State, ix *store.Index) RunOutputs {
			return outputs.Start(outputs.Dirs{Snapshots: filepath.Join(dir, "snapshots"), Reports: filepath.Join(dir, "reports"), Ledgers: filepath.Join(dir, "state", "ledgers")}, nil, set, st, ix)
		},
	}
}

// testSet writes the test policy and a manifest of the sources (id → URL)
// into the directory manifests, and loads them.
func testSet(t testing.TB, manifests string, sources ...[2]string) *manifest.Set {
	t.Helper()
	var b strings.Builder
	b.WriteString("jurisdiction: test\nname: Test\ntimezone: UTC\nsources:\n")
	for _, s := range sources {
		fmt.Fprintf(&b, "  - id: %s\n    url: %s\n    kind: rates-page\n    title: %s\n    recheck: 1ms\n", s[0], s[1], s[0])
	}
	must(t, os.MkdirAll(manifests, 0o755))
	must(t, os.WriteFile(filepath.Join(manifests, "policy.yaml"), []byte(testPolicy), 0o644))
	must(t, os.WriteFile(filepath.Join(manifests, "test.yaml"), []byte(b.String()), 0o644))
	set, diags := manifest.Load(manifests)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return set
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSavedAfterCancel: a session whose ctx is cancelled after its first
// document saves the state, the index and the report all the same, with
// the document it fetched, and says it was interrupted.
func TestSavedAfterCancel(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	srv := ratesServer(t)
	var out bytes.Buffer
	o := options(t, clk, &out, [2]string{"t-a", srv.URL + "/a"}, [2]string{"t-b", srv.URL + "/b"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// robots.txt, then the first document: the run is cancelled as its
	// check is logged (recorded in the state just before), while the
	// second waits for its spacing.
	o.Output.Err = cancelOn{&out, "t-a " + srv.URL + "/a → 200", cancel}
	res, err := Run(ctx, o)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want an interruption by the cancel\n%s", err, out.String())
	}
	if got := srv.seen(); len(got) != 2 || got[1] != "/a" {
		t.Fatalf("the server saw %q, want robots.txt and /a only", got)
	}
	if res.Report != filepath.Join(o.Reports, "coverage.md") {
		t.Errorf("Result.Report %q", res.Report)
	}
	st, err := state.Load(o.State)
	must(t, err)
	if s := st.Source("t-a"); s.Status != state.Fresh || s.SHA256 == "" {
		t.Errorf("state of t-a after the cancel: %+v, want fresh with its hash", s)
	}
	ix, err := store.LoadIndex(o.IndexPath())
	must(t, err)
	if len(ix.Entries("t-a")) == 0 {
		t.Error("the index does not name t-a's document")
	}
	data, err := os.ReadFile(filepath.Join(o.Reports, "coverage.json"))
	must(t, err)
	rep, err := report.Parse(data)
	must(t, err)
	statuses := map[string]string{}
	for _, e := range rep.Sources {
		statuses[e.ID] = string(e.Status)
	}
	if statuses["t-a"] != "fresh" {
		t.Errorf("report after the cancel: %v, want t-a fresh", statuses)
	}
}

// TestLimitsReachTheRunAsGiven: the limits a session is given are the
// run's (Only here), and its Progress hook hears the run's counts, the
// last of them the result's.
func TestLimitsReachTheRunAsGiven(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	srv := ratesServer(t)
	var out bytes.Buffer
	o := options(t, clk, &out, [2]string{"t-a", srv.URL + "/a"}, [2]string{"t-b", srv.URL + "/b"})
	o.Only = "t-a"
	var mu sync.Mutex
	var heard []int
	o.Progress = func(r pipeline.Result) {
		mu.Lock()
		heard = append(heard, r.Dispatches)
		mu.Unlock()
	}
	res, err := Run(t.Context(), o)
	must(t, err)
	if got := srv.seen(); len(got) != 2 || got[1] != "/a" {
		t.Fatalf("the server saw %q, want robots.txt and /a only", got)
	}
	if len(heard) == 0 || heard[len(heard)-1] != res.Dispatches || res.Dispatches != 2 {
		t.Errorf("Progress heard dispatches %v, the result says %d, want 2 last", heard, res.Dispatches)
	}
}

// cancelOn writes to w and cancels once a write holds line.
type cancelOn struct {
	w      *bytes.Buffer
	line   string
	cancel func()
}

func (c cancelOn) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(c.line)) {
		c.cancel()
	}
	return c.w.Write(p)
}

// TestRunRefusesWhileAnotherRunHoldsTheState: the lock keeps a second run
// on the machine from sharing the state; it sends nothing.
func TestRunRefusesWhileAnotherRunHoldsTheState(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "x") })
	var out bytes.Buffer
	o := options(t, clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)), &out, [2]string{"t-doc", srv.URL + "/doc"})
	unlock, err := lockState(o.lockPath())
	must(t, err)
	defer unlock()
	if _, err := Run(t.Context(), o); !errors.Is(err, ErrCannot) || !strings.Contains(err.Error(), "another run holds") {
		t.Fatalf("Run: %v, want ErrCannot while another run holds the state", err)
	}
	if len(srv.seen()) != 0 {
		t.Fatal("a request was made while another run held the state")
	}
}

// TestDirectoriesOpenWhileTheManifestsLoad: with Load, the run holds its
// lock (its directories open) before the manifests are loaded, rather than
// after; a Load that fails lets the lock go and its error is the run's.
func TestDirectoriesOpenWhileTheManifestsLoad(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "x") })
	var out bytes.Buffer
	o := options(t, clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)), &out, [2]string{"t-doc", srv.URL + "/doc"})
	set := o.Set
	o.Set = nil
	// Load returns once another taker of the lock is refused: if the run
	// opened its directories only after Load, it would never return.
	o.Load = func() (*manifest.Set, error) {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			unlock, err := lockState(o.lockPath())
			if err != nil {
				return set, nil
			}
			unlock()
			time.Sleep(time.Millisecond)
		}
		return nil, errors.New("the lock was still free after 10 s of loading")
	}
	if _, err := Run(t.Context(), o); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}

	bad := errors.New("2 problem(s) in manifests")
	o.Load = func() (*manifest.Set, error) { return nil, bad }
	if _, err := Run(t.Context(), o); err != bad {
		t.Fatalf("Run with a failing Load: %v, want Load's error as it is", err)
	}
	unlock, err := lockState(o.lockPath())
	if err != nil {
		t.Fatalf("after a failed Load the lock is still held: %v", err)
	}
	// The manifests' problems come first: another run holding the lock
	// is the lesser news.
	if _, err := Run(t.Context(), o); err != bad {
		t.Errorf("Run with a failing Load while another run holds the lock: %v, want Load's error", err)
	}
	unlock()
}

// TestLedgerSpentCountsTheDaysDispatches: the dry run's count of what a
// host already spent reads its ledger of the day, and finds nothing for a
// host or a day without one.
func TestLedgerSpentCountsTheDaysDispatches(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "x")
	})
	var out bytes.Buffer
	o := options(t, clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), &out, [2]string{"t-a", srv.URL + "/a"}, [2]string{"t-b", srv.URL + "/b"})
	if _, err := Run(t.Context(), o); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	spent := ledgerSpent(o.LedgerDir())
	for _, c := range []struct {
		host, day string
		want      int
	}{{srv.host(), "2026-11-30", 3}, {"other.example", "2026-11-30", 0}, {srv.host(), "2026-11-29", 0}} {
		if got, err := spent(c.host, c.day); err != nil || got != c.want {
			t.Errorf("%s on %s: %d, %v; want %d", c.host, c.day, got, err, c.want)
		}
	}
}

// TestASettlerSettlesAHostAWhileAfterItsTurn: a host's lines are settled
// once its wait is over; a host whose wait is not over when the run ends
// is left to the end's Close, and stop returns without waiting it out.
// The settler's timers are a fake clock's, driven by the test.
func TestASettlerSettlesAHostAWhileAfterItsTurn(t *testing.T) {
	timers := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	settled := make(chan string, 2)
	s := &settler{
		settle: func(host string) { settled <- host },
		timers: timers,
		ended:  make(chan struct{}),
	}
	awaitTimers := func(n int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		got, err := timers.AwaitAfters(ctx, n)
		if err != nil {
			t.Fatalf("the settler set %d timers, want %d", len(got), n)
		}
		if got[n-1] != settleDelay {
			t.Fatalf("the settler waits %v, want %v", got[n-1], settleDelay)
		}
	}
	s.hostDone("a.example")
	awaitTimers(1)
	timers.Advance(settleDelay - time.Millisecond)
	select {
	case host := <-settled:
		t.Fatalf("%s was settled before its wait was over", host)
	default:
	}
	timers.Advance(time.Millisecond) // a.example's wait is over
	if got := <-settled; got != "a.example" {
		t.Fatalf("settled %s, want a.example", got)
	}
	s.hostDone("b.example")
	awaitTimers(2) // b.example waits, and the run ends first
	s.stop()
	select {
	case host := <-settled:
		t.Errorf("%s was settled after the run ended; it is Close's", host)
	default:
	}
}

// TestErrorKinds: each way a session ends has its kind, and the message is
// the cause's, unprefixed.
func TestErrorKinds(t *testing.T) {
	var out bytes.Buffer
	o := options(t, clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)), &out, [2]string{"t-doc", "http://127.0.0.1:1/doc"})
	o.Only = "T-DOC"
	_, err := Run(t.Context(), o)
	if !errors.Is(err, ErrUsage) || !strings.HasPrefix(err.Error(), `--only "T-DOC" names no source id`) {
		t.Errorf("an --only that names nothing: %v, want ErrUsage", err)
	}
	o.Only = ""
	o.Output.Getenv = func(k string) string { return map[string]string{"TAXKERNELBOT_SIGNING_KEY": "not a key"}[k] }
	if _, err := Run(t.Context(), o); !errors.Is(err, ErrUsage) {
		t.Errorf("a signing key that does not parse: %v, want ErrUsage", err)
	}
	if errors.Is(&kindError{ErrCannot, pipeline.ErrFatal}, ErrUsage) {
		t.Error("a kind is not another")
	}
}

// TestFeedsWrittenDuringTheRunAreTheEndsOwn: each source's feed, written
// while the run goes on, holds what the end would have written: the pages
// rewritten afterwards from the saved state and index change nothing, and
// each source's feed holds its first copy.
func TestFeedsWrittenDuringTheRunAreTheEndsOwn(t *testing.T) {
	srv := ratesServer(t)
	var out bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	o := options(t, clk, &out, [2]string{"t-a", srv.URL + "/a"}, [2]string{"t-b", srv.URL + "/b"})
	if _, err := Run(t.Context(), o); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	feeds := func() map[string]string {
		m := map[string]string{}
		must(t, filepath.WalkDir(filepath.Join(o.Reports, "feeds"), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			m[path] = string(data)
			return err
		}))
		return m
	}
	before := feeds()
	for _, id := range []string{"t-a", "t-b"} {
		if f := before[filepath.Join(o.Reports, "feeds", "sources", id+".atom")]; !strings.Contains(f, "first copy") {
			t.Errorf("%s's feed holds no first copy:\n%s", id, f)
		}
	}
	st, err := state.Load(o.State)
	must(t, err)
	ix, err := store.LoadIndex(o.IndexPath())
	must(t, err)
	files, err := outputs.Render(t.Context(), outputs.Input{
		Set: o.Set, Report: report.Build(o.Set, st), State: st, Index: ix, Now: clk.Now(),
		Texts: outputs.Derived{Snapshots: o.Snapshots}, Blob: outputs.BlobLinks(nil),
	})
	must(t, err)
	after := map[string]string{}
	for _, f := range files.Feeds {
		if strings.HasPrefix(f.Name, "feeds/") {
			after[filepath.Join(o.Reports, filepath.FromSlash(f.Name))] = string(f.Data)
		}
	}
	if len(after) != len(before) {
		t.Fatalf("%d feeds after the run, %d rendered again", len(before), len(after))
	}
	for path, data := range after {
		if before[path] != data {
			t.Errorf("%s differs from what the run wrote", path)
		}
	}
}
