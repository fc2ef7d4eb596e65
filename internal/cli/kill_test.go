package cli

// The kill test: a real `taxkernelbot run` process, built for the test,
// killed with SIGKILL at pseudo-random moments and restarted, then run to
// the end; and a SIGTERM that must stop a run promptly with every file
// whole. Loopback servers only; skipped under -short.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// The command, built once for the package's tests (the kill test and the
// SIGTERM test): a build is seconds of a small machine's time, linking
// alone. removeBot removes it when the tests are done (TestMain).
var (
	botOnce sync.Once
	botDir  string
	botErr  error
)

// buildBot builds cmd/taxkernelbot, once, into a temp dir and returns its
// path.
func buildBot(t testing.TB) string {
	t.Helper()
	botOnce.Do(func() {
		if botDir, botErr = os.MkdirTemp("", "taxkernelbot-cli-test-"); botErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(botDir, "taxkernelbot"), "github.com/taxkernel/taxkernelbot/cmd/taxkernelbot").CombinedOutput()
		if err != nil {
			botErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if botErr != nil {
		t.Fatal(botErr)
	}
	return filepath.Join(botDir, "taxkernelbot")
}

func removeBot() {
	if botDir != "" {
		os.RemoveAll(botDir)
	}
}

func (w *workspace) runCmd(bin string) *exec.Cmd {
	cmd := exec.Command(bin, "run", "--manifests", w.Manifests, "--snapshots", w.Snapshots,
		"--reports", w.Reports, "--state", w.State, "--run-id", "kill-test")
	cmd.Env = append(os.Environ(), "GITHUB_RUN_ID=")
	return cmd
}

// checkWhole checks what a killed or stopped run must leave: every ledger
// line whole, state, index and reports readable, every blob re-hashing to
// its name. After a kill, temp files of interrupted writes and blobs not yet
// indexed may remain (the next run clears them); at the end (final) nothing
// may: no temp file anywhere and verify clean.
func checkWhole(t *testing.T, w *workspace, final bool) {
	t.Helper()
	if final {
		filepath.WalkDir(filepath.Dir(w.State), func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
				t.Errorf("temp file left: %s", p)
			}
			return nil
		})
	}
	w.ledgerLines() // fails on a corrupt line
	if _, err := state.Load(w.State); err != nil {
		t.Errorf("state: %v", err)
	}
	ix, err := store.LoadIndex(w.indexPath())
	if err != nil {
		t.Fatalf("index: %v", err)
	}
	s, err := store.Open(w.Snapshots)
	must(t, err)
	probs, err := s.Verify(context.Background(), ix)
	must(t, err)
	for _, p := range probs {
		if final || !strings.Contains(p.Message, "unindexed") && !strings.Contains(p.Message, "temp file") {
			t.Errorf("store: %s: %s", p.Path, p.Message)
		}
	}
	if b, err := os.ReadFile(filepath.Join(w.Reports, "coverage.json")); err == nil && !json.Valid(b) {
		t.Error("coverage.json is not whole")
	}
}

func TestKilledRunsLeaveEverythingWhole(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the command and kills it 20 times")
	}
	bin := buildBot(t)
	const (
		hosts   = 4
		docs    = 10
		cap     = 40
		kills   = 20
		seed    = 7411
		maxWait = 400 * time.Millisecond
	)
	var served atomic.Int64
	var auths []*authority
	var srcs []src
	for h := range hosts {
		a := newAuthority(t, map[string]http.HandlerFunc{
			"/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
			"/": func(w http.ResponseWriter, r *http.Request) {
				// Every answer is new bytes, so every run stores blobs, and
				// big enough that a kill can land mid-body.
				n := served.Add(1)
				fmt.Fprintf(w, "%s answer %d\n%s", r.URL.Path, n, strings.Repeat("rates table row\n", 2000))
			},
		})
		auths = append(auths, a)
		for i := range docs {
			srcs = append(srcs, src{fmt.Sprintf("k-h%d-%02d", h, i), a.url(fmt.Sprintf("/doc%d", i)), ""})
		}
	}
	pol := strings.Replace(testPolicy, "daily_cap: 100", fmt.Sprintf("daily_cap: %d", cap), 1)
	pol = strings.Replace(pol, "max_body: 64KiB", "max_body: 1MiB", 1)
	w := newWorkspace(t, pol, "", srcs...)

	rng := rand.New(rand.NewPCG(seed, seed))
	killedAfter := make([]time.Duration, 0, kills)
	for range kills {
		cmd := w.runCmd(bin)
		must(t, cmd.Start())
		d := time.Duration(rng.Int64N(int64(maxWait)))
		time.Sleep(d) // the moment of the kill: real time is what a kill cuts into
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		killedAfter = append(killedAfter, d)
		checkWhole(t, w, false)
	}
	cmd := w.runCmd(bin)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != ExitOK && code != ExitFailures {
		t.Fatalf("final run: exit %d (%v)\n%s", code, err, out)
	}
	checkWhole(t, w, true)
	// The final run adopted or removed whatever the kills left unindexed.
	var vout strings.Builder
	if err := runVerify(context.Background(), verifyOptions{paths: w.paths, IO: IO{Out: &vout, Err: &vout}}); err != nil {
		t.Errorf("verify after the final run: %v\n%s", err, vout.String())
	}
	total := 0
	for _, a := range auths {
		n := len(a.seen())
		total += n
		if n > cap {
			t.Errorf("%s received %d requests over all the runs, its daily cap is %d", a.host(), n, cap)
		}
		if d := w.dispatches(a.host()); d < n {
			t.Errorf("%s received %d requests but the ledger has %d dispatch lines", a.host(), n, d)
		}
		if a.count("/private/x") != 0 {
			t.Errorf("%s: a disallowed URL was requested", a.host())
		}
	}
	blobs := len(w.blobs())
	t.Logf("killed after %v; %d requests served over %d runs, %d blobs held", killedAfter, total, kills+1, blobs)
}

func TestSIGTERMStopsPromptlyWithFilesWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildBot(t)
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/first":      text("first document"),
		"/stall": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(strings.Repeat("half a table ", 1000)))
			w.(http.Flusher).Flush()
			select {
			case arrived <- struct{}{}:
			default:
			}
			select { // until the client goes, or the test ends
			case <-r.Context().Done():
			case <-release:
			}
		},
		"/never": text("never"),
	})
	t.Cleanup(func() { close(release) })
	pol := strings.Replace(testPolicy, "timeout: 2s", "timeout: 10m", 1) // only the signal can end it
	w := newWorkspace(t, pol, "", src{"t-1", a.url("/first"), ""}, src{"t-2", a.url("/stall"), ""}, src{"t-3", a.url("/never"), ""})
	cmd := w.runCmd(bin)
	must(t, cmd.Start())
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run never reached the stalling document")
	}
	sent := time.Now()
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("still running 10s after SIGTERM")
	}
	t.Logf("stopped %v after SIGTERM, exit %d", time.Since(sent).Round(time.Millisecond), cmd.ProcessState.ExitCode())
	if a.count("/never") != 0 {
		t.Error("a request was dispatched after SIGTERM")
	}
	checkWhole(t, w, true)
	if got := w.status("t-1"); got != "fresh" {
		t.Errorf("t-1: %s, want fresh (saved on the way out)", got)
	}
	blobs := w.blobs()
	if len(blobs) != 1 {
		t.Errorf("store holds %v, want only the first document", blobs)
	}
	for _, l := range w.ledgerLines() {
		if l.Event == ledger.Dispatch && strings.HasSuffix(l.URL, "/never") {
			t.Error("a dispatch line for /never")
		}
	}
}
