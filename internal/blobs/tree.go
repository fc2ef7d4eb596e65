package blobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// ErrReadOnly: the backend is read here; another process writes it.
var ErrReadOnly = errors.New("read-only store")

// Tree is a read-only store over a tree of files that holds blobs at
// <dir>/sha256/<2 hex>/<hash> for each of its dirs, in order: the cache
// branch as a runner's git store holds it, whose blobs/ keeps each blob
// that left pending/. The cycle writes it, in its pushes; Save refuses.
type Tree struct {
	name string
	fsys fs.FS
	dirs []string
}

// NewTree is the blobs under dirs of fsys, named name.
func NewTree(name string, fsys fs.FS, dirs ...string) *Tree {
	return &Tree{name: name, fsys: fsys, dirs: dirs}
}

// Name is the name NewTree was given.
func (t *Tree) Name() string { return t.name }

// Save refuses: the tree is written by its owner, not through here.
func (t *Tree) Save(ctx context.Context, sum store.Sum, r io.ReaderAt, size int64) error {
	return fmt.Errorf("blobs: %s: %w (the cycle keeps blobs there in its pushes)", t.name, ErrReadOnly)
}

// find is where sum is held, and its size.
func (t *Tree) find(sum store.Sum) (string, int64, error) {
	if !sum.Valid() {
		return "", 0, fmt.Errorf("%w: %q is not a hex sha256", ErrNotFound, sum)
	}
	for _, d := range t.dirs {
		p := path.Join(d, sum.Path())
		if fi, err := fs.Stat(t.fsys, p); err == nil && fi.Mode().IsRegular() {
			return p, fi.Size(), nil
		}
	}
	return "", 0, fmt.Errorf("%w: %s in %s", ErrNotFound, sum.Short(), t.name)
}

// Stat is the blob's size.
func (t *Tree) Stat(ctx context.Context, sum store.Sum) (int64, error) {
	_, size, err := t.find(sum)
	return size, err
}

// Load opens the blob, re-hashing it as it is read.
func (t *Tree) Load(ctx context.Context, sum store.Sum) (io.ReadCloser, error) {
	p, size, err := t.find(sum)
	if err != nil {
		return nil, err
	}
	f, err := t.fsys.Open(p)
	if err != nil {
		return nil, fmt.Errorf("blobs: %s: %w", t.name, err)
	}
	return Verified(f, sum, size, t.name), nil
}

// List names each blob once, whichever of the dirs holds it.
func (t *Tree) List(ctx context.Context, fn func(sum store.Sum, size int64) error) error {
	seen := map[store.Sum]bool{}
	for _, d := range t.dirs {
		root := path.Join(d, "sha256")
		err := fs.WalkDir(t.fsys, root, func(p string, e fs.DirEntry, err error) error {
			switch {
			case err != nil && p == root && errors.Is(err, fs.ErrNotExist):
				return fs.SkipAll
			case err != nil:
				return err
			case e.IsDir() || ctx.Err() != nil:
				return ctx.Err()
			}
			sum := store.Sum(e.Name())
			if !sum.Valid() || seen[sum] {
				return nil
			}
			seen[sum] = true
			fi, err := e.Info()
			if err != nil {
				return err
			}
			return fn(sum, fi.Size())
		})
		if err != nil {
			return err
		}
	}
	return nil
}
