package publish

// main's derived texts, one file per source (botrepo.TextPath): the bot
// commit writes the text of the bytes each source serves now wherever
// main's is of other bytes, and deletes the folders of texts named by
// their bytes' hash that an older main kept, and those of another text
// version (their texts are rewritten at the sources' paths in the same
// commit).

import (
	"context"
	"io/fs"
	"slices"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// textNeed is a source whose text main lacks: the bytes it serves now.
type textNeed struct {
	id          string
	sum         store.Sum
	contentType string
}

// textChanges are the bot commit's changes to main's texts. For each source
// of ix whose current bytes (store.Index.Current) are not those main's
// text of it is of, the text of those bytes at the source's path, read
// from this runner's store, else the cache branch's pending/, else the bot
// branch's file of that source, else main's text under the bytes' hash
// (a main of the older layout), else derived from the bytes wherever they
// are held. Main's text of a source is of its current bytes when main's
// index names the same current bytes and main has the file: the bot
// writes a source's text in the commit that changes its current bytes,
// or, when neither the text nor the bytes are to be had, deletes it and
// says so in a .reason naming the bytes (NoText), so that main never
// shows a text of other bytes; the log says so too, and the next bot
// commit writes the text once a runner that holds the bytes derives it.
func (pub *Publisher) textChanges(ctx context.Context, base, cache fs.FS, onBase func(string) bool, mainIx, ix *store.Index, v *view) ([]gitstore.Change, error) {
	var need []textNeed
	for _, id := range ix.IDs() {
		e, ok := ix.Current(id)
		if !ok {
			continue
		}
		if m, ok := mainIx.Current(id); ok && m.SHA256 == e.SHA256 && onBase(botrepo.TextPath(id)) {
			continue
		}
		need = append(need, textNeed{id, e.SHA256, e.ContentType})
	}
	legacy := botrepo.StaleTextDirs(base)
	if len(need) == 0 && len(legacy) == 0 {
		return nil, nil
	}
	var out []gitstore.Change
	var later []textNeed // looked for on the bot branch and main, fetched in one go each
	for _, n := range need {
		if t, ok := botrepo.LocalText(pub.o.Snapshots, n.sum); ok {
			out = append(out, t.Changes(n.id, n.sum)...)
			continue
		}
		if t, ok := botrepo.PendingText(cache, n.sum); ok {
			out = append(out, t.Changes(n.id, n.sum)...)
			continue
		}
		later = append(later, n)
	}
	if len(later) > 0 && v.botTree != nil {
		var files []string
		for _, n := range later {
			files = append(files, botrepo.TextFiles(botrepo.TextPath(n.id))...)
		}
		if botrepo.Fetch(ctx, v.botTree, files...) == nil {
			later = slices.DeleteFunc(later, func(n textNeed) bool {
				t, sum, ok := botrepo.SourceTextIn(v.botTree, n.id)
				if ok && sum == n.sum {
					out = append(out, t.Changes(n.id, n.sum)...)
				}
				return ok && sum == n.sum
			})
		}
	}
	if len(later) > 0 && len(legacy) > 0 {
		var files []string
		for _, n := range later {
			for _, f := range botrepo.StoreTextFiles(n.sum) {
				files = append(files, "snapshots/"+f)
			}
		}
		if botrepo.Fetch(ctx, base, files...) == nil {
			later = slices.DeleteFunc(later, func(n textNeed) bool {
				t, ok := botrepo.StoredTextIn(base, n.sum)
				if ok {
					out = append(out, t.Changes(n.id, n.sum)...)
				}
				return ok
			})
		}
	}
	// Else derived from the bytes, wherever they are held (a new text
	// version: the sources that did not change this run).
	if len(later) > 0 {
		held := pub.heldBlobs(ctx, cache, v)
		later = slices.DeleteFunc(later, func(n textNeed) bool {
			doc, err := outputs.BlobDoc(held, string(n.sum), n.contentType)
			if err != nil {
				return false
			}
			if _, _, err := textview.DeriveDoc(ctx, pub.o.Snapshots, string(n.sum), doc, textview.Limits{}); err != nil {
				return false
			}
			t, ok := botrepo.LocalText(pub.o.Snapshots, n.sum)
			if ok {
				out = append(out, t.Changes(n.id, n.sum)...)
			}
			return ok
		})
	}
	for _, n := range later {
		out = append(out, botrepo.NoText(n.id, n.sum)...)
		pub.logf("publish: neither the text of %s's %.12s nor its bytes are held here, on %s, %s, %s or in the stores: %s keeps no text of %s until a runner that holds its bytes derives it",
			n.id, n.sum, botrepo.CacheBranch, botrepo.BotBranch, botrepo.BaseBranch, botrepo.BaseBranch, n.id)
	}
	for _, d := range legacy {
		out = append(out, gitstore.Change{Path: d})
	}
	return out, nil
}

// textMoves are the proposal's keys of main's texts named by their bytes'
// hash leaving it for the sources' paths: with bot nil, one per folder of
// them main has (the bot commit deletes it); with a tree of the bot
// branch, one per such folder the tree no longer has.
func textMoves(mainTree, bot fs.FS) []string {
	var keys []string
	for _, d := range botrepo.StaleTextDirs(mainTree) {
		if bot != nil {
			if _, err := fs.Stat(bot, d); err == nil {
				continue
			}
		}
		keys = append(keys, "move "+d)
	}
	return keys
}
