package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// WorkTree is a checkout on this machine, read without a network: its
// refs resolved as git names them and any commit it holds as a Tree.
// Nothing is fetched or written. Close it.
type WorkTree struct {
	// Root is the work tree's top directory.
	Root string
	// gitDir holds this work tree's HEAD; commonDir its objects and refs.
	// They differ for a linked work tree (git worktree add).
	gitDir, commonDir string
	repo              *Repo
}

// OpenWorkTree finds the work tree that holds dir, walking up from it,
// linked work trees included, and opens its git data.
func OpenWorkTree(dir string) (*WorkTree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotGit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotGit)
		switch {
		case err == nil && fi.IsDir():
			return openWorkTree(d, dotGit, dotGit), nil
		case err == nil:
			// A linked work tree: ".git" is a file "gitdir: PATH".
			data, err := os.ReadFile(dotGit)
			if err != nil {
				return nil, err
			}
			gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
			if !ok {
				return nil, fmt.Errorf("gitstore: %s is neither a directory nor a gitdir: file", dotGit)
			}
			if !filepath.IsAbs(gitDir) {
				gitDir = filepath.Join(d, gitDir)
			}
			common := gitDir
			if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				common = strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(gitDir, common)
				}
			}
			return openWorkTree(d, gitDir, common), nil
		}
		if filepath.Dir(d) == d {
			return nil, errors.New("no .git directory above it")
		}
	}
}

func openWorkTree(root, gitDir, commonDir string) *WorkTree {
	return &WorkTree{Root: root, gitDir: gitDir, commonDir: commonDir, repo: OpenLocal(commonDir)}
}

// Close releases the git data's files.
func (w *WorkTree) Close() error { return w.repo.Close() }

// Resolve turns ref into a commit hash: HEAD (this work tree's), a full
// hash, or a name under refs/heads, refs/remotes or refs/tags, in that
// order (origin/main, main, v1.0).
func (w *WorkTree) Resolve(ref string) (string, error) {
	if ref == "HEAD" {
		data, err := os.ReadFile(filepath.Join(w.gitDir, "HEAD"))
		if err != nil {
			return "", err
		}
		head := strings.TrimSpace(string(data))
		target, symbolic := strings.CutPrefix(head, "ref: ")
		if !symbolic {
			return plumbing.NewHash(head).String(), nil
		}
		ref = target
	}
	if len(ref) == 40 && plumbing.IsHash(ref) {
		return ref, nil
	}
	w.repo.mu.Lock()
	defer w.repo.mu.Unlock()
	for _, prefix := range []string{"", "refs/heads/", "refs/remotes/", "refs/tags/"} {
		if got, err := storer.ResolveReference(w.repo.st, plumbing.ReferenceName(prefix+ref)); err == nil {
			return got.Hash().String(), nil
		}
	}
	return "", fmt.Errorf("no branch, remote branch or tag named %q", ref)
}

// Tree returns the files of commit (a hash, as Resolve returns it). It
// reads from the work tree's git data until Close.
func (w *WorkTree) Tree(commit string) (*Tree, error) { return w.repo.TreeOf(commit) }
