package publish

import (
	"context"
	"io/fs"
	"path"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// feedsInput is what the feeds are rendered from: the index the bot
// commit proposes (main's, the bot branch's, the cache branch's and this
// runner's, united), and the derived texts, read here or else from main
// or the bot branch (fetched in one go), or else derived from the bytes.
func (pub *Publisher) feedsInput(ctx context.Context, cache fs.FS, v *view, local *store.Index) (*store.Index, outputs.Derived, error) {
	ix, err := pub.proposed(ctx, v, cache, local)
	if err != nil {
		return nil, outputs.Derived{}, err
	}
	var paths []string
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if p := botrepo.TextPath(string(e.SHA256)); p != "" {
				paths = append(paths, p)
			}
		}
	}
	for _, t := range []*gitstore.Tree{v.mainTree, v.botTree} {
		if t != nil {
			_ = t.Fetch(ctx, paths...) // a text not fetched is derived from the bytes
		}
	}
	return ix, outputs.Derived{Snapshots: pub.o.Snapshots, Trees: trees(v.mainTree, v.botTree)}, nil
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
