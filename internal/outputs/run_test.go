package outputs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// fixture is a run's directories and manifests, in a fresh directory.
type fixture struct {
	d   Dirs
	set *manifest.Set
}

// newFixture writes a millisecond policy and a manifest of the sources
// ids (each a page on a loopback address nothing listens on) and loads them.
func newFixture(t testing.TB, ids ...string) fixture {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("jurisdiction: test\nname: Test\ntimezone: UTC\nsources:\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "  - id: %s\n    url: http://127.0.0.1:%d/%s\n    kind: rates-page\n    title: %s\n", id, 10000+len(id)%7, id, id)
	}
	manifests := filepath.Join(dir, "manifests")
	must(t, os.MkdirAll(manifests, 0o755))
	must(t, os.WriteFile(filepath.Join(manifests, "policy.yaml"), []byte(policyYAML), 0o644))
	must(t, os.WriteFile(filepath.Join(manifests, "test.yaml"), []byte(b.String()), 0o644))
	set, diags := manifest.Load(manifests)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return fixture{
		d:   Dirs{Snapshots: filepath.Join(dir, "snapshots"), Reports: filepath.Join(dir, "reports"), Ledgers: filepath.Join(dir, "state", "ledgers")},
		set: set,
	}
}

const policyYAML = `user_agent: "TaxKernelBot/1.0 (+https://taxkernel.com/bot)"
from: contact@taxkernel.com
delay: {min: 5ms, max: 10ms}
daily_cap: 100
allow_private_networks: true
`

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRunWriterWaitsForTheAnswersToPause: feeds are written once the
// answers pause, not among them, where they would take the CPU the hosts'
// next requests want; at once when a host's turn is over; and what is
// still queued at the stop is left to the end. The writer's timers are a
// fake clock's: each fires when the test moves its time.
func TestRunWriterWaitsForTheAnswersToPause(t *testing.T) {
	o := newFixture(t, "t-a", "t-b", "t-c", "t-d")
	written := func(id string) bool {
		_, err := os.Stat(filepath.Join(o.d.Reports, "feeds", "sources", id+".atom"))
		return err == nil
	}
	eventually := func(id, what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !written(id); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s's feed was not written %s", id, what)
			}
		}
	}
	timers := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	set := 0 // timers the writer has set so far
	next := func(want time.Duration) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		got, err := timers.AwaitAfters(ctx, set+1)
		if err != nil {
			t.Fatalf("the writer set no timer of %v", want)
		}
		if got[set] != want {
			t.Fatalf("the writer set a timer of %v, want %v", got[set], want)
		}
		set++
	}
	w := newRun(o.d, nil, o.set, state.New(), store.NewIndex())
	w.timers = timers
	w.start()

	// An answer, and another before the quiet is up: nothing is written
	// until a quiet passes with no answer in it.
	w.SourceDone("t-a")
	next(feedHoldMax)
	next(feedQuiet)
	w.SourceDone("t-b")
	timers.Advance(feedQuiet) // the first quiet is up, with an answer in it
	next(feedQuiet)
	if written("t-a") || written("t-b") {
		t.Fatal("feeds were written while answers were still coming")
	}
	timers.Advance(feedQuiet) // a quiet with no answer
	eventually("t-a", "after a quiet with no answer")
	eventually("t-b", "after a quiet with no answer")

	// A host's turn is over: written with no timer fired.
	w.SourceDone("t-c")
	next(feedHoldMax)
	next(feedQuiet)
	w.HostDone()
	eventually("t-c", "when its host's turn was over")

	// What is still queued at the stop is the end's to write, beside the
	// pages, not the writer's after a pause.
	w.SourceDone("t-d")
	next(feedHoldMax)
	next(feedQuiet)
	stopped := make(chan func(string) bool)
	go func() { stopped <- w.stop() }()
	select {
	case done := <-stopped:
		if !done("t-a") || !done("t-c") || done("t-d") || written("t-d") {
			t.Errorf("at the stop: t-a done %v, t-c done %v, t-d done %v, t-d written %v; want true, true, false, false", done("t-a"), done("t-c"), done("t-d"), written("t-d"))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stop waited for the answers to pause")
	}
}

// queued is how many feeds w has yet to begin writing.
func (w *Run) queued() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue)
}

// begun waits until w has begun to write all it was given.
func begun(t *testing.T, w *Run) {
	t.Helper()
	w.HostDone()
	for deadline := time.Now().Add(10 * time.Second); w.queued() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the feed writer did not begin to write what it was given")
		}
	}
}

// TestRunWriterLeavesToTheEndWhatItCouldNotWrite: a feed the writer
// could not write is not named done, so that the end writes it (or says
// why not).
func TestRunWriterLeavesToTheEndWhatItCouldNotWrite(t *testing.T) {
	o := newFixture(t, "t-a", "t-b")
	// A directory where t-b's feed should be.
	must(t, os.MkdirAll(filepath.Join(o.d.Reports, "feeds", "sources", "t-b.atom", "x"), 0o755))
	w := Start(o.d, nil, o.set, state.New(), store.NewIndex())
	w.SourceDone("t-a")
	w.SourceDone("no-such-source")
	begun(t, w)
	done := w.stop()
	if !done("t-a") || done("no-such-source") {
		t.Errorf("done t-a %v, no-such-source %v; want true, false", done("t-a"), done("no-such-source"))
	}
	w = Start(o.d, nil, o.set, state.New(), store.NewIndex())
	w.SourceDone("t-b")
	begun(t, w)
	if done := w.stop(); done("t-b") {
		t.Error("t-b's feed could not be written, yet is named done")
	}
	if _, err := os.Stat(filepath.Join(o.d.Reports, "feeds", "sources", "t-a.atom")); err != nil {
		t.Errorf("t-a's feed: %v", err)
	}
}

// TestRunEndWritesTheSite: a run's end writes the site's pages; a quiet
// run's end writes none of them again; after one source changed, only
// its page, its TimeMap and its jurisdiction's page are written, and a
// page removed from the directory is rendered again.
func TestRunEndWritesTheSite(t *testing.T) {
	o := newFixture(t, "t-a", "t-b")
	ix := store.NewIndex()
	sum := func(s string) store.Sum { return store.Sum(strings.Repeat(s, 64)) }
	ix.Add("t-a", store.Entry{SHA256: sum("a"), Size: 1, FirstSeen: "2026-11-02"}, "")
	ix.Add("t-b", store.Entry{SHA256: sum("b"), Size: 1, FirstSeen: "2026-11-02"}, "")
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	end := func() {
		t.Helper()
		must(t, Start(o.d, nil, o.set, state.New(), ix).End(now))
	}
	page := func(name string) os.FileInfo {
		t.Helper()
		fi, err := os.Stat(filepath.Join(o.d.Reports, filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("the site's %s: %v", name, err)
		}
		return fi
	}
	end()
	names := []string{public.SourcePage("t-a"), public.SourcePage("t-b"), public.TimeMapOf("t-a"), public.JurisdictionPage("test"), public.SiteDir + "/index.html", public.SiteInputs}
	before := map[string]os.FileInfo{}
	for _, name := range names {
		before[name] = page(name)
	}
	end() // quiet
	for _, name := range names {
		if !os.SameFile(before[name], page(name)) {
			t.Errorf("a quiet run's end wrote %s again", name)
		}
	}
	ix.Add("t-b", store.Entry{SHA256: sum("c"), Size: 1, FirstSeen: "2026-11-30"}, sum("b"))
	must(t, os.Remove(filepath.Join(o.d.Reports, filepath.FromSlash(public.TimeMapOf("t-a")))))
	end()
	for _, name := range names {
		changed := name == public.SourcePage("t-b") || name == public.JurisdictionPage("test") || name == public.SiteInputs || name == public.TimeMapOf("t-a")
		if same := os.SameFile(before[name], page(name)); same == changed {
			t.Errorf("after t-b changed, %s written: %v, want %v", name, !same, changed)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(o.d.Reports, filepath.FromSlash(public.SourcePage("t-b")))); !strings.Contains(string(data), "<h3>2026-11-30: changed</h3>") {
		t.Errorf("t-b's page does not show its change:\n%s", data)
	}
}
