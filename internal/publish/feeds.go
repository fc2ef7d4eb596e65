package publish

import (
	"context"
	"io/fs"
	"path"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// feeds renders the change feeds from the index the bot commit proposes
// (main's, the bot branch's, the cache branch's and this runner's,
// united) and the derived texts, read here or else from main or the bot
// branch (fetched in one go), or else derived from the bytes.
func (pub *Publisher) feeds(ctx context.Context, cache fs.FS, v *view, local *store.Index) ([]public.File, error) {
	if err := v.mainTree.Fetch(ctx, botrepo.IndexJSON); err != nil {
		return nil, err
	}
	mainIx, err := botrepo.IndexAt(v.mainTree, botrepo.IndexJSON, botrepo.BaseBranch)
	if err != nil {
		return nil, err
	}
	ix, err := pub.unitedIndex(ctx, mainIx, cache, v, local)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if p := botrepo.TextPath(string(e.SHA256)); p != "" {
				paths = append(paths, p)
			}
		}
	}
	var trees []fs.FS
	for _, t := range []*gitstore.Tree{v.mainTree, v.botTree} {
		if t == nil {
			continue
		}
		_ = t.Fetch(ctx, paths...) // a text not fetched is derived from the bytes below
		trees = append(trees, t)
	}
	blob := blobReader(ctx, pub.o.Snapshots, v.mainTree, v.botTree)
	text := func(sum, contentType string) (string, bool) {
		if p, err := textview.TextPath(pub.o.Snapshots, sum); err == nil {
			if text, err := textview.ReadText(p); err == nil {
				return text, true
			}
		}
		for _, t := range trees {
			if data, err := fs.ReadFile(t, botrepo.TextPath(sum)); err == nil {
				return string(data), true
			}
		}
		// Not derived anywhere yet (a first copy's text is kept only once
		// it is compared): derive it from the bytes, as the next
		// comparison would.
		d, err := blobDoc(blob, sum, contentType)
		if err != nil {
			return "", false
		}
		res := textview.ExtractDoc(ctx, d, textview.Limits{})
		return res.Text, res.OK()
	}
	return public.RulesOf(pub.o.Set).Feeds(public.FeedInput{
		Set: pub.o.Set, Index: ix, Text: text, Blob: review.BlobLink(pub.o.Links.FileURL(botrepo.BaseBranch)),
	})
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
