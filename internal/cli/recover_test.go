package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestKilledRunBlobsAdoptedOrRemoved: a run killed after storing blobs but
// before saving the index leaves blobs no index names. The next run adopts
// the one the ledger proves a source served and removes the one nothing
// vouches for, so verify is clean.
func TestKilledRunBlobsAdoptedOrRemoved(t *testing.T) {
	var version atomic.Int32
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/a": func(w http.ResponseWriter, r *http.Request) {
			if version.Load() == 0 {
				w.Write([]byte("rates, first edition"))
				return
			}
			w.Write([]byte("rates, second edition"))
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-a", a.url("/a"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, w.out.String())
	}
	first := store.Sum(w.report()["t-a"].SHA256)
	// The kill: neither index.json nor state.json was saved; a blob whose
	// result line never made it to the ledger, and a temp file, were left.
	must(t, os.Remove(w.indexPath()))
	must(t, os.Remove(filepath.Join(w.State, "state.json")))
	stray := []byte("bytes no ledger line names")
	sum := sha256.Sum256(stray)
	s, err := store.Open(w.Snapshots)
	must(t, err)
	if got, _, err := s.Put(context.Background(), bytes.NewReader(stray)); err != nil || got != store.Sum(hex.EncodeToString(sum[:])) {
		t.Fatal(got, err)
	}
	must(t, os.WriteFile(filepath.Join(w.Snapshots, "sha256", ".tmp-put-1"), []byte("half"), 0o444))

	version.Store(1)
	w.out.Reset()
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, w.out.String())
	}
	ix, err := store.LoadIndex(w.indexPath())
	must(t, err)
	var hashes []store.Sum
	for _, e := range ix.Entries("t-a") {
		hashes = append(hashes, e.SHA256)
	}
	if len(hashes) != 2 || hashes[0] != first {
		t.Errorf("t-a's index entries %v, want the adopted first edition %s, then the second", hashes, first)
	}
	if e, _ := ix.Lookup("t-a", first); e.FinalURL != a.url("/a") || e.ContentType == "" || e.Size != int64(len("rates, first edition")) {
		t.Errorf("adopted entry %+v: want its URL, content type and size from the ledger", e)
	}
	if s.Has(store.Sum(hex.EncodeToString(sum[:]))) {
		t.Error("a blob nothing vouches for was kept")
	}
	w.out.Reset()
	if code := exitCode(runVerify(ctx, verifyOptions{paths: w.paths, IO: IO{Out: &w.out, Err: &w.out}})); code != ExitOK {
		t.Errorf("verify after the recovering run: exit %d\n%s", code, w.out.String())
	}
}

// TestRoutineRunClaimsNoRepair: the bytes a second ordinary cycle carries
// from the bot's open pull request into a fresh checkout are not the
// leftovers of an interrupted run, and the run does not say they are; a
// blob a run stored but never indexed still is, and is said.
func TestRoutineRunClaimsNoRepair(t *testing.T) {
	t.Parallel()
	var version atomic.Value
	version.Store("v1")
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("income tax rates 2026 " + version.Load().(string)))
		},
	})
	p := newPipelineRepo(t)
	sources := []src{{"t-rates", a.url("/rates"), ""}}
	w1 := newWorkspace(t, testPolicy, "", sources...)
	if code := p.ci(w1, "100-1"); code != ExitOK {
		t.Fatalf("first ci: exit %d\n%s", code, w1.out.String())
	}
	if len(p.gh.PRs()) != 1 {
		t.Fatalf("no pull request after the first cycle\n%s", w1.out.String())
	}
	// A fresh checkout of main, the blob waiting in the pull request.
	w2 := newWorkspace(t, testPolicy, "", sources...)
	if code := p.ci(w2, "101-1"); code != ExitOK {
		t.Fatalf("second ci: exit %d\n%s", code, w2.out.String())
	}
	if strings.Contains(w2.out.String(), "interrupted") {
		t.Errorf("a routine cycle claims to repair an interrupted run:\n%s", w2.out.String())
	}
	ix, err := store.LoadIndex(w2.indexPath())
	must(t, err)
	first := store.Sum(w1.report()["t-rates"].SHA256)
	if _, ok := ix.Lookup("t-rates", first); !ok {
		t.Errorf("the fresh checkout's index lacks the carried %.12s: %v", first, ix.Entries("t-rates"))
	}

	// A real interruption: the next run stores the new edition and is
	// killed before its index is saved.
	before, err := os.ReadFile(w2.indexPath())
	must(t, err)
	version.Store("v2")
	w2.out.Reset()
	if code := p.ci(w2, "102-1"); code != ExitOK {
		t.Fatalf("third ci: exit %d\n%s", code, w2.out.String())
	}
	must(t, os.WriteFile(w2.indexPath(), before, 0o644))
	w2.out.Reset()
	if code := p.ci(w2, "103-1"); code != ExitOK {
		t.Fatalf("fourth ci: exit %d\n%s", code, w2.out.String())
	}
	if !strings.Contains(w2.out.String(), "after an interrupted run, 1 blob(s) put back into the index") {
		t.Errorf("the blob an interrupted run left unindexed is not said:\n%s", w2.out.String())
	}
}
