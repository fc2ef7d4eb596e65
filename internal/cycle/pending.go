package cycle

// The record's bytes travel with it. A run's new blobs reach main only when
// a reviewer merges the bot's pull request, and a runner is thrown away
// after its job; shards publish in any order, a runner can die between its
// push and its pull request, and the bot branch can be deleted. So every
// push of the state to the cache branch carries, in the same commit, the
// index entries main does not hold yet, with their blobs (the bytes as
// sent too, for a document that came under a Content-Encoding) and texts, under
// pending/ in the store's own layout (pending/index.json,
// pending/sha256/…, pending/text/…). The cache branch therefore never names
// a hash that it or main does not hold, and whichever shard publishes, and
// whenever, reads every shard's entries and bytes from there: the bot
// branch is their union. Once main holds an entry and its blob, the next
// push drops it from pending/ (a deletion in a new commit, never a
// rewrite; git keeps one copy of a blob that main and the cache branch
// share). With stores (Options.Stores), a blob leaves pending/ once every
// store holds it; its entry waits there until main records it. A text
// waits there, by its bytes' hash, while a source serves those bytes now
// and main's text of that source (one file per source) is of other bytes:
// it leaves once main holds it, or once its source has moved on to other
// bytes (superseded).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// MaxPushBytes bounds the bytes of files one push carries: GitHub refuses a
// push over 2 GiB whole, so a big day's documents go up in several
// commits of at most 1 GiB.
var MaxPushBytes = 1 << 30

// pushPendingInParts pushes, when what waits for pending/ is more than one
// push should carry, all but the last MaxPushBytes of it in commits of
// its own, before the commit that brings the state and the index: those
// then find the bytes already on the tip.
func (c *Cycle) pushPendingInParts(ctx context.Context, main *mainRecord) error {
	for part := 1; ; part++ {
		sig, msg := c.signature(fmt.Sprintf("pending documents, part %d", part))
		more := false
		_, err := c.repo.Update(ctx, botrepo.CacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
			all, err := c.pendingChanges(tip, main)
			if err != nil {
				return nil, err
			}
			var adds []gitstore.Change
			total := 0
			for _, ch := range all {
				if ch.Data != nil && ch.Path != botrepo.PendingIndex {
					adds = append(adds, ch)
					total += len(ch.Data)
				}
			}
			more = false
			if total <= MaxPushBytes {
				return nil, nil // the state's commit carries the rest
			}
			var batch []gitstore.Change
			size := 0
			for _, ch := range adds {
				if size > 0 && size+len(ch.Data) > MaxPushBytes {
					break
				}
				batch = append(batch, ch)
				size += len(ch.Data)
			}
			more = true
			return batch, nil
		}, 0)
		if err != nil || !more {
			return err
		}
	}
}

// mainRecord is what main holds: its hash index and a test of its files
// that reads directory listings only.
type mainRecord struct {
	ix  *store.Index
	has func(path string) bool
}

func (c *Cycle) readMain(ctx context.Context) (*mainRecord, error) {
	var m *mainRecord
	err := c.onMain(ctx, func(tree *gitstore.Tree) error {
		ix, err := botrepo.IndexAt(tree, botrepo.IndexJSON, botrepo.BaseBranch)
		if err != nil {
			return err
		}
		has := botrepo.Lister(tree)
		// The listings are read now, while the reader is open: the blobs',
		// and the folder of the sources' texts.
		has(botrepo.TextPath("-"))
		for _, id := range ix.IDs() {
			for _, e := range ix.Entries(id) {
				for _, sum := range e.Blobs() {
					has("snapshots/" + sum.Path())
				}
			}
		}
		m = &mainRecord{ix: ix, has: has}
		return nil
	}, botrepo.IndexJSON)
	return m, err
}

// onMain reads main's tip through a partial clone, fetches the files named
// and calls fn on the tree.
func (c *Cycle) onMain(ctx context.Context, fn func(*gitstore.Tree) error, fetch ...string) error {
	reader, err := gitstore.OpenPartial(c.o.Remote)
	if err != nil {
		return err
	}
	defer reader.Close()
	_, tree, err := reader.Read(ctx, botrepo.BaseBranch)
	if err != nil {
		return botrepo.ExplainGit(err)
	}
	if err := tree.Fetch(ctx, fetch...); err != nil {
		return err
	}
	return fn(tree)
}

// pendingChanges are the changes that bring the tip's pending/ to what
// main does not hold yet of the tip's pending entries and this runner's
// index. An entry whose blob neither the tip nor this runner holds is left
// out and said: the record never names bytes nobody has.
func (c *Cycle) pendingChanges(tip fs.FS, main *mainRecord) ([]gitstore.Change, error) {
	held, err := botrepo.IndexAt(tip, botrepo.PendingIndex, botrepo.CacheBranch)
	if err != nil {
		return nil, err
	}
	local, err := store.LoadIndex(filepath.Join(c.o.Snapshots, "index.json"))
	if err != nil {
		return nil, err
	}
	all := store.NewIndex()
	all.Unite(held)
	all.Unite(local)
	onTip := botrepo.Lister(tip)
	want := store.NewIndex()
	needed := map[store.Sum]bool{}
	var out []gitstore.Change
	beyond := all.Beyond(main.ix)
	for _, id := range beyond.IDs() {
	entries:
		for _, e := range beyond.Entries(id) {
			// The document's blob, and the bytes it was sent as when it
			// came under a Content-Encoding: both, or the entry waits for
			// neither.
			var adds []gitstore.Change
			for _, sum := range e.Blobs() {
				p := "snapshots/" + sum.Path()
				if main.has(p) || needed[sum] || onTip(botrepo.PendingPath(p)) {
					continue
				}
				if c.stored(sum) {
					continue // the stores keep the bytes
				}
				data, err := botrepo.ReadLocal(c.o.Snapshots, sum)
				if errors.Is(err, fs.ErrNotExist) {
					c.logf("pending: %s's %.12s is held neither here nor on %s: left out of the record", id, sum, botrepo.CacheBranch)
					continue entries
				}
				if err != nil {
					return nil, err
				}
				adds = append(adds, gitstore.Change{Path: botrepo.PendingPath(p), Data: data})
			}
			out = append(out, adds...)
			for _, sum := range e.Blobs() {
				if !main.has("snapshots/"+sum.Path()) && !c.stored(sum) {
					needed[sum] = true
				}
			}
			want.Unite(single(id, e))
		}
	}
	out = append(out, c.pendingTexts(tip, main, all)...)
	// What main now holds leaves pending/; so do the bytes every store
	// holds, while their entries wait for main.
	dropped := map[store.Sum]bool{} // two sources may have served the same bytes
	for _, id := range held.IDs() {
		for _, e := range held.Entries(id) {
			for _, sum := range e.Blobs() {
				if needed[sum] || dropped[sum] {
					continue
				}
				dropped[sum] = true
				pending := botrepo.PendingPath("snapshots/" + sum.Path())
				if len(c.o.Stores) > 0 && !onTip(botrepo.CacheBlobPath(sum)) {
					// main holds no bytes: the cache branch keeps its copy, a
					// store of its own beside the others (the same git
					// object, so the move adds nothing to the branch).
					if data, err := fs.ReadFile(tip, pending); err == nil {
						out = append(out, gitstore.Change{Path: botrepo.CacheBlobPath(sum), Data: data})
					}
				}
				out = append(out, gitstore.Change{Path: pending})
			}
		}
	}
	if want.Len() == 0 {
		return append(out, gitstore.Change{Path: botrepo.PendingIndex}), nil
	}
	data, err := want.Marshal()
	if err != nil {
		return nil, err
	}
	return append(out, gitstore.Change{Path: botrepo.PendingIndex, Data: data}), nil
}

// stored says whether every one of the stores holds sum (false without
// stores, or when one cannot say): its bytes then need not wait on the
// cache branch.
func (c *Cycle) stored(sum store.Sum) bool {
	if len(c.o.Stores) == 0 {
		return false
	}
	c.storedMu.Lock()
	defer c.storedMu.Unlock()
	if held, ok := c.storedSums[sum]; ok {
		return held
	}
	held := true
	for _, b := range c.o.Stores {
		if _, err := b.Stat(context.Background(), sum); err != nil {
			held = false
			break
		}
	}
	if held { // a blob not held yet may be stored before the next push
		c.storedSums[sum] = true
	}
	return held
}

// single is an index of one entry.
func single(id string, e store.Entry) *store.Index {
	ix := store.NewIndex()
	ix.Add(id, e, "")
	return ix
}

// pendingTexts are the changes that bring the tip's pending/text/ to the
// texts main lacks: for each source whose current bytes (in main's index
// and what waits, united) main's text of it is not of, the text of those
// bytes (by hash: two sources that serve the same bytes wait for one
// text), from the tip or else this runner's store. Every other text
// leaves pending/: main holds it at its source's path, or its source has
// moved on to other bytes (superseded; main's history or the bytes give
// it back to whoever needs it).
func (c *Cycle) pendingTexts(tip fs.FS, main *mainRecord, waiting *store.Index) []gitstore.Change {
	cur := store.NewIndex()
	cur.Unite(main.ix)
	cur.Unite(waiting)
	want := map[store.Sum]bool{}
	for _, id := range cur.IDs() {
		e, ok := cur.Current(id)
		if !ok {
			continue
		}
		if m, ok := main.ix.Current(id); ok && m.SHA256 == e.SHA256 && main.has(botrepo.TextPath(id)) {
			continue
		}
		want[e.SHA256] = true
	}
	var out []gitstore.Change
	onTip := botrepo.Lister(tip)
	for _, sum := range slices.Sorted(maps.Keys(want)) {
		files := botrepo.PendingTextFiles(sum)
		if onTip(files[0]) && onTip(files[2]) {
			continue
		}
		texts := botrepo.StoreTexts(c.o.Snapshots, sum)
		for _, f := range slices.Sorted(maps.Keys(texts)) {
			out = append(out, gitstore.Change{Path: botrepo.PendingDir + "/" + f, Data: texts[f]})
		}
	}
	// What waits and is no longer wanted leaves: the folders of other
	// text versions whole, the files of other texts one by one. With the
	// bytes in stores, a text that leaves is kept under blobs/ beside its
	// bytes' copy (the same git objects, so the branch grows by nothing):
	// main's tree keeps only what each source serves now, and the feeds
	// and the site compare older versions too, whose texts a runner would
	// otherwise derive again from bytes downloaded from the stores.
	root := botrepo.PendingDir + "/" + textview.TextDir
	versions, _ := fs.ReadDir(tip, root)
	for _, v := range versions {
		dir := path.Join(root, v.Name())
		if v.Name() != textview.Version {
			out = append(out, gitstore.Change{Path: dir})
			continue
		}
		_ = fs.WalkDir(tip, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			name := path.Base(p)
			if sum := store.Sum(name[:strings.IndexByte(name+".", '.')]); !want[sum] {
				kept := botrepo.CacheBlobsDir + "/" + strings.TrimPrefix(p, botrepo.PendingDir+"/")
				if len(c.o.Stores) > 0 && !onTip(kept) {
					if data, err := fs.ReadFile(tip, p); err == nil {
						out = append(out, gitstore.Change{Path: kept, Data: data})
					}
				}
				out = append(out, gitstore.Change{Path: p})
			}
			return nil
		})
	}
	// Texts of another extractor's version are derived again, never read.
	kept, _ := fs.ReadDir(tip, botrepo.CacheBlobsDir+"/"+textview.TextDir)
	for _, v := range kept {
		if v.Name() != textview.Version {
			out = append(out, gitstore.Change{Path: botrepo.CacheBlobsDir + "/" + textview.TextDir + "/" + v.Name()})
		}
	}
	return out
}
