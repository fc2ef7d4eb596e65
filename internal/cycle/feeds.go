package cycle

import (
	"context"
	"io/fs"

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
func (c *Cycle) feeds(ctx context.Context, cache fs.FS, v *view, local *store.Index) ([]public.File, error) {
	if err := v.mainTree.Fetch(ctx, indexJSON); err != nil {
		return nil, err
	}
	mainIx, err := indexAt(v.mainTree, indexJSON, BaseBranch)
	if err != nil {
		return nil, err
	}
	ix, err := c.unitedIndex(ctx, mainIx, cache, v, local)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if p := TextPath(string(e.SHA256)); p != "" {
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
	blob := blobReader(ctx, c.o.Snapshots, v.mainTree, v.botTree)
	text := func(sum, contentType string) (string, bool) {
		if p, err := textview.TextPath(c.o.Snapshots, sum); err == nil {
			if text, err := textview.ReadText(p); err == nil {
				return text, true
			}
		}
		for _, t := range trees {
			if data, err := fs.ReadFile(t, TextPath(sum)); err == nil {
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
	return public.RulesOf(c.o.Set).Feeds(public.FeedInput{
		Set: c.o.Set, Index: ix, Text: text, Blob: review.BlobLink(c.o.Links.FileURL(BaseBranch)),
	})
}
