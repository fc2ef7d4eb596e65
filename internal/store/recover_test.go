package store

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnindexedAndDiscard(t *testing.T) {
	s := openStore(t)
	ix := NewIndex()
	var sums []Sum
	for i := range 3 {
		sum, _, err := s.Put(t.Context(), bytes.NewReader(body(100, byte(i))))
		must(t, err)
		sums = append(sums, sum)
	}
	ix.Add("a", Entry{SHA256: sums[0], Size: 100, FinalURL: "https://x.example/a", FirstSeen: "2026-11-30"}, "")
	got, err := s.Unindexed(t.Context(), ix)
	must(t, err)
	want := slices.Sorted(slices.Values(sums[1:]))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Unindexed (-want +got):\n%s", diff)
	}
	// A leftover of an interrupted Put, and one of an interrupted index save.
	must(t, os.WriteFile(filepath.Join(s.Root(), "sha256", ".tmp-put-123"), []byte("half"), 0o444))
	must(t, os.WriteFile(filepath.Join(s.Root(), ".tmp-index.json-456"), []byte("{"), 0o644))
	for _, sum := range got {
		must(t, s.Discard(sum))
	}
	removed, err := s.RemoveLeftovers()
	must(t, err)
	if len(removed) != 2 {
		t.Errorf("RemoveLeftovers removed %v, want the two temp files", removed)
	}
	probs, err := s.Verify(t.Context(), ix)
	must(t, err)
	if len(probs) != 0 {
		t.Errorf("Verify after discarding the unindexed blobs: %v", probs)
	}
	if !s.Has(sums[0]) {
		t.Error("the indexed blob was removed")
	}
	if err := s.Discard("not-a-sum"); err == nil {
		t.Error("Discard accepted a name that is no sum")
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRemoveRefusesIndexedBlob(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kept, _, err := s.Put(t.Context(), strings.NewReader("held"))
	if err != nil {
		t.Fatal(err)
	}
	loose, _, err := s.Put(t.Context(), strings.NewReader("not kept"))
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex()
	ix.Add("src", Entry{SHA256: kept}, "")
	if err := s.Remove(kept, ix); err == nil || !strings.Contains(err.Error(), "src") {
		t.Errorf("Remove of an indexed blob: err = %v, want a refusal naming the source", err)
	}
	if !s.Has(kept) {
		t.Error("the indexed blob was removed")
	}
	if err := s.Remove(loose, ix); err != nil {
		t.Fatal(err)
	}
	if s.Has(loose) {
		t.Error("the unindexed blob is still held after Remove")
	}
}

func TestRemoveLeftoversOfDerivedTexts(t *testing.T) {
	s := openStore(t)
	dir := filepath.Join(s.Root(), "text", "v1", "ab")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".tmp-abc.txt-123")
	kept := filepath.Join(dir, "abc.txt")
	for _, p := range []string{tmp, kept} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := s.RemoveLeftovers()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, tmp) {
		t.Errorf("removed %v, want the interrupted text write %s among them", removed, tmp)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("a finished text was removed: %v", err)
	}
}

// TestDiscardStaysInTheStore: a blob's shard directory that is a link out
// of the store (a tampered cache) does not make Discard remove a file
// outside it; the refusal names the blob.
func TestDiscardStaysInTheStore(t *testing.T) {
	s := openStore(t)
	sum, _, err := s.Put(t.Context(), bytes.NewReader(body(100, 1)))
	must(t, err)
	shard := filepath.Dir(s.Path(sum))
	outside := t.TempDir()
	victim := filepath.Join(outside, string(sum))
	must(t, os.WriteFile(victim, []byte("not the store's"), 0o644))
	must(t, os.RemoveAll(shard))
	must(t, os.Symlink(outside, shard))
	err = s.Discard(sum)
	if _, serr := os.Stat(victim); serr != nil {
		t.Fatalf("Discard through a shard linked out of the store removed %s (%v)", victim, err)
	}
	if err == nil || !strings.Contains(err.Error(), string(sum)) {
		t.Errorf("Discard through a shard linked out: %v; want a refusal naming the blob", err)
	}
}
