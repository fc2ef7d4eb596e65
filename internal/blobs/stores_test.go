package blobs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/blobs/blobstest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

func local(t *testing.T) *blobs.Local {
	t.Helper()
	s, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return blobs.NewLocal(s)
}

func put(t *testing.T, b blobs.Backend, data []byte) store.Sum {
	t.Helper()
	sum := blobstest.SumOf(data)
	if err := b.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	return sum
}

func corrupt(t *testing.T, l *blobs.Local, sum store.Sum) {
	t.Helper()
	p := l.Path(sum)
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("not these bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A hash is fetched from whichever store holds it, verified: a corrupt
// copy is passed over for an intact one, and when none holds it the error
// names every store asked.
func TestStoresServeAnyHashVerified(t *testing.T) {
	ctx := context.Background()
	a, b, dst := local(t), local(t), local(t)
	data := []byte("Personal Allowance £12,570")
	sum := put(t, a, data)
	put(t, b, data)
	only := put(t, b, []byte("held by b alone"))
	ss := blobs.Stores{a, b}

	rc, from, err := ss.Load(ctx, only)
	if err != nil || from != b.Name() {
		t.Fatalf("Load of a blob only b holds: from %q, %v", from, err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(got) != "held by b alone" {
		t.Errorf("Load: %q, %v", got, err)
	}

	corrupt(t, a, sum)
	from, err = ss.CopyTo(ctx, sum, dst, t.TempDir())
	if err != nil || from != b.Name() {
		t.Fatalf("CopyTo past a corrupt copy: from %q, %v; want from %s", from, err, b.Name())
	}
	rc, err = dst.Load(ctx, sum)
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("the copy: %q, %v", got, err)
	}

	missing := blobstest.SumOf([]byte("never held"))
	if _, _, err := ss.Load(ctx, missing); !errors.Is(err, blobs.ErrNotFound) || !strings.Contains(err.Error(), a.Name()) || !strings.Contains(err.Error(), b.Name()) {
		t.Errorf("Load of a hash none holds: %v; want ErrNotFound naming both stores", err)
	}
	if _, err := ss.CopyTo(ctx, missing, dst, t.TempDir()); !errors.Is(err, blobs.ErrNotFound) {
		t.Errorf("CopyTo of a hash none holds: %v", err)
	}
	corrupt(t, b, sum)
	other := local(t)
	if _, err := ss.CopyTo(ctx, sum, other, t.TempDir()); !errors.Is(err, blobs.ErrCorrupt) {
		t.Errorf("CopyTo where every copy is corrupt: %v, want ErrCorrupt", err)
	}
}

// The census names each cited hash held by fewer stores than asked, with
// the sources that cite it and the stores that hold it.
func TestStoresCensus(t *testing.T) {
	ctx := context.Background()
	a, b := local(t), local(t)
	twice := put(t, a, []byte("twice"))
	put(t, b, []byte("twice"))
	once := put(t, a, []byte("once"))
	never := blobstest.SumOf([]byte("never"))
	ix := store.NewIndex()
	for id, sum := range map[string]store.Sum{"uk-a": twice, "uk-b": once, "uk-c": never, "uk-d": once} {
		ix.Add(id, store.Entry{SHA256: sum, FinalURL: "https://www.gov.uk/" + id, FirstSeen: "2026-12-07"}, "")
	}
	short, err := blobs.Stores{a, b}.Census(ctx, ix, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(short) != 2 {
		t.Fatalf("census: %+v; want the hash held once and the one held nowhere", short)
	}
	for _, s := range short {
		switch s.SHA256 {
		case once:
			if strings.Join(s.Sources, ",") != "uk-b,uk-d" || len(s.Holders) != 1 || s.Holders[0] != a.Name() {
				t.Errorf("the hash held once: %+v", s)
			}
		case never:
			if len(s.Holders) != 0 {
				t.Errorf("the hash held nowhere: %+v", s)
			}
		default:
			t.Errorf("census names %s, held twice", s.SHA256.Short())
		}
	}
}

// A rotating sample covers every hash in turn, n at a time.
func TestSampleRotates(t *testing.T) {
	ix := store.NewIndex()
	for i := range 7 {
		ix.Add("uk-a", store.Entry{SHA256: blobstest.SumOf([]byte{byte(i)}), FinalURL: "https://www.gov.uk/a", FirstSeen: "2026-12-07"}, "")
	}
	seen := map[store.Sum]int{}
	for turn := range 7 {
		s := blobs.Sample(ix, 3, turn)
		if len(s) != 3 {
			t.Fatalf("turn %d: %d hashes, want 3", turn, len(s))
		}
		for _, sum := range s {
			seen[sum]++
		}
	}
	if len(seen) != 7 {
		t.Errorf("7 turns of 3 covered %d of 7 hashes", len(seen))
	}
	if got := blobs.Sample(ix, 10, 4); len(got) != 7 {
		t.Errorf("a sample larger than the index: %d hashes, want all 7", len(got))
	}
}
