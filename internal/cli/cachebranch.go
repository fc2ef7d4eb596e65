package cli

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
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
// robots/, ledgers/ at the root), readable until done is called, and what
// was read, e.g. "origin/fetch-cache at 1a2b3c4d5e6f".
func cacheBranch(dir, ref string) (files fs.FS, name string, done func(), err error) {
	wt, err := gitstore.OpenWorkTree(dir)
	if err != nil {
		return nil, "", nil, fmt.Errorf("reading the cache branch needs a git repository at or above %s: %w", dir, err)
	}
	refs := []string{ref}
	if ref == "" {
		refs = []string{"origin/" + botrepo.CacheBranch, botrepo.CacheBranch}
	}
	var hash string
	for _, r := range refs {
		if h, err := wt.Resolve(r); err == nil {
			hash, name = h, r
			break
		}
	}
	if name == "" {
		wt.Close()
		return nil, "", nil, fmt.Errorf("%w: the repository at %s has no %s; fetch it first (git fetch origin %s)",
			errNoCacheBranch, wt.Root, joinOr(refs), botrepo.CacheBranch)
	}
	tree, err := wt.Tree(hash)
	if err != nil {
		wt.Close()
		return nil, "", nil, fmt.Errorf("cache branch %s: %w", name, err)
	}
	return tree, fmt.Sprintf("%s at %.12s", name, hash), func() { wt.Close() }, nil
}

func joinOr(refs []string) string {
	if len(refs) == 2 {
		return refs[0] + " or " + refs[1]
	}
	return refs[0]
}
