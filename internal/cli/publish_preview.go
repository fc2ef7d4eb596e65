package cli

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/publish"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// runPublishPreview prints the title and body that publishing would send
// for the local state, against the base branch (botrepo.BaseBranch) of the
// repository at repoDir: no GitHub environment, no network.
func runPublishPreview(ctx context.Context, opts publishOptions, repoDir string) error {
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	st, err := state.Load(opts.State)
	if err != nil {
		return cannotRun("%v", err)
	}
	const base = botrepo.BaseBranch
	wt, err := gitstore.OpenWorkTree(repoDir)
	if err != nil {
		return cannotRun("publish --preview: %s is not in a git repository (%v); run it in the checkout, or pass --repo DIR", repoDir, err)
	}
	defer wt.Close()
	hash, err := wt.Resolve(base)
	if err != nil {
		return cannotRun("publish --preview: the repository at %s has no branch %s (%v); fetch it (git fetch origin %s:%s)", repoDir, base, err, base, base)
	}
	tree, err := wt.Tree(hash)
	if err != nil {
		return cannotRun("publish --preview: read %s's commit %s: %v", base, hash, err)
	}
	onBase, err := botrepo.ReportIn(tree, base)
	if err != nil {
		return cannotRun("publish --preview: %v", err)
	}
	rep := report.Build(set, st)
	changes := report.Diff(onBase, rep)
	blobs := outputs.Blobs(ctx, opts.Snapshots, tree)
	d := publish.BodyDetails(ctx, set, st, changes, blobs)
	if ix, err := store.LoadIndex(opts.indexPath()); err == nil { // no index: no held page to read
		d.Editions = outputs.Editions(ctx, set, ix, blobs, outputs.Derived{Snapshots: opts.Snapshots, Trees: []fs.FS{tree}})
	}
	out := opts.IO.Out
	if len(changes) == 0 {
		fmt.Fprintf(out, "Nothing differs from %s (%.12s): publishing would open no pull request and edit none.\n", base, hash)
		return nil
	}
	fmt.Fprintf(out, "Against %s (%.12s), publishing would send:\n\nTitle: %s\n\n%s", base, hash, review.Title(changes), review.Body(changes, review.SummaryOf(rep), review.Links{}, d))
	return nil
}
