package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

func TestRecover(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(filepath.Join(dir, "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(b string) store.Sum {
		sum, _, err := s.Put(t.Context(), bytes.NewReader([]byte(b)))
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	byLedger, byState, robotsOnly, corrupt, stray := put("by ledger"), put("by state"), put("robots bytes"), put("corrupt"), put("stray")
	led, err := ledger.Open(filepath.Join(dir, "ledgers"))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, l := range []ledger.Line{
		{Event: ledger.Result, Time: at, Host: "x.example", URL: "https://x.example/a", Purpose: ledger.PurposeDocument, Source: "a", Status: 200, Bytes: 9, SHA256: byLedger.String(), ContentType: "text/html"},
		// A robots.txt body is no document: it proves nothing.
		{Event: ledger.Result, Time: at, Host: "x.example", URL: "https://x.example/robots.txt", Purpose: ledger.PurposeRobots, Status: 200, SHA256: robotsOnly.String()},
		{Event: ledger.Result, Time: at, Host: "x.example", URL: "https://x.example/c", Purpose: ledger.PurposeDocument, Source: "c", Status: 200, SHA256: corrupt.String()},
	} {
		if err := led.Append(l); err != nil {
			t.Fatal(err)
		}
	}
	st := state.New()
	st.PutSource("b", state.Source{Status: state.Fresh, SHA256: byState, Size: 8, FinalURL: "https://x.example/b", LastGood: at})
	// A blob whose bytes changed on disk is not adopted, whatever vouches.
	p := s.Path(corrupt)
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte("tampered"), 0o444); err != nil {
		t.Fatal(err)
	}
	ix := store.NewIndex()
	rec, err := Recover(t.Context(), s, ix, filepath.Join(dir, "ledgers"), st)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := ix.Lookup("a", byLedger); !ok || e.FinalURL != "https://x.example/a" || e.ContentType != "text/html" || e.FirstSeen != "2026-11-30" {
		t.Errorf("ledger-proven blob: %+v, %v", e, ok)
	}
	if _, ok := ix.Lookup("b", byState); !ok {
		t.Error("state-proven blob not adopted")
	}
	for _, sum := range []store.Sum{robotsOnly, corrupt, stray} {
		if s.Has(sum) {
			t.Errorf("unproven or corrupt blob %s kept", sum)
		}
	}
	if len(rec.Adopted) != 2 || len(rec.Removed) != 3 {
		t.Errorf("Recovered %+v, want 2 adopted, 3 removed", rec)
	}
	left, err := s.Unindexed(t.Context(), ix)
	if err != nil || len(left) != 0 {
		t.Errorf("still unindexed: %v, %v", left, err)
	}
	probs, err := s.Verify(t.Context(), ix)
	if err != nil || len(probs) != 0 {
		t.Errorf("verify: %v, %v", probs, err)
	}
}
