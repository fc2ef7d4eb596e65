package blobs_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/blobs/blobstest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// A tree of files (the cache branch) serves the blobs under each of its
// folders, verified, and refuses saves; a corrupt one is told.
func TestTreeServesTheCacheBranchsBlobs(t *testing.T) {
	ctx := context.Background()
	kept, waiting, bad := []byte("kept since main recorded it"), []byte("still waiting"), []byte("corrupt")
	sk, sw := blobstest.SumOf(kept), blobstest.SumOf(waiting)
	sb := store.Sum(strings.Repeat("b", 64))
	fsys := fstest.MapFS{
		"blobs/" + sk.Path():   {Data: kept},
		"pending/" + sw.Path(): {Data: waiting},
		"blobs/" + sb.Path():   {Data: bad},
		"blobs/sha256/xx/note": {Data: []byte("not a blob")},
	}
	tr := blobs.NewTree("fetch-cache:acme/tax", fsys, "blobs", "pending")
	for sum, want := range map[store.Sum][]byte{sk: kept, sw: waiting} {
		if n, err := tr.Stat(ctx, sum); err != nil || n != int64(len(want)) {
			t.Errorf("Stat(%s) = %d, %v", sum.Short(), n, err)
		}
		rc, err := tr.Load(ctx, sum)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(got) != string(want) {
			t.Errorf("Load(%s) = %q, %v", sum.Short(), got, err)
		}
	}
	rc, err := tr.Load(ctx, sb)
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, blobs.ErrCorrupt) {
		t.Errorf("a corrupt blob read: %v, want ErrCorrupt", err)
	}
	if _, err := tr.Stat(ctx, store.Sum(strings.Repeat("c", 64))); !blobs.IsNotFound(err) {
		t.Errorf("Stat of a blob not held: %v", err)
	}
	var listed []store.Sum
	if err := tr.List(ctx, func(sum store.Sum, _ int64) error { listed = append(listed, sum); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	want := []store.Sum{sk, sw, sb}
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("List = %v, want %v", listed, want)
	}
	if err := tr.Save(ctx, sk, strings.NewReader(string(kept)), int64(len(kept))); !errors.Is(err, blobs.ErrReadOnly) {
		t.Errorf("Save: %v, want ErrReadOnly", err)
	}
}
