package blobs

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Local is a directory on this machine, laid out as the store lays out its
// blobs (sha256/<first two hex>/<64 hex>): the demo's, the tests', a
// runner's work area. It is the store itself, seen as a Backend.
type Local struct{ s *store.Store }

// NewLocal is the store s as a Backend.
func NewLocal(s *store.Store) *Local { return &Local{s: s} }

// Name is "local:" and the store's root.
func (l *Local) Name() string { return "local:" + l.s.Root() }

// Save puts the bytes through the store, which hashes them as it writes
// and renames the whole file into place; bytes that hash to another sum
// are removed again and refused.
func (l *Local) Save(ctx context.Context, sum store.Sum, r io.ReaderAt, size int64) error {
	if !sum.Valid() {
		return fmt.Errorf("%w: %q is not a hex sha256", ErrNotFound, sum)
	}
	if l.s.Has(sum) {
		return nil
	}
	if err := Check(sum, r, size); err != nil {
		return err
	}
	got, _, err := l.s.Put(ctx, io.NewSectionReader(r, 0, size))
	if err != nil {
		return err
	}
	if got != sum { // the bytes changed under us between the check and the put
		return fmt.Errorf("%w: the bytes to save as %s hash to %s", ErrCorrupt, sum.Short(), got)
	}
	return nil
}

// Load opens the blob; the store re-hashes it as it is read.
func (l *Local) Load(_ context.Context, sum store.Sum) (io.ReadCloser, error) { return l.s.Open(sum) }

// Stat is the blob file's size.
func (l *Local) Stat(_ context.Context, sum store.Sum) (int64, error) {
	if !sum.Valid() {
		return 0, fmt.Errorf("%w: %q is not a hex sha256", ErrNotFound, sum)
	}
	fi, err := os.Lstat(l.s.Path(sum))
	if err != nil {
		return 0, fmt.Errorf("%w: %s", ErrNotFound, l.s.Path(sum))
	}
	return fi.Size(), nil
}

// List walks the store's shards; files that are not blobs (temp files of
// an interrupted write, anything misplaced) are not listed.
func (l *Local) List(ctx context.Context, fn func(sum store.Sum, size int64) error) error {
	root := filepath.Join(l.s.Root(), "sha256")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		sum := store.Sum(d.Name())
		if !d.Type().IsRegular() || !sum.Valid() || filepath.Base(filepath.Dir(p)) != string(sum[:2]) || filepath.Dir(filepath.Dir(p)) != root {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return fn(sum, fi.Size())
	})
	if err != nil {
		return fmt.Errorf("blobs: list %s: %w", root, err)
	}
	return nil
}

// Path is where the blob sum is, or would be, on disk.
func (l *Local) Path(sum store.Sum) string { return l.s.Path(sum) }
