package publish

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// feedsInput is what the feeds are rendered from: the index the bot
// commit proposes (main's, the bot branch's, the cache branch's and this
// runner's, united), and the derived texts: read here, else from the
// cache branch's pending/, else from main's or the bot branch's file of a
// source whose current bytes they are of (fetched in one go), else
// derived again from the bytes, read from this runner, pending/, the bot
// branch or the stores (an older version's text is in main's history
// only).
func (pub *Publisher) feedsInput(ctx context.Context, cache fs.FS, v *view, local *store.Index) (*store.Index, outputs.Derived, error) {
	ix, err := pub.proposed(ctx, v, cache, local)
	if err != nil {
		return nil, outputs.Derived{}, err
	}
	var paths []string
	for _, id := range ix.IDs() {
		paths = append(paths, botrepo.TextFiles(botrepo.TextPath(id))...)
	}
	for _, t := range []*gitstore.Tree{v.mainTree, v.botTree} {
		if t != nil {
			_ = t.Fetch(ctx, paths...) // a text not fetched is derived from the bytes
		}
	}
	d := outputs.Derived{Snapshots: pub.o.Snapshots, Trees: trees(v.mainTree, v.botTree), Pending: cache, Blob: pub.heldBlobs(ctx, cache, v)}.Memoized()
	return ix, d, nil
}

// heldBlobs opens a blob from wherever the bot reads the bytes it
// publishes (bytesOf: this runner's store, the cache branch's pending/,
// the bot branch), else main, else the cache branch's copy under blobs/,
// else the first store that holds it.
func (pub *Publisher) heldBlobs(ctx context.Context, cache fs.FS, v *view) outputs.OpenBlob {
	inRepo := outputs.Blobs(ctx, pub.o.Snapshots, trees(v.mainTree, v.botTree)...)
	return func(sum string) (io.ReadCloser, int64, error) {
		rc, size, err := inRepo(sum)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return rc, size, err
		}
		if data, perr := botrepo.PendingBlob(cache, "snapshots/"+store.BlobPath(sum)); perr == nil {
			return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
		}
		if cache != nil && store.Sum(sum).Valid() {
			// The cache branch's own copy, a store that needs no download.
			if data, perr := fs.ReadFile(cache, botrepo.CacheBlobPath(store.Sum(sum))); perr == nil {
				return blobs.Verified(io.NopCloser(bytes.NewReader(data)), store.Sum(sum), int64(len(data)), botrepo.CacheBranch), int64(len(data)), nil
			}
		}
		for _, b := range pub.o.Stores {
			if size, serr := b.Stat(ctx, store.Sum(sum)); serr == nil {
				rc, lerr := b.Load(ctx, store.Sum(sum))
				if lerr == nil {
					return rc, size, nil
				}
			}
		}
		return nil, 0, err
	}
}

// changeDocsIn lists the change documents a tree holds under reports/
// that pages (this cycle's rendering) does not name. Their names follow
// the index, unlike the other pages': a cycle that read an older index
// renders fewer, and what a branch proposes must still count those a
// newer cycle put on it.
func changeDocsIn(tree fs.FS, pages map[string][]byte) []string {
	root := path.Join("reports", changedoc.Dir)
	srcs, _ := fs.ReadDir(tree, root) // none yet: nothing to add
	var out []string
	for _, s := range srcs {
		if !s.IsDir() {
			continue
		}
		files, _ := fs.ReadDir(tree, path.Join(root, s.Name()))
		for _, f := range files {
			if p := path.Join(root, s.Name(), f.Name()); !f.IsDir() && !inPages(pages, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func inPages(pages map[string][]byte, p string) bool {
	_, ok := pages[p]
	return ok
}
