package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/taxkernel/taxkernelbot/internal/cycle"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
)

// errNoCacheBranch says the local repository has no copy of the cache
// branch; what to do about it depends on the command.
var errNoCacheBranch = errors.New("no copy of the cache branch")

// cacheBranch opens the cache branch as the local repository that holds
// dir has it: ref if given (a branch, a remote branch such as
// origin/fetch-cache, a tag or a commit hash), else origin's
// remote-tracking branch, else a local branch of that name. Nothing is
// fetched and nothing written. It returns the branch's files (state.json,
// robots/, ledgers/ at the root) and what was read, e.g.
// "origin/fetch-cache at 1a2b3c4d5e6f".
func cacheBranch(dir, ref string) (fs.FS, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	repo, err := findRepo(abs)
	if err != nil {
		return nil, "", fmt.Errorf("reading the cache branch needs a git repository at or above %s: %w", dir, err)
	}
	st := filesystem.NewStorage(osfs.New(repo.commonDir), cache.NewObjectLRUDefault())
	refs := []string{ref}
	if ref == "" {
		refs = []string{"origin/" + cycle.CacheBranch, cycle.CacheBranch}
	}
	var hash plumbing.Hash
	var name string
	for _, r := range refs {
		if h, err := repo.resolve(st, r); err == nil {
			hash, name = h, r
			break
		}
	}
	if name == "" {
		return nil, "", fmt.Errorf("%w: the repository at %s has no %s; fetch it first (git fetch origin %s)",
			errNoCacheBranch, repo.root, joinOr(refs), cycle.CacheBranch)
	}
	tree, err := gitstore.OpenLocal(repo.commonDir).TreeOf(hash.String())
	if err != nil {
		return nil, "", fmt.Errorf("cache branch %s: %w", name, err)
	}
	return tree, fmt.Sprintf("%s at %.12s", name, hash), nil
}

func joinOr(refs []string) string {
	if len(refs) == 2 {
		return refs[0] + " or " + refs[1]
	}
	return refs[0]
}
