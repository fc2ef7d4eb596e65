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

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
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
func (pub *Publisher) manifestEdits(ctx context.Context, mainTree *gitstore.Tree, ps []edition.Proposal) (map[string][]byte, []edition.Proposal) {
	byFile := map[string][]edition.Proposal{}
	for _, p := range ps {
		name := path.Join("manifests", filepath.Base(p.Source.File))
		byFile[name] = append(byFile[name], p)
	}
	if len(byFile) == 0 {
		return nil, nil
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
	var applied []edition.Proposal
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
			applied = append(applied, p)
		}
		if edited {
			out[name] = data
		}
	}
	return out, applied
}

// editionTrailer, in the message of a bot commit that adds a new edition
// to a manifest, names the listed source: those commits come after the
// bot commit of the snapshots and reports, one per edition.
const editionTrailer = "TaxKernelBot-Edition: "

// editionSteps are the commits of the new editions applied, in the order
// manifestEdits applied them (each entry's line still holds), one each:
// a reviewer tells them apart, and can revert one.
func editionSteps(applied []edition.Proposal) []gitstore.Step {
	steps := make([]gitstore.Step, 0, len(applied))
	for _, p := range applied {
		name := path.Join("manifests", filepath.Base(p.Source.File))
		steps = append(steps, gitstore.Step{Message: editionMessage(p), Edit: func(tip fs.FS) ([]gitstore.Change, error) {
			data, err := fs.ReadFile(tip, name)
			if err != nil {
				return nil, err
			}
			next, err := edition.Insert(data, p)
			if err != nil {
				return nil, err
			}
			return []gitstore.Change{{Path: name, Data: next}}, nil
		}})
	}
	return steps
}

// editionMessage is the message of p's commit: the old and new addresses,
// and the held page and line that name the new one.
func editionMessage(p edition.Proposal) string {
	return fmt.Sprintf("manifests: the next edition of %s, proposed as %s (not fetched before this is merged)\n\n"+
		"Listed: %s\nNew:    %s\nRead on the held copy of %s (sha256 %s, held since %s), line %d.\n\n%s%s\n",
		p.Source.ID, p.ID, p.Source.URL, p.URL, p.Evidence.Source, p.Evidence.SHA256, p.Evidence.Date, p.Evidence.Line, editionTrailer, p.Source.ID)
}

// branchBase is the commit the bot branch sits on, from its log (newest
// first): past the commits of the new editions, and the bot commit of the
// snapshots and reports before them. false when the log is too short to
// tell.
func branchBase(log []gitstore.Commit) (gitstore.Commit, bool) {
	i := 0
	for i < len(log) && strings.Contains(log[i].Message, "\n"+editionTrailer) {
		i++
	}
	if i < len(log) && log[i].AuthorEmail == botrepo.BotEmail && strings.HasPrefix(log[i].Message, snapshotsSubject) {
		i++
	}
	if i == 0 || i >= len(log) {
		return gitstore.Commit{}, false
	}
	return log[i], true
}

// withoutManifests is files without the manifests, which the commits of
// the new editions write.
func withoutManifests(files map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(files))
	for p, data := range files {
		if !strings.HasPrefix(p, "manifests/") {
			out[p] = data
		}
	}
	return out
}
