package store

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
)

// Unindexed returns the hashes of the well-placed blobs that no source in
// ix names, sorted. A run killed between storing a blob and saving the index
// leaves such blobs; publishing must never commit one, and a later run
// adopts or discards them.
func (s *Store) Unindexed(ctx context.Context, ix *Index) ([]Sum, error) {
	named := make(map[Sum]bool)
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			for _, sum := range e.Blobs() {
				named[sum] = true
			}
		}
	}
	dir := filepath.Join(s.root, blobDir)
	shards, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("store: list %s: %w", dir, err)
	}
	var out []Sum
	for _, sh := range shards {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !sh.IsDir() || !isShard(sh.Name()) {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(dir, sh.Name()))
		if err != nil {
			return nil, fmt.Errorf("store: list %s: %w", filepath.Join(dir, sh.Name()), err)
		}
		for _, e := range ents {
			name := e.Name()
			if e.Type().IsRegular() && validSum(name) && name[:2] == sh.Name() && !named[Sum(name)] {
				out = append(out, Sum(name))
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// Discard removes the blob sum. It is only for blobs that no index names
// (see Unindexed): held blobs are otherwise never modified or removed.
func (s *Store) Discard(sum Sum) error {
	if !sum.Valid() {
		return fmt.Errorf("store: discard %q: not a hex sha256", sum)
	}
	if s.dir == nil {
		return fmt.Errorf("store: discard %s: the store is open read-only", sum)
	}
	// Through the store's root, as it was written: a shard that is a link
	// out of the store is refused, not followed.
	name := sum.Path()
	if err := s.dir.Remove(name); err != nil {
		return fmt.Errorf("store: discard %s: %w", sum, err)
	}
	if err := s.dir.SyncDir(path.Dir(name)); err != nil {
		return fmt.Errorf("store: discard %s: %w", sum, err)
	}
	return nil
}

// RemoveLeftovers removes the temp files that interrupted writes left in the
// store (blobs under sha256/, the index beside it, derived texts under
// text/) and returns their paths.
// Only call it while no Put or index Save of this store is under way.
func (s *Store) RemoveLeftovers() ([]string, error) {
	if s.dir == nil {
		return nil, fmt.Errorf("store: remove leftovers: the store is open read-only")
	}
	// Through the store's root, which every write of the store goes
	// through: the whole tree, links not followed.
	removed, err := s.dir.SweepTree(".")
	if err != nil {
		return removed, fmt.Errorf("store: remove leftovers: %w", err)
	}
	return removed, nil
}

// Remove removes the blob sum unless ix names it for some source: a blob
// a run stored and then decided not to keep (new bytes that say what the
// held ones say, or another compression of bytes held). It refuses, with
// an error, a blob the index names, as a document or as the bytes sent
// for one, so a citation can never lose its bytes this way.
func (s *Store) Remove(sum Sum, ix *Index) error {
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			switch {
			case e.SHA256 == sum:
				return fmt.Errorf("store: not removing %s: source %s cites it in the index", sum, id)
			case e.Sent != nil && e.Sent.SHA256 == sum:
				return fmt.Errorf("store: not removing %s: the index keeps it as the bytes source %s sent for %s", sum, id, e.SHA256.Short())
			}
		}
	}
	return s.Discard(sum)
}
