package gitstore

import (
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// MaxPacks is how many pack files an on-disk Repo may gather before
// Compact folds them into one. Every fetch and push adds a pack; a cache
// of the store restored run after run would otherwise grow a pack per
// exchange for ever.
const MaxPacks = 8

// Compact folds the packs of an on-disk Repo (Open) into one when there
// are more than MaxPacks, keeping only the objects the branches read so
// far can reach. A Repo in memory is left alone. Call it between
// operations, e.g. at the end of a run.
func (r *Repo) Compact() error {
	r.op.Lock()
	defer r.op.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	pos, ok := r.st.(storer.PackedObjectStorer)
	if !ok || r.closer == nil {
		return nil
	}
	packs, err := pos.ObjectPacks()
	if err != nil {
		return fmt.Errorf("gitstore: compact: %w", err)
	}
	if len(packs) <= MaxPacks {
		return nil
	}
	var tips []plumbing.Hash
	refs, err := r.st.IterReferences()
	if err != nil {
		return fmt.Errorf("gitstore: compact: %w", err)
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && r.st.HasEncodedObject(ref.Hash()) == nil {
			tips = append(tips, ref.Hash())
		}
		return nil
	})
	if err != nil {
		// A tip missed would lose what it reaches when the packs go.
		return fmt.Errorf("gitstore: compact: listing the branches: %w", err)
	}
	keep, err := revlist.Objects(r.st, tips, nil)
	if err != nil {
		return fmt.Errorf("gitstore: compact: listing what the branches reach: %w", err)
	}
	pw, ok := r.st.(storer.PackfileWriter)
	if !ok {
		return nil
	}
	w, err := pw.PackfileWriter()
	if err != nil {
		return fmt.Errorf("gitstore: compact: %w", err)
	}
	h, err := packfile.NewEncoder(w, r.st, false).Encode(keep, packWindow)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("gitstore: compact: writing the new pack: %w", err)
	}
	// Only once the new pack is whole on disk do the old ones go.
	for _, old := range packs {
		if old == h {
			continue
		}
		if err := pos.DeleteOldObjectPackAndIndex(old, time.Time{}); err != nil {
			return fmt.Errorf("gitstore: compact: %w", err)
		}
	}
	return nil
}

// Packs counts the pack files of an on-disk Repo (0 in memory).
func (r *Repo) Packs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	pos, ok := r.st.(storer.PackedObjectStorer)
	if !ok {
		return 0
	}
	packs, _ := pos.ObjectPacks()
	return len(packs)
}
