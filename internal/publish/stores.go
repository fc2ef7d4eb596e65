package publish

// The bytes in stores, the record in main. When the repository keeps its
// bytes in stores (Options.Stores: the repository's GitHub release
// assets, a bucket), the bot commit carries the hash index, the derived
// texts and the reports, and no blob: each blob the proposal cites is
// saved to every store before the commit that cites it is pushed, and its
// index entries say where it is held (store.Entry.Held). A blob main
// still carries is deleted from main by the bot commit once every store
// holds it (the migration command uploads them); until then it stays.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// inStores says whether the repository keeps its bytes in stores.
func (pub *Publisher) inStores() bool { return len(pub.o.Stores) > 0 }

// fullyHeld says whether held names every store.
func (pub *Publisher) fullyHeld(held []store.Holding) bool {
	for _, b := range pub.o.Stores {
		if !slices.ContainsFunc(held, func(h store.Holding) bool { return h.Store == b.Name() }) {
			return false
		}
	}
	return true
}

// storedEverywhere says whether every store holds sum, asking them (once
// per publisher) unless ix records it.
func (pub *Publisher) storedEverywhere(ctx context.Context, sum store.Sum) ([]store.Holding, bool, error) {
	if hs, ok := pub.held[sum]; ok {
		return hs, pub.fullyHeld(hs), nil
	}
	var hs []store.Holding
	for _, b := range pub.o.Stores {
		if _, err := b.Stat(ctx, sum); err != nil {
			if blobs.IsNotFound(err) {
				continue
			}
			return nil, false, err
		}
		h := store.Holding{Store: b.Name()}
		if l, ok := b.(blobs.Linker); ok {
			u, err := l.URL(ctx, sum)
			if err != nil {
				return nil, false, err
			}
			h.URL = u
		}
		hs = append(hs, h)
	}
	pub.held[sum] = hs
	return hs, pub.fullyHeld(hs), nil
}

// keepInStores makes every store hold each blob ix cites that main does
// not carry (onMain lists main's files), reading its bytes from this
// runner's store, the cache branch's pending/ or the bot branch, and
// records on ix's entries where their bytes are held. A blob main carries
// is only looked up: it is the migration's to upload, and main keeps it
// until the stores hold it.
func (pub *Publisher) keepInStores(ctx context.Context, ix *store.Index, onMain func(string) bool, cache fs.FS, v *view) error {
	if !pub.inStores() {
		return nil
	}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if pub.fullyHeld(e.Held) {
				if _, ok := pub.held[e.SHA256]; !ok {
					pub.held[e.SHA256] = e.Held
				}
				continue
			}
			for _, sum := range e.Blobs() {
				hs, all, err := pub.storedEverywhere(ctx, sum)
				if err != nil {
					return err
				}
				if !all && !onMain("snapshots/"+sum.Path()) {
					if hs, err = pub.save(ctx, sum, cache, v); err != nil {
						return fmt.Errorf("%s's %.12s: %w", id, sum, err)
					}
				}
				if sum == e.SHA256 && pub.fullyHeld(hs) {
					ix.SetHeld(sum, hs)
				}
			}
		}
	}
	return nil
}

// save saves sum's bytes into each store that lacks them.
func (pub *Publisher) save(ctx context.Context, sum store.Sum, cache fs.FS, v *view) ([]store.Holding, error) {
	data, err := pub.bytesOf(ctx, sum, cache, v)
	if err != nil {
		return nil, err
	}
	for _, b := range pub.o.Stores {
		if err := b.Save(ctx, sum, bytes.NewReader(data), int64(len(data))); err != nil {
			return nil, fmt.Errorf("saving to %s: %w", b.Name(), err)
		}
	}
	delete(pub.held, sum)
	hs, all, err := pub.storedEverywhere(ctx, sum)
	if err == nil && !all {
		err = fmt.Errorf("saved, yet not every store holds it (held by %v)", hs)
	}
	if err == nil {
		pub.logf("publish: %.12s (%d bytes) kept in %d store(s)", sum, len(data), len(pub.o.Stores))
	}
	return hs, err
}

// bytesOf reads a blob from this runner's store, else the cache
// branch's pending/, else the bot branch.
func (pub *Publisher) bytesOf(ctx context.Context, sum store.Sum, cache fs.FS, v *view) ([]byte, error) {
	data, err := botrepo.ReadLocal(pub.o.Snapshots, sum)
	if !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	p := "snapshots/" + sum.Path()
	if data, err := botrepo.PendingBlob(cache, p); err == nil {
		return data, nil
	}
	if v.botTree != nil {
		if err := v.botTree.Fetch(ctx, p); err == nil {
			if data, err := fs.ReadFile(v.botTree, p); err == nil {
				return data, nil
			}
		}
	}
	return nil, fmt.Errorf("held neither by the stores, this runner, %s's pending/ nor %s; nothing was pushed", botrepo.CacheBranch, botrepo.BotBranch)
}

// recordChanges are a bot commit's changes under snapshots/ when the
// bytes are in stores, beside the texts (textChanges): the deletion of each blob main carries that every store now holds.
// stored gets the blobs every store holds. A blob neither main nor every
// store holds fails the commit: it is not pushed.
func (pub *Publisher) recordChanges(ctx context.Context, ix *store.Index, onBase func(string) bool, cache fs.FS, v *view, stored map[store.Sum]bool) ([]gitstore.Change, error) {
	var out []gitstore.Change
	seen := map[store.Sum]bool{}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			for _, sum := range e.Blobs() {
				if seen[sum] {
					continue // two sources may have served the same bytes
				}
				seen[sum] = true
				p := "snapshots/" + sum.Path()
				_, all, err := pub.storedEverywhere(ctx, sum)
				if err != nil {
					return nil, err
				}
				switch {
				case all && onBase(p):
					out = append(out, gitstore.Change{Path: p}) // main stops carrying it
				case !all && !onBase(p):
					return nil, fmt.Errorf("%s's %.12s is held neither by %s nor by every store", id, sum, botrepo.BaseBranch)
				}
				stored[sum] = all
			}
		}
	}
	return out, nil
}

// blobLink links a hash's bytes: where a store serves them to anyone
// when the bytes are in stores, else with file, the repository's link to
// a path of it.
func (pub *Publisher) blobLink(file func(path string) string) func(sha256 string) string {
	inRepo := review.BlobLink(file)
	if !pub.inStores() {
		return inRepo
	}
	return func(sum string) string {
		for _, h := range pub.held[store.Sum(sum)] {
			if h.URL != "" {
				return h.URL
			}
		}
		return inRepo(sum) // a blob main still carries
	}
}

// moves are the proposal's keys of main's blobs leaving it: with bot nil,
// one per blob main carries that every store holds (the bot commit
// deletes it); with a tree of the bot branch, one per blob main carries
// that the tree no longer does (none without stores); and the folders of
// texts named by their bytes' hash leaving main (textMoves).
func (pub *Publisher) moves(ctx context.Context, v *view, bot fs.FS) ([]string, error) {
	texts := textMoves(v.mainTree, bot)
	if !pub.inStores() {
		return texts, nil
	}
	mainIx, err := v.mainIndex(ctx)
	if err != nil {
		return nil, err
	}
	onMain := botrepo.Lister(v.mainTree)
	var onBot func(string) bool
	if bot != nil {
		onBot = botrepo.Lister(bot)
	}
	keys := texts
	seen := map[store.Sum]bool{}
	for _, id := range mainIx.IDs() {
		for _, e := range mainIx.Entries(id) {
			for _, sum := range e.Blobs() {
				p := "snapshots/" + sum.Path()
				if seen[sum] || !onMain(p) {
					continue
				}
				seen[sum] = true
				if onBot != nil {
					if !onBot(p) {
						keys = append(keys, "move "+string(sum))
					}
					continue
				}
				if _, all, err := pub.storedEverywhere(ctx, sum); err != nil {
					return nil, err
				} else if all {
					keys = append(keys, "move "+string(sum))
				}
			}
		}
	}
	return keys, nil
}
