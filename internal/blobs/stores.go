package blobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Stores are the backends that hold the archive's bytes, in the order they
// are asked: the first that holds a blob serves it.
type Stores []Backend

// Load returns the blob from the first store that holds it, verified as
// it is read (Backend.Load), and which store that is. A store that fails
// otherwise than by not holding it is skipped, its error kept: when none
// serves the blob, the error names each store and what it said.
func (ss Stores) Load(ctx context.Context, sum store.Sum) (io.ReadCloser, string, error) {
	var errs []error
	for _, b := range ss {
		rc, err := b.Load(ctx, sum)
		if err == nil {
			return rc, b.Name(), nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", b.Name(), err))
	}
	if len(ss) == 0 {
		return nil, "", fmt.Errorf("%w: no store is configured to ask for %s", ErrNotFound, sum.Short())
	}
	err := errors.Join(errs...)
	if all(errs, IsNotFound) {
		err = fmt.Errorf("%w: %s is held by none of %s", ErrNotFound, sum.Short(), strings.Join(ss.Names(), ", "))
	}
	return nil, "", err
}

// Holders names the stores that hold sum (Stat says so), in order; a
// store that cannot say is named in unsure with its error.
func (ss Stores) Holders(ctx context.Context, sum store.Sum) (holders []string, unsure []error) {
	for _, b := range ss {
		switch _, err := b.Stat(ctx, sum); {
		case err == nil:
			holders = append(holders, b.Name())
		case !IsNotFound(err):
			unsure = append(unsure, fmt.Errorf("%s: %w", b.Name(), err))
		}
	}
	return holders, unsure
}

// Shortfall is a cited hash held by fewer stores than it should be.
type Shortfall struct {
	SHA256  store.Sum
	Sources []string // the source ids that cite it
	Holders []string // the stores that hold it
	Unsure  []string // the stores that could not say, with why
}

// Census lists each hash the index names that fewer than want of the
// stores hold, sorted by hash: "every cited hash is held twice" made
// checkable. It asks each store about each hash (Stat), downloading
// nothing.
func (ss Stores) Census(ctx context.Context, ix *store.Index, want int) ([]Shortfall, error) {
	cited := map[store.Sum][]string{}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			cited[e.SHA256] = append(cited[e.SHA256], id)
		}
	}
	var out []Shortfall
	for _, sum := range sortedSums(cited) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		holders, unsure := ss.Holders(ctx, sum)
		if len(holders) >= want {
			continue
		}
		s := Shortfall{SHA256: sum, Sources: cited[sum], Holders: holders}
		for _, err := range unsure {
			s.Unsure = append(s.Unsure, err.Error())
		}
		out = append(out, s)
	}
	return out, nil
}

// Sample is the hashes a rotating check downloads this time: n of the
// index's hashes, sorted, starting at the turn-th n (wrapping), so that
// successive turns (a scheduled run's number) cover every hash in turn.
func Sample(ix *store.Index, n, turn int) []store.Sum {
	seen := map[store.Sum][]string{}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			seen[e.SHA256] = nil
		}
	}
	all := sortedSums(seen)
	if n <= 0 || len(all) == 0 {
		return nil
	}
	if n >= len(all) {
		return all
	}
	start := (turn * n) % len(all)
	out := make([]store.Sum, 0, n)
	for i := range n {
		out = append(out, all[(start+i)%len(all)])
	}
	return out
}

func sortedSums(m map[store.Sum][]string) []store.Sum {
	out := make([]store.Sum, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Names are the stores' names, in order.
func (ss Stores) Names() []string {
	n := make([]string, len(ss))
	for i, b := range ss {
		n[i] = b.Name()
	}
	return n
}

func all(errs []error, f func(error) bool) bool {
	for _, err := range errs {
		if !f(err) {
			return false
		}
	}
	return true
}

// CopyTo saves sum into dst from the first of the stores that serves it
// whole: each copy is read to its end, so a corrupt one is passed over
// for the next. It returns the store the bytes came from. The bytes wait
// in a temporary file under tmpDir ("" for the system's), removed after.
func (ss Stores) CopyTo(ctx context.Context, sum store.Sum, dst Backend, tmpDir string) (string, error) {
	if _, err := dst.Stat(ctx, sum); err == nil {
		return dst.Name(), nil
	}
	var errs []error
	for _, b := range ss {
		if b.Name() == dst.Name() {
			continue
		}
		err := copyOne(ctx, b, sum, dst, tmpDir)
		if err == nil {
			return b.Name(), nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", b.Name(), err))
	}
	if len(errs) == 0 {
		return "", fmt.Errorf("%w: no store but %s to copy %s from", ErrNotFound, dst.Name(), sum.Short())
	}
	if all(errs, IsNotFound) {
		return "", fmt.Errorf("%w: %s is held by none of %s", ErrNotFound, sum.Short(), strings.Join(ss.Names(), ", "))
	}
	return "", errors.Join(errs...)
}

func copyOne(ctx context.Context, from Backend, sum store.Sum, dst Backend, tmpDir string) error {
	rc, err := from.Load(ctx, sum)
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.CreateTemp(tmpDir, "taxkernelbot-blob-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	size, err := io.Copy(f, rc) // reads to the end: a corrupt copy fails here
	if err != nil {
		return err
	}
	return dst.Save(ctx, sum, f, size)
}
