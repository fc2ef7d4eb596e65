package gitstore

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestWorkTree: a work tree found from a directory inside it, and from a
// linked work tree, resolves HEAD, branches and hashes as git does and
// reads a commit's files.
func TestWorkTree(t *testing.T) {
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(repo, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "manifests", "uk.yaml"), []byte("jurisdiction: uk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "one")
	main := gitIn(t, repo, "rev-parse", "HEAD")
	linked := filepath.Join(t.TempDir(), "linked")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "pr", linked)

	for _, dir := range []string{filepath.Join(repo, "manifests"), linked} {
		wt, err := OpenWorkTree(dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, ref := range []string{"HEAD", "main", main} {
			if got, err := wt.Resolve(ref); err != nil || got != main {
				t.Errorf("%s: Resolve(%s) = %s, %v; want %s", dir, ref, got, err, main)
			}
		}
		if _, err := wt.Resolve("no-such-branch"); err == nil {
			t.Errorf("%s: Resolve of a missing branch succeeded", dir)
		}
		tree, err := wt.Tree(main)
		if err != nil {
			t.Fatal(err)
		}
		if data, err := fs.ReadFile(tree, "manifests/uk.yaml"); err != nil || string(data) != "jurisdiction: uk\n" {
			t.Errorf("%s: manifests/uk.yaml = %q, %v", dir, data, err)
		}
		if err := wt.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if _, err := OpenWorkTree(t.TempDir()); err == nil {
		t.Error("a directory outside any repository opened as a work tree")
	}
}
