package store

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encodedEntry stores a document and the bytes it came as, and returns
// the entry that names both.
func encodedEntry(t *testing.T, s *Store, doc, sent string) Entry {
	t.Helper()
	d, r := mustPut(t, s, []byte(doc)), mustPut(t, s, []byte(sent))
	return Entry{
		SHA256: d, Size: int64(len(doc)), ContentType: "text/html", FinalURL: "https://x.example/rates", FirstSeen: "2026-11-30",
		Header: map[string]string{"Content-Encoding": "gzip"},
		Sent:   &Sent{SHA256: r, Size: int64(len(sent)), Encoding: "gzip"},
	}
}

// TestSentBlobIsNamed: the bytes as sent are a blob the index names, so
// that neither the sweep of unindexed blobs, Verify nor Remove takes them
// for an orphan, and a missing one is reported as missing.
func TestSentBlobIsNamed(t *testing.T) {
	s := openStore(t)
	e := encodedEntry(t, s, "<p>rates</p>", "\x1f\x8b pretend gzip")
	ix := NewIndex()
	ix.Add("uk-rates", e, "")
	if got := e.Blobs(); !cmp.Equal(got, []Sum{e.SHA256, e.Sent.SHA256}) {
		t.Errorf("Blobs = %v", got)
	}
	orphans, err := s.Unindexed(t.Context(), ix)
	must(t, err)
	if len(orphans) != 0 {
		t.Errorf("Unindexed = %v, want none: the bytes as sent are named", orphans)
	}
	probs, err := s.Verify(context.Background(), ix)
	must(t, err)
	if len(probs) != 0 {
		t.Errorf("Verify = %v, want no problem", probs)
	}
	if err := s.Remove(e.Sent.SHA256, ix); err == nil || !strings.Contains(err.Error(), "uk-rates") || !s.Has(e.Sent.SHA256) {
		t.Errorf("Remove of the bytes as sent: %v; held %v: want a refusal naming the source", err, s.Has(e.Sent.SHA256))
	}

	lost := e
	lost.Sent = &Sent{SHA256: sumOf([]byte("never kept")), Size: 10, Encoding: "br"}
	ix.Add("de-rates", lost, "")
	probs, err = s.Verify(context.Background(), ix)
	must(t, err)
	want := []Problem{{s.Path(lost.Sent.SHA256), "missing: indexed by de-rates (as sent) but not in the store"}}
	if diff := cmp.Diff(want, probs); diff != "" {
		t.Errorf("Verify (-want +got):\n%s", diff)
	}
}

// TestSentInTheIndexFile: an entry with bytes as sent says so in one more
// member, last; an entry without has none (the file of an index with no
// coded answer is byte for byte what it was), and both read back as they
// were written.
func TestSentInTheIndexFile(t *testing.T) {
	ix := goldenIndex(false)
	e := entry(sumC, "2026-03-01")
	e.Sent = &Sent{SHA256: sumA, Size: 20, Encoding: "gzip"}
	ix.Add("fr-ir", e, "")
	got, err := ix.Marshal()
	must(t, err)
	if !strings.Contains(string(got), `"first_seen": "2026-03-01",
        "sent": {
          "sha256": "`+string(sumA)+`",
          "size": 20,
          "encoding": "gzip"
        }
      }`) {
		t.Errorf("no sent member in:\n%s", got)
	}
	if strings.Count(string(got), `"sent"`) != 1 {
		t.Errorf("entries without a Content-Encoding got a sent member:\n%s", got)
	}
	back, err := ParseIndex(got)
	must(t, err)
	if diff := cmp.Diff(ix.Entries("fr-ir"), back.Entries("fr-ir")); diff != "" {
		t.Errorf("read back (-written +read):\n%s", diff)
	}
	if _, err := ParseIndex([]byte(strings.Replace(string(got), `"encoding": "gzip"`, `"encoding": "gzip", "level": 9`, 1))); err == nil {
		t.Error("an unknown member of sent was accepted")
	}

	// What the index holds does not change under its caller.
	e.Sent.Encoding = "br"
	if got := ix.Entries("fr-ir")[0].Sent.Encoding; got != "gzip" {
		t.Errorf("the caller's entry changed the index's: %s", got)
	}
}
