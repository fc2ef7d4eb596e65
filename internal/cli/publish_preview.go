package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taxkernel/taxkernelbot/internal/cycle"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// previewBase is the branch a preview compares with, as publishing does.
const previewBase = "main"

// runPublishPreview prints the title and body that publishing would send
// for the local state, against the main branch of the repository at
// repoDir: no GitHub environment, no network.
func runPublishPreview(ctx context.Context, opts publishOptions, repoDir string) error {
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	st, err := state.Load(opts.State)
	if err != nil {
		return cannotRun("%v", err)
	}
	repo, err := git.PlainOpenWithOptions(repoDir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return cannotRun("publish --preview: %s is not in a git repository (%v); run it in the checkout, or pass --repo DIR", repoDir, err)
	}
	ref, err := repo.Reference(plumbing.NewBranchReferenceName(previewBase), true)
	if err != nil {
		return cannotRun("publish --preview: the repository at %s has no branch %s (%v); fetch it (git fetch origin %s:%s)", repoDir, previewBase, err, previewBase, previewBase)
	}
	commit, err := repo.CommitObject(ref.Hash())
	if err != nil {
		return cannotRun("publish --preview: read %s's commit %s: %v", previewBase, ref.Hash(), err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return cannotRun("publish --preview: read %s's tree: %v", previewBase, err)
	}
	var onMain *report.Report
	if data, err := fileIn(tree, "reports/coverage.json"); err == nil {
		if onMain, err = report.Parse(data); err != nil {
			return cannotRun("publish --preview: %s: reports/coverage.json: %v", previewBase, err)
		}
	} else if !errors.Is(err, object.ErrFileNotFound) {
		return cannotRun("publish --preview: %s: reports/coverage.json: %v", previewBase, err)
	}
	rep := report.Build(set, st)
	changes := report.Diff(onMain, rep)
	blob := func(sum string) ([]byte, error) {
		if data, err := readBlobFile(opts.Snapshots, sum); err == nil {
			return data, nil
		}
		return fileIn(tree, path.Join("snapshots", store.BlobPath(sum)))
	}
	d := cycle.BodyDetails(ctx, set, st, changes, blob)
	out := opts.IO.Out
	if len(changes) == 0 {
		fmt.Fprintf(out, "Nothing differs from %s (%.12s): publishing would open no pull request and edit none.\n", previewBase, ref.Hash())
		return nil
	}
	fmt.Fprintf(out, "Against %s (%.12s), publishing would send:\n\nTitle: %s\n\n%s", previewBase, ref.Hash(), github.Title(changes), github.BodyWith(changes, github.SummaryOf(rep), nil, "", d))
	return nil
}

// fileIn reads the file at p in tree.
func fileIn(tree *object.Tree, p string) ([]byte, error) {
	f, err := tree.File(p)
	if err != nil {
		return nil, err
	}
	r, err := f.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// readBlobFile reads blob sum from the local store, checking its hash.
func readBlobFile(snapshots, sum string) ([]byte, error) {
	rc, err := store.ReadOnly(snapshots).Open(store.Sum(sum))
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
