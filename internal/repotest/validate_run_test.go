package repotest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/gitstore/gittest"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// TestWorkflowValidateOnPullRequests runs validate.yml's job as GitHub
// Actions runs it for a pull request: on the merge commit GitHub makes of
// the pull request and main (refs/pull/N/merge), fetched from a smart-HTTP
// git server on loopback that holds a copy of this work tree as main and a
// cache branch with a kept robots.txt copy. Each step runs as the runner
// runs it (actions/checkout emulated, run: scripts in bash -eo pipefail,
// the ${{ }} expressions the workflow uses substituted), so what is held
// is the workflow itself, not a description of it:
//
//   - a contributor's pull request that adds a source to a manifest, and
//     nothing else, is green, and the checks page (step summary) says
//     what the source costs its host and when it is first fetched;
//   - one that also edits a page under reports/ by hand fails at the
//     pages step, with the file named;
//   - one whose manifest has an error fails at the validate step, with an
//     annotation on the added line.
//
// The runner knows only the actions, job and step keys and expressions
// the workflow uses today: a new one fails this test until the runner
// below is taught it. The module cache must hold what the command needs
// (any `go test` of the repository filled it); the runner never lets Go
// reach the network (GOPROXY=off).
func TestWorkflowValidateOnPullRequests(t *testing.T) {
	t.Parallel()
	wf := loadWorkflow(t, "validate.yml")
	jobs := wf.jobs()
	if len(jobs) != 1 {
		t.Fatalf("validate.yml has %d jobs; the runner below runs one", len(jobs))
	}
	job := jobs[0]
	runnable(t, wf, job)

	top := root(t)
	srv := gittest.New(t, pushUser, pushToken)
	remote := srv.NewRepo(t, ghRepository)
	if remote != srv.URL+"/"+ghRepository {
		t.Fatalf("the repository is served at %s, not at $GITHUB_SERVER_URL/$GITHUB_REPOSITORY", remote)
	}
	seed := newSeedRepo(t)
	mainCommit := seed.commitWorkTree(t, top)
	seed.push(t, remote, mainCommit+":refs/heads/main")

	// The source the pull requests add, on a host that has sources and a
	// kept robots.txt copy on the cache branch.
	const (
		manifestFile = "manifests/ca.yaml"
		addedID      = "ca-workflow-run-added-source"
		addedURL     = "https://www.canada.ca/en/revenue-agency/services/workflow-run/added-source.html"
		keptRobots   = "User-agent: *\nDisallow: /private/\n"
	)
	for _, name := range seed.lsTree(t, mainCommit, "manifests") {
		if data := seed.show(t, mainCommit, name); bytes.Contains(data, []byte(addedURL)) || bytes.Contains(data, []byte(addedID)) {
			t.Fatalf("%s already lists %s or %s: pick a source no manifest has", name, addedID, addedURL)
		}
	}
	manifest := seed.show(t, mainCommit, manifestFile)
	if last := lastTopLevelKey(manifest); last != "sources" || !bytes.HasSuffix(manifest, []byte("\n")) {
		t.Fatalf("%s does not end with the sources list and a newline (its last top-level key is %q): append the new entry elsewhere", manifestFile, last)
	}
	added := func(kind string) ([]byte, int) {
		// Line of the entry's "- id:", one after the blank line that
		// separates it from the entry above.
		line := bytes.Count(manifest, []byte("\n")) + 2
		entry := fmt.Sprintf("\n  - id: %s\n    url: %s\n    kind: %s\n    title: A source added by a contributor\n    recheck: 12h\n", addedID, addedURL, kind)
		return append(bytes.Clone(manifest), entry...), line
	}

	// The cache branch, as a run leaves it: state.json with the host's
	// robots.txt copy and its body under robots/, a ledger the validate
	// job must not download.
	u, err := url.Parse(addedURL)
	if err != nil {
		t.Fatal(err)
	}
	key := robots.Key(u)
	fetchedAt := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	st := state.New()
	st.PutRobots(key, state.Robots{URL: key + "/robots.txt", FetchedAt: fetchedAt, HTTPStatus: 200, Outcome: state.RobotsParsed, Body: []byte(keptRobots)})
	cacheFiles, err := st.Files()
	if err != nil {
		t.Fatal(err)
	}
	ledger := "ledgers/2026-12-01/" + u.Hostname() + ".jsonl"
	cacheFiles[ledger] = []byte(`{"note":"a ledger line the validate job never downloads"}` + "\n")
	srv.Commit(t, ghRepository, "fetch-cache", "run: the cache", cacheFiles)
	cacheBlobs := map[string]string{}
	for path := range cacheFiles {
		cacheBlobs[path] = srv.Git(t, ghRepository, "rev-parse", "fetch-cache:"+path)
	}

	r := newActionsRunner(t, srv, wf, job)
	validateStep := r.stepRunning(t, "taxkernelbot validate")
	pagesStep := r.stepRunning(t, "taxkernelbot report --check")

	t.Run("manifest only", func(t *testing.T) {
		data, _ := added("rates-page")
		pr := seed.pullRequest(t, remote, 1, mainCommit, "contributor/add-source", map[string][]byte{manifestFile: data})
		steps := r.run(t, pr)
		for _, s := range steps {
			if s.exit != 0 {
				t.Fatalf("%s failed (exit %d) on a pull request that only adds a source to %s:\n%s", s.step, s.exit, manifestFile, withoutWarnings(s.log))
			}
		}
		v := steps[validateStep]
		if !regexp.MustCompile(`(?m)^manifests: \d+ manifest\(s\), \d+ source\(s\), \d+ host\(s\): valid$`).MatchString(v.log) {
			t.Errorf("%s: the log does not say the manifests are valid:\n%s", v.step, withoutWarnings(v.log))
		}
		if !strings.Contains(v.log, "robots.txt copies and host state from the cache branch origin/fetch-cache at ") {
			t.Errorf("%s did not read the cache branch:\n%s", v.step, withoutWarnings(v.log))
		}
		for _, want := range []string{
			"### What the pull request adds",
			addedID,
			addedURL,
			"allows this URL (kept copy of " + fetchedAt.Format(time.DateOnly) + ")",
			"**Cost to the host:** 2 request(s) a day (recheck 12h)",
			"**First fetched:** first fetched within ",
		} {
			if !strings.Contains(v.summary, want) {
				t.Errorf("%s: the step summary lacks %q:\n%s", v.step, want, v.summary)
			}
		}
		// The token was the checkout's and the cache branch step's alone:
		// the pull request's code finds none in the repository.
		config, err := os.ReadFile(filepath.Join(r.workspace, ".git", "config"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(masked(string(config)), "***") || strings.Contains(strings.ToLower(string(config)), "extraheader") {
			t.Errorf("the job left credentials in .git/config:\n%s", config)
		}
		// Of the cache branch the job holds state.json and robots/, not
		// the ledgers.
		objects := r.git(t, "rev-list", "--objects", "--missing=print", "origin/fetch-cache")
		for path, blob := range cacheBlobs {
			missing := slices.Contains(strings.Fields(objects), "?"+blob)
			if want := path == ledger; missing != want {
				t.Errorf("the job holds %s of the cache branch: %t, want %t; objects:\n%s", path, !missing, !want, objects)
			}
		}
	})

	t.Run("hand-edited page", func(t *testing.T) {
		data, _ := added("rates-page")
		const page = "reports/hosts.md"
		edited := append(seed.show(t, mainCommit, page), "| `www.example.org` | 1 | 3s–5s | policy | 200 | any time | not contacted yet | 0 | 0 | 0 | 0 |\n"...)
		pr := seed.pullRequest(t, remote, 2, mainCommit, "contributor/edit-page", map[string][]byte{manifestFile: data, page: edited})
		steps := r.run(t, pr)
		for i, s := range steps[:pagesStep] {
			if s.exit != 0 {
				t.Fatalf("step %d, %s, failed (exit %d) before the pages step:\n%s", i, s.step, s.exit, withoutWarnings(s.log))
			}
		}
		p := steps[pagesStep]
		if !p.ran || p.exit == 0 {
			t.Fatalf("%s passed a hand-edited %s:\n%s", p.step, page, withoutWarnings(p.log))
		}
		if !strings.Contains(p.log, page) {
			t.Errorf("%s does not name %s:\n%s", p.step, page, withoutWarnings(p.log))
		}
	})

	t.Run("manifest error", func(t *testing.T) {
		data, line := added("not-a-kind")
		pr := seed.pullRequest(t, remote, 3, mainCommit, "contributor/bad-kind", map[string][]byte{manifestFile: data})
		steps := r.run(t, pr)
		for i, s := range steps[:validateStep] {
			if s.exit != 0 {
				t.Fatalf("step %d, %s, failed (exit %d) before the validate step:\n%s", i, s.step, s.exit, withoutWarnings(s.log))
			}
		}
		v := steps[validateStep]
		if !v.ran || v.exit == 0 {
			t.Fatalf("%s passed a manifest with kind: not-a-kind:\n%s", v.step, withoutWarnings(v.log))
		}
		// On the added kind, two lines below the entry's "- id:".
		annotation := fmt.Sprintf("::error file=%s,line=%d,col=5::unknown kind %q", manifestFile, line+2, "not-a-kind")
		if !strings.Contains(v.log, annotation) {
			t.Errorf("%s: no %s annotation:\n%s", v.step, annotation, withoutWarnings(v.log))
		}
	})
}

// The GitHub the runner plays.
const (
	ghRepository = "taxkernel/taxkernelbot"      // the repository policy.yaml's identity belongs to
	pushUser     = "x-access-token"              // as actions/checkout authenticates with the job's token
	pushToken    = "ghs_workflowRunTestJobToken" // the job's github.token
)

// runnable fails the test when the workflow or job uses a key the runner
// below does not carry out: teach the runner, then let it run.
func runnable(t *testing.T, wf *workflow, j *job) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), ".github", "workflows", wf.file))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := yaml.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	// name, on (the runner plays a pull_request event), permissions (a
	// read-only token; the server checks none), concurrency (one run at
	// a time) and env change nothing the runner must do otherwise.
	for k := range top {
		if !slices.Contains([]string{"name", "on", "permissions", "concurrency", "env", "jobs"}, k) {
			t.Errorf("%s: the runner does not know the workflow key %q", wf.file, k)
		}
	}
	for i := 0; i+1 < len(j.node.Content); i += 2 {
		k := j.node.Content[i].Value
		if !slices.Contains([]string{"name", "runs-on", "timeout-minutes", "permissions", "env", "steps"}, k) {
			t.Errorf("%s: job %s: the runner does not know the job key %q", wf.file, j.name, k)
		}
		if k != "steps" {
			continue
		}
		for n, s := range j.node.Content[i+1].Content {
			for m := 0; m+1 < len(s.Content); m += 2 {
				if k := s.Content[m].Value; !slices.Contains([]string{"name", "id", "uses", "with", "env", "run"}, k) {
					t.Errorf("%s: job %s: %s: the runner does not know the step key %q", wf.file, j.name, j.Steps[n], k)
				}
			}
		}
	}
	for _, s := range j.Steps {
		switch s.action() {
		case "", "actions/checkout", "actions/setup-go":
		default:
			t.Errorf("%s: job %s: %s uses %s, which the runner does not know", wf.file, j.name, s, s.Uses)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

var topLevelKey = regexp.MustCompile(`^([a-z_]+):`)

// lastTopLevelKey is the last key at the top of a YAML document, found
// by its lines: what a line appended at the end belongs to.
func lastTopLevelKey(doc []byte) string {
	last := ""
	for _, l := range strings.Split(string(doc), "\n") {
		if m := topLevelKey.FindStringSubmatch(l); m != nil {
			last = m[1]
		}
	}
	return last
}

// gitCmd runs git with a configuration of its own (none of the user's or
// the system's) and fixed names and dates, returning its standard output
// without the trailing newline.
func gitCmd(t *testing.T, dir string, env []string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=contributor", "GIT_AUTHOR_EMAIL=contributor@example.invalid",
		"GIT_COMMITTER_NAME=contributor", "GIT_COMMITTER_EMAIL=contributor@example.invalid",
		"GIT_AUTHOR_DATE=2026-12-01T12:00:00Z", "GIT_COMMITTER_DATE=2026-12-01T12:00:00Z",
	)
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimRight(stdout.String(), "\n")
}

func basicAuthHeader(user, pass string) string {
	return "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// seedRepo is the local repository the test makes commits in, with
// plumbing only (no checkout), and pushes from as a contributor would.
type seedRepo struct {
	dir string // the git directory
}

func newSeedRepo(t *testing.T) *seedRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "seed.git")
	gitCmd(t, "", nil, nil, "init", "--quiet", "--bare", "--initial-branch=main", dir)
	return &seedRepo{dir: dir}
}

func (s *seedRepo) git(t *testing.T, env []string, stdin []byte, args ...string) string {
	t.Helper()
	return gitCmd(t, "", append([]string{"GIT_DIR=" + s.dir}, env...), stdin, args...)
}

// commitWorkTree commits the files of the work tree at top that git
// lists (tracked or not, unless ignored) as they are on disk: the copy
// of this repository the pull requests are made against.
func (s *seedRepo) commitWorkTree(t *testing.T, top string) string {
	t.Helper()
	listed := gitCmd(t, top, nil, nil, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var present []byte
	for _, p := range strings.Split(listed, "\x00") {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(top, p)); err != nil {
			continue // deleted in the work tree, not yet committed
		}
		present = append(append(present, p...), 0)
	}
	index := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index"), "GIT_WORK_TREE=" + top}
	gitCmd(t, top, append([]string{"GIT_DIR=" + s.dir}, index...), present, "--literal-pathspecs", "add", "--pathspec-from-file=-", "--pathspec-file-nul")
	tree := s.git(t, index, nil, "write-tree")
	return s.git(t, nil, nil, "commit-tree", tree, "-m", "main: this work tree")
}

// commit is parent with files (path → content) written over it.
func (s *seedRepo) commit(t *testing.T, parent, message string, files map[string][]byte) string {
	t.Helper()
	index := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	s.git(t, index, nil, "read-tree", parent)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		blob := s.git(t, nil, files[p], "hash-object", "-w", "--stdin")
		s.git(t, index, nil, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p)
	}
	return s.git(t, nil, nil, "commit-tree", s.git(t, index, nil, "write-tree"), "-p", parent, "-m", message)
}

func (s *seedRepo) show(t *testing.T, commit, path string) []byte {
	t.Helper()
	data, err := exec.Command("git", "--git-dir="+s.dir, "cat-file", "blob", commit+":"+path).Output()
	if err != nil {
		t.Fatalf("git cat-file blob %s:%s: %v", commit, path, err)
	}
	return data
}

func (s *seedRepo) lsTree(t *testing.T, commit, dir string) []string {
	t.Helper()
	return strings.Fields(s.git(t, nil, nil, "ls-tree", "--name-only", commit, dir+"/"))
}

func (s *seedRepo) push(t *testing.T, remote string, refspecs ...string) {
	t.Helper()
	// One request body, not a chunked one: net/http/cgi takes no chunked
	// request bodies, and this repository's pack is over git's default
	// buffer of 1 MiB.
	s.git(t, nil, nil, append([]string{"-c", "http.extraheader=" + basicAuthHeader(pushUser, pushToken), "-c", "http.postBuffer=268435456",
		"push", "--quiet", remote}, refspecs...)...)
}

// pullRequest is what GitHub holds for pull request number n into main
// from the branch head, one commit on main's tip that writes files: the
// head at refs/pull/N/head and the merge commit of main and the head at
// refs/pull/N/merge.
type pullRequest struct {
	number     int
	base, head string // branch names
	merge      string // the merge commit
}

func (s *seedRepo) pullRequest(t *testing.T, remote string, n int, mainCommit, head string, files map[string][]byte) pullRequest {
	t.Helper()
	headCommit := s.commit(t, mainCommit, "Add a source", files)
	tree := strings.Fields(s.git(t, nil, nil, "merge-tree", "--write-tree", mainCommit, headCommit))[0]
	merge := s.git(t, nil, nil, "commit-tree", tree, "-p", mainCommit, "-p", headCommit, "-m", fmt.Sprintf("Merge %s into %s", headCommit, mainCommit))
	s.push(t, remote, fmt.Sprintf("+%s:refs/pull/%d/head", headCommit, n), fmt.Sprintf("+%s:refs/pull/%d/merge", merge, n))
	return pullRequest{number: n, base: "main", head: head, merge: merge}
}

// actionsRunner runs a job's steps as GitHub's runner does for a
// pull_request event, in one workspace whose path stays the same from run
// to run, so that Go's build cache serves every run after the first.
type actionsRunner struct {
	srv       *gittest.Server
	wf        *workflow
	job       *job
	workspace string
	gitConfig string // an empty global git configuration: none of the user's
	goEnv     []string
}

func newActionsRunner(t *testing.T, srv *gittest.Server, wf *workflow, j *job) *actionsRunner {
	t.Helper()
	r := &actionsRunner{srv: srv, wf: wf, job: j,
		workspace: stableWorkspace(t),
		gitConfig: filepath.Join(t.TempDir(), "gitconfig"),
	}
	if err := os.WriteFile(r.gitConfig, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The Go caches of this machine, where `go test` left the modules and
	// the compiled packages: actions/setup-go is played by the Go on PATH.
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	caches := strings.Fields(string(out))
	if len(caches) != 2 {
		t.Fatalf("go env GOCACHE GOMODCACHE: %q", out)
	}
	r.goEnv = []string{"GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1]}
	return r
}

// stableWorkspace is where the runner checks out, under a path that is
// the same from one `go test` to the next (as GitHub's
// /home/runner/work/<repo>/<repo> is): Go's build cache keys a compiled
// package by its directory too, so in a fresh directory every run would
// compile the whole command again. One run at a time holds it (a lock
// file beside it); another gets a fresh directory and compiles.
func stableWorkspace(t *testing.T) string {
	t.Helper()
	sum := sha256.Sum256([]byte(root(t)))
	base := filepath.Join(os.TempDir(), fmt.Sprintf("taxkernelbot-validate-run-%x", sum[:6]))
	fresh := filepath.Join(t.TempDir(), "work", "taxkernelbot", "taxkernelbot")
	lock, err := os.OpenFile(base+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Logf("%s.lock is held (by another run, or by one that was killed: then remove it), so the command is compiled in a fresh directory: %v", base, err)
		return fresh
	}
	lock.Close()
	if err := os.RemoveAll(base); err != nil { // what a killed run left
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(base); err != nil {
			t.Error(err)
		}
		os.Remove(base + ".lock")
	})
	return filepath.Join(base, "work", "taxkernelbot", "taxkernelbot")
}

// stepRunning is the index of the one step whose script runs command.
func (r *actionsRunner) stepRunning(t *testing.T, command string) int {
	t.Helper()
	found := -1
	for i, s := range r.job.Steps {
		if strings.Contains(s.Run, command) {
			if found >= 0 {
				t.Fatalf("%s: job %s: two steps run %q", r.wf.file, r.job.name, command)
			}
			found = i
		}
	}
	if found < 0 {
		t.Fatalf("%s: job %s: no step runs %q", r.wf.file, r.job.name, command)
	}
	return found
}

type stepResult struct {
	step    step
	ran     bool // false: skipped, as a step after a failed one is
	exit    int
	log     string // standard output and error, as the checks page shows them
	summary string // what the step wrote to $GITHUB_STEP_SUMMARY
}

// run runs the job on pull request pr in a fresh workspace: each step in
// order until one fails, the rest skipped.
func (r *actionsRunner) run(t *testing.T, pr pullRequest) []stepResult {
	t.Helper()
	if err := os.RemoveAll(r.workspace); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(r.workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	runnerTemp := t.TempDir()
	ghContext := map[string]string{
		"github.base_ref":                  pr.base,
		"github.head_ref":                  pr.head,
		"github.ref":                       fmt.Sprintf("refs/pull/%d/merge", pr.number),
		"github.sha":                       pr.merge,
		"github.token":                     pushToken,
		"github.event_name":                "pull_request",
		"github.repository":                ghRepository,
		"github.server_url":                r.srv.URL,
		"github.workspace":                 r.workspace,
		"github.event.pull_request.number": strconv.Itoa(pr.number),
		"runner.temp":                      runnerTemp,
	}
	runnerEnv := append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"GIT_CONFIG_GLOBAL=" + r.gitConfig, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GOTOOLCHAIN=local", // the Go on PATH, never a download
		"GITHUB_ACTIONS=true", "CI=true",
		"GITHUB_SERVER_URL=" + r.srv.URL,
		"GITHUB_REPOSITORY=" + ghRepository,
		"GITHUB_EVENT_NAME=pull_request",
		"GITHUB_BASE_REF=" + pr.base,
		"GITHUB_HEAD_REF=" + pr.head,
		"GITHUB_REF=" + ghContext["github.ref"],
		"GITHUB_SHA=" + pr.merge,
		"GITHUB_WORKSPACE=" + r.workspace,
		"RUNNER_OS=Linux",
		"RUNNER_TEMP=" + runnerTemp,
	}, r.goEnv...)
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		runnerEnv = append(runnerEnv, "TMPDIR="+tmp)
	}

	var results []stepResult
	failed := false
	for i, s := range r.job.Steps {
		res := stepResult{step: s}
		if failed {
			results = append(results, res)
			continue
		}
		res.ran = true
		where := fmt.Sprintf("%s: job %s: %s", r.wf.file, r.job.name, s)
		switch s.action() {
		case "actions/checkout":
			res.exit, res.log = r.checkout(t, where, s, pr, ghContext)
		case "actions/setup-go":
			// Go is on PATH (the one running this test); its caches are
			// passed to every step.
			res.log = "setup-go: the Go on PATH"
		case "":
			res = r.runScript(t, where, i, s, ghContext, runnerEnv, runnerTemp)
		default:
			t.Fatalf("%s uses %s, which the runner does not know", where, s.Uses)
		}
		res.log = masked(res.log)
		t.Logf("%s: exit %d\n%s", s, res.exit, withoutWarnings(res.log))
		failed = res.exit != 0
		results = append(results, res)
	}
	return results
}

// masked is a step's log as the checks page shows it: the job's token,
// and the header made of it, as ***.
func masked(log string) string {
	header := strings.TrimPrefix(basicAuthHeader(pushUser, pushToken), "AUTHORIZATION: basic ")
	return strings.NewReplacer(header, "***", pushToken, "***").Replace(log)
}

// withoutWarnings is log with its ::warning annotations counted, not
// shown: the manifests' known warnings, the same at every step.
func withoutWarnings(log string) string {
	var kept []string
	n := 0
	for _, l := range strings.Split(strings.TrimRight(log, "\n"), "\n") {
		if strings.HasPrefix(l, "::warning ") {
			n++
			continue
		}
		kept = append(kept, l)
	}
	if n > 0 {
		kept = append(kept, fmt.Sprintf("(%d ::warning annotations)", n))
	}
	return strings.Join(kept, "\n")
}

// expand substitutes the ${{ }} expressions the runner knows; any other
// fails the test, so that a workflow cannot use a context the test does
// not stand in for.
func expand(t *testing.T, where, s string, ctx map[string]string) string {
	t.Helper()
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		e := expression.FindStringSubmatch(m)[1]
		v, ok := ctx[e]
		if !ok {
			t.Fatalf("%s: the runner does not know the expression ${{ %s }}", where, e)
		}
		return v
	})
}

// checkout does what actions/checkout does for a pull_request event: the
// merge commit alone (with fetch-depth's history), fetched with the job's
// token in a header that is passed on the command line and, with
// persist-credentials: false, never written to .git/config.
func (r *actionsRunner) checkout(t *testing.T, where string, s step, pr pullRequest, ctx map[string]string) (int, string) {
	t.Helper()
	depth, persist := "1", true
	for k := range s.With {
		v := expand(t, where, s.with(k), ctx)
		switch k {
		case "fetch-depth":
			depth = v
		case "persist-credentials":
			persist = v != "false"
		default:
			t.Fatalf("%s: the runner does not know actions/checkout's with: %s", where, k)
		}
	}
	header := "http." + r.srv.URL + "/.extraheader=" + basicAuthHeader(pushUser, pushToken)
	env := []string{"GIT_CONFIG_GLOBAL=" + r.gitConfig, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"}
	var log strings.Builder
	git := func(args ...string) {
		log.WriteString("git " + strings.Join(args, " ") + "\n")
		log.WriteString(gitCmd(t, r.workspace, env, nil, args...))
	}
	git("init", "--quiet", r.workspace)
	git("remote", "add", "origin", r.srv.URL+"/"+ghRepository)
	git("config", "--local", "gc.auto", "0")
	if persist {
		git("config", "--local", header[:strings.IndexByte(header, '=')], header[strings.IndexByte(header, '=')+1:])
	}
	fetch := []string{"-c", header, "fetch", "--quiet", "--no-tags", "--prune", "--no-recurse-submodules"}
	if depth != "0" {
		fetch = append(fetch, "--depth="+depth)
	}
	ref := fmt.Sprintf("refs/pull/%d/merge", pr.number)
	git(append(fetch, "origin", "+"+ref+":refs/remotes/pull/"+strconv.Itoa(pr.number)+"/merge")...)
	git("checkout", "--quiet", "--force", "refs/remotes/pull/"+strconv.Itoa(pr.number)+"/merge")
	return 0, log.String()
}

// runScript runs a run: step as the runner does: the script, its
// expressions substituted, in bash --noprofile --norc -eo pipefail in
// the workspace, with the runner's environment and the workflow's, job's
// and step's env: on top. Go never reaches the network: GOPROXY=off
// whatever the step sets.
func (r *actionsRunner) runScript(t *testing.T, where string, i int, s step, ctx map[string]string, runnerEnv []string, runnerTemp string) stepResult {
	t.Helper()
	res := stepResult{step: s, ran: true}
	script := filepath.Join(runnerTemp, fmt.Sprintf("step-%d.sh", i))
	if err := os.WriteFile(script, []byte(expand(t, where, s.Run, ctx)), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, name := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH"} {
		files[name] = filepath.Join(runnerTemp, fmt.Sprintf("step-%d-%s", i, strings.ToLower(name)))
		if err := os.WriteFile(files[name], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := slices.Clone(runnerEnv)
	for name, path := range files {
		env = append(env, name+"="+path)
	}
	for _, vars := range []map[string]string{r.wf.Env, r.job.Env, s.Env} {
		for k, v := range vars {
			env = append(env, k+"="+expand(t, where, v, ctx))
		}
	}
	env = append(env, "GOPROXY=off")

	cmd := exec.CommandContext(t.Context(), "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = r.workspace
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	res.log = out.String()
	if ee, ok := err.(*exec.ExitError); ok {
		res.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	data, err := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	res.summary = string(data)
	for _, name := range []string{"GITHUB_ENV", "GITHUB_PATH"} {
		if data, err := os.ReadFile(files[name]); err != nil || len(data) > 0 {
			t.Fatalf("%s wrote to $%s, which the runner does not carry to the next steps (%v)", where, name, err)
		}
	}
	return res
}

// git runs git in the workspace of the last run.
func (r *actionsRunner) git(t *testing.T, args ...string) string {
	t.Helper()
	return gitCmd(t, r.workspace, []string{"GIT_CONFIG_GLOBAL=" + r.gitConfig}, nil, args...)
}
