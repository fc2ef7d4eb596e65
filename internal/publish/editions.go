package publish

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
)

// manifestEdits are the manifests of main with the entry of each new
// edition added beside its listed source (edition.Insert), by path: what
// the bot commit proposes of them, as a reviewer merges it. Nothing is
// fetched from a new address: a run requests it once a merge lists it.
// A proposal whose listed entry is not where the manifests the cycle
// loaded say (main moved since) is left to the pull request body, which
// shows its entry.
func (pub *Publisher) manifestEdits(ctx context.Context, mainTree *gitstore.Tree, ps []edition.Proposal) map[string][]byte {
	byFile := map[string][]edition.Proposal{}
	for _, p := range ps {
		name := path.Join("manifests", filepath.Base(p.Source.File))
		byFile[name] = append(byFile[name], p)
	}
	if len(byFile) == 0 {
		return nil
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range byFile {
			if !yield(p) {
				return
			}
		}
	})
	_ = mainTree.Fetch(ctx, paths...) // a file not fetched is not edited, and said
	out := map[string][]byte{}
	for _, name := range paths {
		data, err := fs.ReadFile(mainTree, name)
		if err != nil {
			pub.logf("publish: %d new edition(s) of %s not added to the manifest: %v", len(byFile[name]), name, err)
			continue
		}
		// From the last entry up, so that each one's line still holds.
		eds := byFile[name]
		slices.SortFunc(eds, func(a, b edition.Proposal) int { return cmp.Compare(b.Source.Line, a.Source.Line) })
		edited := false
		for _, p := range eds {
			next, err := edition.Insert(data, p)
			if err != nil {
				pub.logf("publish: the new edition of %s is in the pull request's body only: %v", p.Source.ID, err)
				continue
			}
			data, edited = next, true
		}
		if edited {
			out[name] = data
		}
	}
	return out
}

// editionsMessage is what the bot commit's message says of the new
// editions it proposes: for each, the old and new addresses and the held
// page and line that name the new one (their text is in the body).
func editionsMessage(ps []edition.Proposal) string {
	var b strings.Builder
	b.WriteString("New editions proposed (not fetched):")
	for _, p := range ps {
		fmt.Fprintf(&b, "\n- %s: %s -> %s (as %s), linked from the held copy of %s, sha256 %.12s, line %d",
			p.Source.ID, p.Source.URL, p.URL, p.ID, p.Evidence.Source, p.Evidence.SHA256, p.Evidence.Line)
	}
	return b.String()
}
