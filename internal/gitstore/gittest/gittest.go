// Package gittest runs a real smart-HTTP git server for tests: the git
// installation's own git-http-backend behind net/http/cgi, in an httptest
// server on 127.0.0.1, with basic authentication. Repositories are bare
// repositories in a temporary directory; the git command line inspects them.
package gittest

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"maps"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Server is a smart-HTTP git server on loopback. Every repository it serves
// accepts pushes (http.receivepack), checks incoming objects as GitHub does
// (receive.fsckObjects) and keeps a reflog of every ref update.
type Server struct {
	// URL is the base URL, http://127.0.0.1:PORT; a repository NAME is at URL+"/"+NAME.
	URL string

	user, pass string
	root       string // GIT_PROJECT_ROOT
	home       string // HOME for every git process: no user configuration leaks in
	backend    string
	srv        *httptest.Server

	mu       sync.Mutex
	pushes   map[string]int   // repository → authorised receive-pack POSTs
	fetches  map[string]int   // repository → authorised upload-pack POSTs
	sent     map[string]int64 // repository → bytes of upload-pack answers
	beforeRP func(repo string)
	failRP   int // receive-pack POSTs still to answer 500
	accept   func(user, pass string) bool
}

// Accept replaces the fixed user:pass with accept (tokens that expire, say).
func (s *Server) Accept(accept func(user, pass string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accept = accept
}

// New starts a server that accepts only user:pass (basic auth) and stops it
// when the test ends. It skips the test when git-http-backend is not installed.
func New(tb testing.TB, user, pass string) *Server {
	tb.Helper()
	backend := backendPath()
	if backend == "" {
		tb.Skip("gittest: git-http-backend not found (install git; looked in `git --exec-path`)")
	}
	s := &Server{
		user: user, pass: pass,
		root:    tb.TempDir(),
		home:    tb.TempDir(),
		backend: backend,
		pushes:  map[string]int{},
		fetches: map[string]int{},
		sent:    map[string]int64{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	return s
}

func backendPath() string {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return ""
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return ""
	}
	return p
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	u, p, ok := r.BasicAuth()
	s.mu.Lock()
	accept := s.accept
	s.mu.Unlock()
	if accept != nil {
		ok = ok && accept(u, p)
	} else {
		ok = ok && subtle.ConstantTimeCompare([]byte(u), []byte(s.user)) == 1 && subtle.ConstantTimeCompare([]byte(p), []byte(s.pass)) == 1
	}
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="gittest"`)
		http.Error(w, "authentication required", http.StatusUnauthorized)
		return
	}
	if r.Method == http.MethodPost {
		p := strings.TrimPrefix(r.URL.Path, "/")
		i := strings.LastIndexByte(p, '/')
		repo, service := p[:max(i, 0)], p[i+1:]
		s.mu.Lock()
		hook := s.beforeRP
		switch service {
		case "git-receive-pack":
			s.pushes[repo]++
		case "git-upload-pack":
			s.fetches[repo]++
		}
		s.mu.Unlock()
		if service == "git-receive-pack" && hook != nil {
			hook(repo)
		}
		if service == "git-receive-pack" {
			s.mu.Lock()
			fail := s.failRP > 0
			if fail {
				s.failRP--
			}
			s.mu.Unlock()
			if fail {
				http.Error(w, "injected failure", http.StatusInternalServerError)
				return
			}
		}
	}
	h := &cgi.Handler{
		Path: s.backend,
		Dir:  s.root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + s.root,
			"GIT_HTTP_EXPORT_ALL=1",
			"REMOTE_USER=" + u,
			"HOME=" + s.home,
			"GIT_CONFIG_NOSYSTEM=1",
		},
	}
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
		repo, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/git-upload-pack")
		cw := &countingWriter{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		s.mu.Lock()
		s.sent[repo] += cw.n
		s.mu.Unlock()
		return
	}
	h.ServeHTTP(w, r)
}

// countingWriter counts the bytes of a response body.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

// FetchedBytes counts the bytes the repository's upload-pack answers
// carried: what clients downloaded from it.
func (s *Server) FetchedBytes(repo string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[repo]
}

// BeforeReceivePack installs f, called with the repository name after a push
// request (receive-pack POST) is authenticated and before git sees it: after
// the pusher has read the refs, before its update is applied. Tests use it to
// make a competing update land in exactly that window. nil removes it.
func (s *Server) BeforeReceivePack(f func(repo string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beforeRP = f
}

// FailPushes makes the next n push requests (receive-pack POSTs) of any
// repository fail with HTTP 500 before git sees them: a server that is
// down when a run ends.
func (s *Server) FailPushes(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failRP = n
}

// FastImport feeds stream to git fast-import in the repository: the fast
// way to give a test repository a long history.
func (s *Server) FastImport(tb testing.TB, repo string, stream []byte) {
	tb.Helper()
	if _, err := s.runEnv(s.Dir(repo), nil, stream, "fast-import", "--quiet"); err != nil {
		tb.Fatalf("gittest: fast-import: %v", err)
	}
}

// NewRepo creates an empty bare repository NAME (e.g. "cache.git") and
// returns its URL.
func (s *Server) NewRepo(tb testing.TB, name string) string {
	tb.Helper()
	dir := filepath.Join(s.root, name)
	s.run(tb, "", nil, "init", "--quiet", "--bare", "--initial-branch=main", dir)
	for _, kv := range [][2]string{
		{"http.receivepack", "true"},
		{"receive.fsckObjects", "true"},
		{"core.logAllRefUpdates", "always"},
		// As at GitHub: partial clones, and wants of any reachable object.
		{"uploadpack.allowFilter", "true"},
		{"uploadpack.allowReachableSHA1InWant", "true"},
	} {
		s.Git(tb, name, "config", kv[0], kv[1])
	}
	return s.URL + "/" + name
}

// Dir is the bare repository's directory on disk.
func (s *Server) Dir(repo string) string { return filepath.Join(s.root, repo) }

// Pushes counts the authenticated push requests (receive-pack POSTs) the repository got.
func (s *Server) Pushes(repo string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushes[repo]
}

// Fetches counts the authenticated upload-pack POSTs the repository got: the
// requests that download objects (and, in protocol v2, which go-git does not
// speak, ls-refs too).
func (s *Server) Fetches(repo string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches[repo]
}

// Git runs the git command line on the bare repository and returns its
// standard output without the trailing newline; the test fails if git does.
func (s *Server) Git(tb testing.TB, repo string, args ...string) string {
	tb.Helper()
	out, err := s.Run(repo, args...)
	if err != nil {
		tb.Fatalf("gittest: %v", err)
	}
	return out
}

// Run is Git returning git's failure (with its stderr) instead of failing the
// test, for commands whose exit status is the answer (merge-base --is-ancestor).
func (s *Server) Run(repo string, args ...string) (string, error) {
	return s.runEnv(s.Dir(repo), nil, nil, args...)
}

func (s *Server) run(tb testing.TB, gitDir string, env []string, args ...string) string {
	tb.Helper()
	out, err := s.runEnv(gitDir, env, nil, args...)
	if err != nil {
		tb.Fatalf("gittest: %v", err)
	}
	return out
}

func (s *Server) runEnv(gitDir string, env []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(),
		"HOME="+s.home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=gittest", "GIT_AUTHOR_EMAIL=gittest@example.invalid",
		"GIT_COMMITTER_NAME=gittest", "GIT_COMMITTER_EMAIL=gittest@example.invalid",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	)
	if gitDir != "" {
		cmd.Env = append(cmd.Env, "GIT_DIR="+gitDir)
	}
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return strings.TrimRight(stdout.String(), "\n"),
			&GitError{Args: args, Err: err, Stderr: strings.TrimSpace(stderr.String())}
	}
	return strings.TrimRight(stdout.String(), "\n"), nil
}

// GitError is a failed git command.
type GitError struct {
	Args   []string
	Err    error
	Stderr string
}

func (e *GitError) Error() string {
	return "git " + strings.Join(e.Args, " ") + ": " + e.Err.Error() + ": " + e.Stderr
}

func (e *GitError) Unwrap() error { return e.Err }

// Commit writes a commit on branch with git fast-import, directly in the
// bare repository: the tree of the branch's tip (empty when the branch does
// not exist yet) with files (slash-separated path → content) added or
// replaced, the branch's tip as its parent. It returns the new commit's hash.
// Tests use it to seed other branches, benchmarks to make history quickly.
func (s *Server) Commit(tb testing.TB, repo, branch, message string, files map[string][]byte) string {
	tb.Helper()
	dir := s.Dir(repo)
	ref := "refs/heads/" + branch
	var in bytes.Buffer
	fmt.Fprintf(&in, "commit %s\ncommitter gittest <gittest@example.invalid> 1767225600 +0000\ndata %d\n%s\n", ref, len(message), message)
	if parent, err := s.runEnv(dir, nil, nil, "rev-parse", "--verify", "--quiet", ref); err == nil {
		fmt.Fprintf(&in, "from %s\n", parent)
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n", p, len(files[p]))
		in.Write(files[p])
		in.WriteString("\n")
	}
	if _, err := s.runEnv(dir, nil, in.Bytes(), "fast-import", "--quiet"); err != nil {
		tb.Fatalf("gittest: %v", err)
	}
	return s.run(tb, dir, nil, "rev-parse", ref)
}

// RefUpdate is one change of a ref, as the server's reflog recorded it.
type RefUpdate struct{ Old, New string }

// RefLog lists every value ref (e.g. "refs/heads/fetch-cache") took on the
// server, oldest first, from the repository's reflog.
func (s *Server) RefLog(tb testing.TB, repo, ref string) []RefUpdate {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(s.Dir(repo), "logs", filepath.FromSlash(ref)))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	var out []RefUpdate
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			tb.Fatalf("gittest: malformed reflog line %q", line)
		}
		out = append(out, RefUpdate{Old: f[0], New: f[1]})
	}
	return out
}
