package publish

// Nothing cited is missing, nothing held is un-said: the checks a bot
// commit passes before it is pushed.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// ErrBrokenRecord: a bot commit would cite bytes no branch holds, or lose
// what main records. Nothing is pushed.
var ErrBrokenRecord = errors.New("refusing to publish a broken record")

// checkRecord is the last look at a bot commit before its push: every hash
// its index and report name is held (held says whether a repository path
// is on main or in the commit), and nothing main records is lost: no entry
// of main's index is dropped, and no source main shows as checked is
// proposed as pending (no fetch outcome is "never checked").
func checkRecord(mainIx, ix *store.Index, onMain, rep *report.Report, held func(path string) bool) error {
	var problems []string
	cite := func(what string, sum string) {
		if !held("snapshots/" + store.BlobPath(sum)) {
			problems = append(problems, fmt.Sprintf("%s names %.12s, which neither %s nor this commit holds", what, sum, botrepo.BaseBranch))
		}
	}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			for _, sum := range e.Blobs() {
				cite(botrepo.IndexJSON+" ("+id+")", string(sum))
			}
		}
	}
	proposed := map[string]report.Entry{}
	for _, e := range rep.Sources {
		proposed[e.ID] = e
		if e.SHA256 != "" {
			cite(botrepo.CoverageJSON+" ("+e.ID+")", e.SHA256)
		}
	}
	for _, id := range mainIx.IDs() {
		for _, e := range mainIx.Entries(id) {
			if _, ok := ix.Lookup(id, e.SHA256); !ok {
				problems = append(problems, fmt.Sprintf("%s would drop %s's %.12s, which %s records", botrepo.IndexJSON, id, e.SHA256, botrepo.BaseBranch))
			}
		}
	}
	if onMain != nil {
		for _, m := range onMain.Sources {
			if p, ok := proposed[m.ID]; ok && m.Status != state.Pending && p.Status == state.Pending && p.URL == m.URL {
				problems = append(problems, fmt.Sprintf("%s would set %s back from %s to pending", botrepo.CoverageJSON, m.ID, m.Status))
			}
		}
	}
	return brokenRecord(problems)
}

// brokenRecord is ErrBrokenRecord naming the first ten problems, nil for
// none.
func brokenRecord(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	const most = 10
	more := ""
	if len(problems) > most {
		more = fmt.Sprintf("; and %d more", len(problems)-most)
		problems = problems[:most]
	}
	return fmt.Errorf("%w: %s%s. Nothing was pushed; the cache branch keeps what was fetched", ErrBrokenRecord, strings.Join(problems, "; "), more)
}

// checkTexts is the last look at a bot commit's texts: every source of ix
// has, at its path, the text of the bytes it serves now (store.Index.Current)
// or a reason naming those bytes. textOf says which bytes the source's
// text is of once the commit is applied (false: it has none).
func checkTexts(ix *store.Index, textOf func(id string) (store.Sum, bool)) error {
	var problems []string
	for _, id := range ix.IDs() {
		e, ok := ix.Current(id)
		if !ok {
			continue
		}
		switch sum, ok := textOf(id); {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s would have no text and no reason at %s for the %.12s it serves now", id, botrepo.TextPath(id), e.SHA256))
		case sum != e.SHA256:
			problems = append(problems, fmt.Sprintf("%s's text at %s would be of %.12s, not of the %.12s it serves now", id, botrepo.TextPath(id), sum, e.SHA256))
		}
	}
	return brokenRecord(problems)
}

// unitedIndex is the index a bot commit proposes: main's, the bot
// branch's, the cache branch's pending entries and this runner's, united:
// nothing served is ever dropped.
//
// With stores, every blob it cites that main does not carry is in every
// store once it returns, and its entries say so (keepInStores).
func (pub *Publisher) unitedIndex(ctx context.Context, mainIx *store.Index, onMain func(string) bool, cache fs.FS, v *view, local *store.Index) (*store.Index, error) {
	ix := store.NewIndex()
	ix.Unite(mainIx)
	if v.botTree != nil {
		fromBot, err := v.botIndex(ctx)
		if err != nil {
			return nil, err
		}
		ix.Unite(fromBot)
	}
	if cache != nil {
		pending, err := botrepo.IndexAt(cache, botrepo.PendingIndex, botrepo.CacheBranch)
		if err != nil {
			return nil, err
		}
		ix.Unite(pending)
	}
	ix.Unite(local)
	if err := pub.keepInStores(ctx, ix, onMain, cache, v); err != nil {
		return nil, err
	}
	return ix, nil
}

// branchHoldsIndex reports whether the bot branch's index already records
// everything the united index does: when it does not (a shard that
// published earlier had not seen this one's entries), the branch is
// rebuilt even though its report proposes the same.
func (pub *Publisher) branchHoldsIndex(ctx context.Context, v *view, cache fs.FS, local *store.Index) (bool, error) {
	ix, err := pub.proposed(ctx, v, cache, local)
	if err != nil {
		return false, err
	}
	onBot, err := v.botIndex(ctx)
	if err != nil {
		return false, err
	}
	return ix.Beyond(onBot).Len() == 0, nil
}

// proposed is the united index on this view's main, made once per view:
// the feeds are rendered from it and the bot branch is held against it.
// (The bot commit unites again on the main it is built on, which may be
// newer.)
func (pub *Publisher) proposed(ctx context.Context, v *view, cache fs.FS, local *store.Index) (*store.Index, error) {
	if v.proposed != nil {
		return v.proposed, nil
	}
	mainIx, err := v.mainIndex(ctx)
	if err != nil {
		return nil, err
	}
	if v.proposed, err = pub.unitedIndex(ctx, mainIx, botrepo.Lister(v.mainTree), cache, v, local); err != nil {
		return nil, err
	}
	return v.proposed, nil
}

// mainIndex is main's hash index, read once per view.
func (v *view) mainIndex(ctx context.Context) (*store.Index, error) {
	if v.mainIx != nil {
		return v.mainIx, nil
	}
	if err := v.mainTree.Fetch(ctx, botrepo.IndexJSON); err != nil {
		return nil, err
	}
	ix, err := botrepo.IndexAt(v.mainTree, botrepo.IndexJSON, botrepo.BaseBranch)
	if err != nil {
		return nil, err
	}
	v.mainIx = ix
	return ix, nil
}

// botIndex is the bot branch's hash index, read once per view (empty
// when the branch has none).
func (v *view) botIndex(ctx context.Context) (*store.Index, error) {
	if v.botIx != nil {
		return v.botIx, nil
	}
	if err := v.botTree.Fetch(ctx, botrepo.IndexJSON); err != nil {
		return nil, err
	}
	ix, err := botrepo.IndexAt(v.botTree, botrepo.IndexJSON, botrepo.BotBranch)
	if err != nil {
		return nil, err
	}
	v.botIx = ix
	return ix, nil
}

// holder returns a test of whether some place the bot publishes from holds
// the blob of a hash: this runner's store, main, the cache branch's
// pending/ or the bot branch (listings only, never contents), or, when
// the bytes are in stores, every store.
func (pub *Publisher) holder(ctx context.Context, v *view, cache fs.FS) func(sum string) bool {
	local := store.ReadOnly(pub.o.Snapshots)
	onMain := botrepo.Lister(v.mainTree)
	var onCache, onBot func(string) bool
	if cache != nil {
		onCache = botrepo.Lister(cache)
	}
	if v.botTree != nil {
		onBot = botrepo.Lister(v.botTree)
	}
	return func(sum string) bool {
		p := "snapshots/" + store.BlobPath(sum)
		if local.Has(store.Sum(sum)) || onMain(p) ||
			onCache != nil && onCache(botrepo.PendingPath(p)) || onBot != nil && onBot(p) {
			return true
		}
		if !pub.inStores() {
			return false
		}
		_, all, err := pub.storedEverywhere(ctx, store.Sum(sum))
		return err == nil && all
	}
}

// dropUnheld keeps the report from citing bytes no place holds (a runner
// that died with them before they were kept): the source shows main's
// entry when main holds its bytes, else its status without a hash, and
// the run fetches it again (the cycle makes it due when it pulls).
func dropUnheld(rep, onMain *report.Report, holds func(sum string) bool) *report.Report {
	known := map[string]report.Entry{}
	if onMain != nil {
		for _, m := range onMain.Sources {
			known[m.ID] = m
		}
	}
	for i, e := range rep.Sources {
		if e.SHA256 == "" || holds(e.SHA256) {
			continue
		}
		if m, ok := known[e.ID]; ok && m.URL == e.URL && (m.SHA256 == "" || holds(m.SHA256)) {
			m.Jurisdiction, m.Kind, m.Title, m.Encodes, m.Gaps = e.Jurisdiction, e.Kind, e.Title, e.Encodes, e.Gaps
			rep.Sources[i] = m
			continue
		}
		e.SHA256, e.Size, e.ContentType = "", 0, ""
		rep.Sources[i] = e
	}
	return rep
}
