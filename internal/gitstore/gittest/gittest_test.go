package gittest

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestServer(t *testing.T) {
	s := New(t, "bot", "s3cret")
	url := s.NewRepo(t, "r.git")
	tip := s.Commit(t, "r.git", "main", "one", map[string][]byte{"a/b.txt": []byte("b\n")})
	tip2 := s.Commit(t, "r.git", "main", "two", map[string][]byte{"c.txt": []byte("c\n")})
	if got := s.Git(t, "r.git", "rev-parse", tip2+"^"); got != tip {
		t.Errorf("parent of the second commit = %s, want %s", got, tip)
	}
	if got := s.Git(t, "r.git", "ls-tree", "-r", "--name-only", "main"); got != "a/b.txt\nc.txt" {
		t.Errorf("files = %q", got)
	}

	for name, auth := range map[string][2]string{"none": {}, "wrong": {"bot", "nope"}} {
		req, _ := http.NewRequest("GET", url+"/info/refs?service=git-upload-pack", nil)
		if auth[0] != "" {
			req.SetBasicAuth(auth[0], auth[1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
			t.Errorf("%s credentials: %s, WWW-Authenticate %q", name, resp.Status, resp.Header.Get("WWW-Authenticate"))
		}
	}

	// The git command line clones, commits and pushes through it.
	work := t.TempDir()
	authURL := strings.Replace(url, "http://", "http://bot:s3cret@", 1)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "HOME="+work,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("clone", "--quiet", authURL, "c")
	if err := os.WriteFile(work+"/c/d.txt", []byte("d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("-C", "c", "add", "d.txt")
	git("-C", "c", "commit", "--quiet", "-m", "three")
	git("-C", "c", "push", "--quiet", "origin", "main")
	if got := s.Git(t, "r.git", "log", "-1", "--format=%s", "main"); got != "three" {
		t.Errorf("tip subject = %q after the push", got)
	}
	// (git clone speaks protocol v2: its ls-refs is an upload-pack POST too.)
	if s.Pushes("r.git") != 1 || s.Fetches("r.git") < 1 {
		t.Errorf("pushes %d, fetches %d; want 1 and at least 1", s.Pushes("r.git"), s.Fetches("r.git"))
	}
	if rl := s.RefLog(t, "r.git", "refs/heads/main"); len(rl) != 3 || rl[0].New != tip || rl[2].Old != tip2 {
		t.Errorf("reflog = %v", rl)
	}
	if _, err := s.Run("r.git", "rev-parse", "--verify", "no-such-ref"); err == nil {
		t.Error("Run did not report git's failure")
	}
}
