package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
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
	rec, err := Recover(t.Context(), s, ix, filepath.Join(dir, "ledgers"), st, nil)
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

// TestRecoverRemovesSameTextBytesAKilledRunLeft: a run killed before its
// end leaves new bytes that say what the held ones say (it keeps none of
// those); the next run removes them instead of adopting them, and still
// adopts new bytes that say something new.
func TestRecoverRemovesSameTextBytesAKilledRunLeft(t *testing.T) {
	dir := t.TempDir()
	mdir := filepath.Join(dir, "manifests")
	if err := os.MkdirAll(mdir, 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "jurisdiction: xx\nname: Test\ntimezone: UTC\nsources:\n" +
		"  - {id: xx-blink, url: \"https://x.example/blink\", kind: rates-page, title: Blink}\n" +
		"  - {id: xx-real, url: \"https://x.example/real\", kind: rates-page, title: Real}\n"
	if err := os.WriteFile(filepath.Join(mdir, "xx.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	set, diags := manifest.Load(mdir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
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
	page := func(rate, token string) string {
		return "<html><body><p>Basic rate " + rate + "</p><script>var token='" + token + "'</script></body></html>"
	}
	heldBlink, heldReal := put(page("20%", "a")), put(page("40%", "a"))
	blink, real := put(page("20%", "b")), put(page("45%", "b"))
	ix := store.NewIndex()
	st := state.New()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for id, sum := range map[string]store.Sum{"xx-blink": heldBlink, "xx-real": heldReal} {
		ix.Add(id, store.Entry{SHA256: sum, ContentType: "text/html", FirstSeen: "2026-11-29"}, "")
		st.PutSource(id, state.Source{Status: state.Fresh, SHA256: sum, ContentType: "text/html", LastGood: at.Add(-24 * time.Hour)})
	}
	led, err := ledger.Open(filepath.Join(dir, "ledgers"))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	for id, sum := range map[string]store.Sum{"xx-blink": blink, "xx-real": real} {
		if err := led.Append(ledger.Line{Event: ledger.Result, Time: at, Host: "x.example", URL: "https://x.example/" + id, Purpose: ledger.PurposeDocument, Source: id, Status: 200, SHA256: sum.String(), ContentType: "text/html"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Recover(t.Context(), s, ix, filepath.Join(dir, "ledgers"), st, set); err != nil {
		t.Fatal(err)
	}
	if s.Has(blink) {
		t.Error("bytes that say the same text as the held ones were kept")
	}
	if _, ok := ix.Lookup("xx-blink", blink); ok {
		t.Error("bytes that say the same text were indexed")
	}
	if _, ok := ix.Lookup("xx-real", real); !ok {
		t.Error("new bytes that say something new were not adopted")
	}
}

// TestRecoverKeepsTheBytesAsSent: the bytes an indexed document was sent
// as are named, not orphans: Recover keeps them. Those of an answer the
// index does not keep (a run killed before its sweep) are removed, and a
// document adopted by its ledger line comes back without them.
func TestRecoverKeepsTheBytesAsSent(t *testing.T) {
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
	doc, sent, otherLevel := put("<p>rates</p>"), put("gzip -9 of rates"), put("gzip -1 of rates")
	ix := store.NewIndex()
	ix.Add("a", store.Entry{SHA256: doc, Size: 12, FinalURL: "https://x.example/a", FirstSeen: "2026-11-29",
		Sent: &store.Sent{SHA256: sent, Size: 16, Encoding: "gzip"}}, "")
	killed, killedSent := put("<p>rates 2</p>"), put("gzip of rates 2")
	led, err := ledger.Open(filepath.Join(dir, "ledgers"))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	if err := led.Append(ledger.Line{Event: ledger.Result, Time: at, Host: "x.example", URL: "https://x.example/b", Purpose: ledger.PurposeDocument, Source: "b", Status: 200, Bytes: 14, SHA256: killed.String()}); err != nil {
		t.Fatal(err)
	}
	rec, err := Recover(t.Context(), s, ix, filepath.Join(dir, "ledgers"), state.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Has(sent) || !s.Has(doc) {
		t.Errorf("an indexed document or its bytes as sent were removed: %+v", rec)
	}
	if s.Has(otherLevel) || s.Has(killedSent) {
		t.Errorf("bytes as sent that no entry names were kept: %+v", rec)
	}
	if e, ok := ix.Lookup("b", killed); !ok || e.Sent != nil {
		t.Errorf("the killed run's document: %+v, %v; want adopted, without bytes as sent", e, ok)
	}
	if probs, err := s.Verify(t.Context(), ix); err != nil || len(probs) != 0 {
		t.Errorf("verify: %v, %v", probs, err)
	}
}
