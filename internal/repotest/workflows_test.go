package repotest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The workflows give each job only what it needs. Each test below reads
// .github/workflows/*.yml (and .github/dependabot.yml) as YAML and holds
// them to one rule; the rule is in the test's comment.

type workflow struct {
	file        string
	Permissions any               `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]*job   `yaml:"jobs"`
}

type job struct {
	name        string
	node        *yaml.Node
	Name        string            `yaml:"name"`
	If          string            `yaml:"if"`
	Needs       any               `yaml:"needs"`
	Permissions any               `yaml:"permissions"`
	Outputs     map[string]string `yaml:"outputs"`
	Env         map[string]string `yaml:"env"`
	Uses        string            `yaml:"uses"`
	Steps       []step            `yaml:"steps"`
}

func (j *job) UnmarshalYAML(n *yaml.Node) error {
	type plain job
	if err := n.Decode((*plain)(j)); err != nil {
		return err
	}
	j.node = n
	return nil
}

type step struct {
	ID               string            `yaml:"id"`
	WorkingDirectory string            `yaml:"working-directory"`
	Name             string            `yaml:"name"`
	Uses             string            `yaml:"uses"`
	With             map[string]any    `yaml:"with"`
	Env              map[string]string `yaml:"env"`
	Run              string            `yaml:"run"`
}

func (s step) String() string {
	switch {
	case s.Name != "":
		return fmt.Sprintf("step %q", s.Name)
	case s.ID != "":
		return fmt.Sprintf("step id %q", s.ID)
	case s.Uses != "":
		return "step uses " + s.Uses
	}
	return "step run " + strings.SplitN(s.Run, "\n", 2)[0]
}

// action is what a step uses, without its version: "actions/checkout".
func (s step) action() string {
	a, _, _ := strings.Cut(s.Uses, "@")
	return a
}

// runLines is the step's script with its continued lines joined, so that a
// command split over lines with "\" reads as one line.
func (s step) runLines() []string {
	return strings.Split(strings.ReplaceAll(s.Run, "\\\n", " "), "\n")
}

// runsMatching says whether a line of one of the job's scripts matches re.
func (j *job) runsMatching(re *regexp.Regexp) bool {
	for _, s := range j.Steps {
		for _, l := range s.runLines() {
			if re.MatchString(l) {
				return true
			}
		}
	}
	return false
}

func (s step) with(key string) string {
	v, ok := s.With[key]
	if !ok {
		return ""
	}
	return fmt.Sprint(v)
}

// root is the repository's top directory: the one holding go.mod.
func root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func loadWorkflow(t *testing.T, name string) *workflow {
	t.Helper()
	path := filepath.Join(root(t), ".github", "workflows", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	wf.file = name
	for n, j := range wf.Jobs {
		j.name = n
	}
	return &wf
}

func loadWorkflows(t *testing.T) []*workflow {
	t.Helper()
	var names []string
	for _, pattern := range []string{"*.yml", "*.yaml"} {
		m, err := filepath.Glob(filepath.Join(root(t), ".github", "workflows", pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			names = append(names, filepath.Base(p))
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("no workflow under .github/workflows")
	}
	var wfs []*workflow
	for _, n := range names {
		wfs = append(wfs, loadWorkflow(t, n))
	}
	return wfs
}

// jobs returns the workflow's jobs in name order.
func (wf *workflow) jobs() []*job {
	var js []*job
	for _, j := range wf.Jobs {
		js = append(js, j)
	}
	sort.Slice(js, func(a, b int) bool { return js[a].name < js[b].name })
	return js
}

func (j *job) needs() []string {
	switch v := j.Needs.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

// permissions turns a permissions value into scope → level. nil means
// the value was not set; "read-all" and "write-all" name every scope.
func permissions(v any) map[string]string {
	switch p := v.(type) {
	case nil:
		return nil
	case string:
		level := strings.TrimSuffix(p, "-all")
		m := map[string]string{}
		for _, scope := range []string{"actions", "attestations", "checks", "contents", "deployments", "discussions",
			"id-token", "issues", "models", "packages", "pages", "pull-requests", "security-events", "statuses"} {
			m[scope] = level
		}
		return m
	case map[string]any:
		m := map[string]string{}
		for k, v := range p {
			m[k] = fmt.Sprint(v)
		}
		return m
	}
	panic(fmt.Sprintf("permissions of an unknown shape: %#v", v))
}

// effective is what the job's token may do: its own permissions when it
// sets them (they replace the workflow's), else the workflow's.
func (wf *workflow) effective(j *job) map[string]string {
	if p := permissions(j.Permissions); p != nil {
		return p
	}
	return permissions(wf.Permissions)
}

// scalars is every string the node holds (keys and values), comments left out.
func scalars(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, c := range n.Content {
		out = append(out, scalars(c)...)
	}
	return out
}

func mentions(n *yaml.Node, what string) bool {
	return slices.ContainsFunc(scalars(n), func(s string) bool { return strings.Contains(s, what) })
}

var space = regexp.MustCompile(`\s+`)

// requiresMain says whether a job's if can only be true on refs/heads/main:
// one of its conditions joined by && is github.ref == 'refs/heads/main'.
func requiresMain(cond string) bool {
	cond = strings.TrimSpace(cond)
	cond = strings.TrimSuffix(strings.TrimPrefix(cond, "${{"), "}}")
	if strings.Contains(cond, "||") || strings.Contains(cond, "!(") {
		return false // an alternative, or a negation of a group, could let another ref in
	}
	for _, c := range strings.Split(cond, "&&") {
		c = space.ReplaceAllString(strings.TrimSpace(strings.Trim(strings.TrimSpace(c), "()")), " ")
		c = strings.ReplaceAll(c, `"`, `'`)
		if c == "github.ref == 'refs/heads/main'" || c == "'refs/heads/main' == github.ref" {
			return true
		}
	}
	return false
}

// TestWorkflowSecretsOnlyOnMain: a job that reads a secret (the App key,
// the signing key, a token) runs only for refs/heads/main, whatever branch
// a workflow_dispatch names, and checks out nothing but main; no workflow
// hands a secret to all of its jobs.
func TestWorkflowSecretsOnlyOnMain(t *testing.T) {
	found := 0
	for _, wf := range loadWorkflows(t) {
		for k, v := range wf.Env {
			if strings.Contains(v, "secrets.") {
				t.Errorf("%s: the workflow's env %s reads a secret, which every job then gets: set it on the one step that needs it", wf.file, k)
			}
		}
		for _, j := range wf.jobs() {
			if !mentions(j.node, "secrets.") {
				continue
			}
			found++
			if !requiresMain(j.If) {
				t.Errorf("%s: job %s reads secrets but its if (%q) does not require github.ref == 'refs/heads/main': a workflow_dispatch of any branch would hand them to that branch's code",
					wf.file, j.name, j.If)
			}
			for _, s := range j.Steps {
				if s.action() != "actions/checkout" {
					continue
				}
				if ref := s.with("ref"); ref != "" && ref != "main" && ref != "refs/heads/main" {
					t.Errorf("%s: job %s reads secrets and its %s checks out %q, not main", wf.file, j.name, s, ref)
				}
			}
		}
	}
	if found == 0 {
		t.Error("no job reads a secret: the fetch job was expected to")
	}
}

var (
	goBuild     = regexp.MustCompile(`\bgo\s+(build|run|install|test|generate)\b`)
	target      = regexp.MustCompile(`--target[ =]+"?(\$\{\{[^}]*\}\}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)"?`)
	needsOutput = regexp.MustCompile(`^\$\{\{\s*needs\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$`)
	stepOutput  = regexp.MustCompile(`^\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$`)
)

// TestWorkflowDatasetPublishesWhatItBuilt: dataset.yml builds with a
// read-only token; the one job that may write (contents: write, to create
// the release) runs no Go and checks out nothing it runs, and tags the
// very commit the build job checked out and built — its git rev-parse
// HEAD, passed as a job output — never $GITHUB_SHA, which is the commit
// the run was started from and may not be main's.
func TestWorkflowDatasetPublishesWhatItBuilt(t *testing.T) {
	wf := loadWorkflow(t, "dataset.yml")
	wp := permissions(wf.Permissions)
	if wp == nil || wp["contents"] != "read" {
		t.Errorf("dataset.yml: the workflow's permissions are %v, want contents: read (the job that publishes asks for write itself)", wf.Permissions)
	}
	for scope, level := range wp {
		if level == "write" {
			t.Errorf("dataset.yml: the workflow grants %s: write to every job", scope)
		}
	}

	var publishers []*job
	for _, j := range wf.jobs() {
		if wf.effective(j)["contents"] == "write" {
			publishers = append(publishers, j)
		}
	}
	if len(publishers) != 1 {
		t.Fatalf("dataset.yml: %d jobs may write contents, want one (the publish job)", len(publishers))
	}
	pub := publishers[0]
	for _, s := range pub.Steps {
		if s.action() == "actions/setup-go" || goBuild.MatchString(s.Run) {
			t.Errorf("dataset.yml: job %s may write contents and builds or runs Go (%s): building belongs in a read-only job", pub.name, s)
		}
		if s.action() == "actions/checkout" {
			t.Errorf("dataset.yml: job %s may write contents and checks out the repository (%s): it needs only the built assets", pub.name, s)
		}
	}
	for _, v := range scalars(pub.node) {
		if strings.Contains(v, "GITHUB_SHA") || strings.Contains(v, "github.sha") {
			t.Errorf("dataset.yml: job %s names the run's commit (GITHUB_SHA/github.sha), not the one it built: %q", pub.name, firstLine(v, "GITHUB_SHA", "github.sha"))
		}
	}
	if !slices.ContainsFunc(pub.Steps, func(s step) bool { return s.action() == "actions/download-artifact" }) {
		t.Errorf("dataset.yml: job %s does not download the built assets (actions/download-artifact)", pub.name)
	}

	// The release's --target, followed back to the build job's git rev-parse HEAD.
	arg, expr := "", ""
	for _, s := range pub.Steps {
		m := target.FindStringSubmatch(s.Run)
		if m == nil {
			continue
		}
		arg, expr = m[1], m[1]
		if !strings.HasPrefix(expr, "${{") {
			name := strings.Trim(expr, "${}")
			switch {
			case s.Env[name] != "":
				expr = s.Env[name]
			case pub.Env[name] != "":
				expr = pub.Env[name]
			default:
				expr = wf.Env[name]
			}
		}
		break
	}
	if arg == "" {
		t.Fatalf("dataset.yml: job %s creates no release with --target", pub.name)
	}
	m := needsOutput.FindStringSubmatch(strings.TrimSpace(expr))
	if m == nil {
		t.Fatalf("dataset.yml: the release's --target is %s (%q), want a build job's output (${{ needs.JOB.outputs.NAME }})", arg, expr)
	}
	build, output := wf.Jobs[m[1]], m[2]
	if build == nil || !slices.Contains(pub.needs(), m[1]) {
		t.Fatalf("dataset.yml: --target names job %s, which job %s does not need", m[1], pub.name)
	}
	if wf.effective(build)["contents"] == "write" {
		t.Errorf("dataset.yml: the build job %s may write contents", build.name)
	}
	builds, uploads, checksMain := false, false, false
	for _, s := range build.Steps {
		builds = builds || strings.Contains(s.Run, "go build")
		uploads = uploads || s.action() == "actions/upload-artifact"
		checksMain = checksMain || (s.action() == "actions/checkout" && s.with("path") == "" && s.with("ref") == "main")
	}
	if !builds || !uploads || !checksMain {
		t.Errorf("dataset.yml: the build job %s: checks out main %v, go build %v, uploads an artifact %v; want all three", build.name, checksMain, builds, uploads)
	}
	so := stepOutput.FindStringSubmatch(strings.TrimSpace(build.Outputs[output]))
	if so == nil {
		t.Fatalf("dataset.yml: job %s's output %s is %q, want a step's output", build.name, output, build.Outputs[output])
	}
	i := slices.IndexFunc(build.Steps, func(s step) bool { return s.ID == so[1] })
	if i < 0 {
		t.Fatalf("dataset.yml: job %s has no step %s", build.name, so[1])
	}
	if s := build.Steps[i]; !strings.Contains(s.Run, "git rev-parse HEAD") || !strings.Contains(s.Run, so[2]+"=") {
		t.Errorf("dataset.yml: job %s's %s does not set %s from git rev-parse HEAD (the commit it checked out)", build.name, s, so[2])
	}
}

func firstLine(s string, subs ...string) string {
	for _, l := range strings.Split(s, "\n") {
		for _, sub := range subs {
			if strings.Contains(l, sub) {
				return strings.TrimSpace(l)
			}
		}
	}
	return s
}

// TestWorkflowValidateFetchesOnlyWhatItReads: validate.yml fetches the pull
// request, its base and, of the cache branch, its tip without history and
// without the file contents it does not read — never every branch's whole
// history (fetch-depth: 0 brings fetch-cache's, up to a GiB a day).
func TestWorkflowValidateFetchesOnlyWhatItReads(t *testing.T) {
	wf := loadWorkflow(t, "validate.yml")
	cacheBranch, cacheFetched := false, false
	for _, j := range wf.jobs() {
		for _, s := range j.Steps {
			if s.action() == "actions/checkout" && s.with("fetch-depth") == "0" {
				t.Errorf("validate.yml: job %s: %s has fetch-depth: 0, every branch's whole history", j.name, s)
			}
			for _, l := range s.runLines() {
				for _, bad := range []string{"--unshallow", "--all", "--mirror", "refs/heads/*", "git clone"} {
					if strings.Contains(l, bad) {
						t.Errorf("validate.yml: job %s: %s fetches more than it reads (%s): %s", j.name, s, bad, strings.TrimSpace(l))
					}
				}
				if strings.Contains(l, "--cache-branch") {
					cacheBranch = true
				}
				if strings.Contains(l, "git fetch") && strings.Contains(l, "fetch-cache") {
					if !strings.Contains(l, "--depth=1") || !strings.Contains(l, "--filter=blob:none") {
						t.Errorf("validate.yml: job %s: %s fetches the cache branch without --depth=1 --filter=blob:none: %s", j.name, s, strings.TrimSpace(l))
					}
					cacheFetched = true
				}
			}
		}
	}
	if cacheBranch && !cacheFetched {
		t.Error("validate.yml: validate reads --cache-branch, but no step fetches fetch-cache (git fetch --depth=1 --filter=blob:none)")
	}
}

// TestWorkflowGoIsTheCurrentPatchRelease: the runners build the bot, which
// parses hostile content, with Go's newest patch release of the minor
// version go.mod names: every actions/setup-go asks for that minor as a
// range and check-latest: true (go-version-file: go.mod would name go.mod's
// exact go line, e.g. 1.26.0, which check-latest cannot raise) — unless
// go.mod pins the patch itself with a toolchain line.
func TestWorkflowGoIsTheCurrentPatchRelease(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join(root(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	toolchain := regexp.MustCompile(`(?m)^toolchain go\d`).Match(gomod)
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	minor := string(goLine[1])
	versionRange := regexp.MustCompile(`^(\d+\.\d+)(\.x)?$`)
	seen := 0
	for _, wf := range loadWorkflows(t) {
		for _, j := range wf.jobs() {
			for _, s := range j.Steps {
				if s.action() != "actions/setup-go" {
					continue
				}
				seen++
				if toolchain {
					continue
				}
				if s.with("check-latest") != "true" {
					t.Errorf("%s: job %s: %s has no check-latest: true: the runner's cached Go may be an old patch release", wf.file, j.name, s)
				}
				v := s.with("go-version")
				m := versionRange.FindStringSubmatch(v)
				switch {
				case s.with("go-version-file") != "":
					t.Errorf("%s: job %s: %s reads go-version-file %s, whose go line is an exact release check-latest cannot raise; name the minor version (go-version: %q)",
						wf.file, j.name, s, s.with("go-version-file"), minor)
				case m == nil:
					t.Errorf("%s: job %s: %s asks for go-version %q, want the minor version as a range, e.g. %q", wf.file, j.name, s, v, minor)
				case m[1] != minor:
					t.Errorf("%s: job %s: %s asks for Go %s, go.mod's go line is %s: keep them in step", wf.file, j.name, s, m[1], minor)
				}
			}
		}
	}
	if seen == 0 {
		t.Error("no workflow sets up Go")
	}
}

// TestWorkflowDependabot: .github/dependabot.yml keeps the pinned actions
// and the Go modules current: both ecosystems, from the root, weekly, in
// groups (one pull request per ecosystem rather than one per dependency).
func TestWorkflowDependabot(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), ".github", "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	type update struct {
		Ecosystem   string         `yaml:"package-ecosystem"`
		Directory   string         `yaml:"directory"`
		Directories []string       `yaml:"directories"`
		Schedule    map[string]any `yaml:"schedule"`
		Groups      map[string]any `yaml:"groups"`
	}
	var cfg struct {
		Version int      `yaml:"version"`
		Updates []update `yaml:"updates"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 2 {
		t.Errorf("dependabot.yml: version %d, want 2", cfg.Version)
	}
	for _, eco := range []string{"github-actions", "gomod"} {
		i := slices.IndexFunc(cfg.Updates, func(u update) bool { return u.Ecosystem == eco })
		if i < 0 {
			t.Errorf("dependabot.yml: no update for %s", eco)
			continue
		}
		u := cfg.Updates[i]
		if u.Directory != "/" && !slices.Contains(u.Directories, "/") {
			t.Errorf("dependabot.yml: %s: directory %q, want /", eco, u.Directory)
		}
		if fmt.Sprint(u.Schedule["interval"]) != "weekly" {
			t.Errorf("dependabot.yml: %s: schedule %v, want interval: weekly", eco, u.Schedule)
		}
		if len(u.Groups) == 0 {
			t.Errorf("dependabot.yml: %s: no groups: one pull request per dependency", eco)
		}
	}
}

// TestWorkflowPagesMayReadSettings: the job that runs configure-pages may
// read the repository's Pages settings (pages: read or write): with
// contents: read alone the call fails in a private repository.
func TestWorkflowPagesMayReadSettings(t *testing.T) {
	seen := 0
	for _, wf := range loadWorkflows(t) {
		for _, j := range wf.jobs() {
			if !slices.ContainsFunc(j.Steps, func(s step) bool { return s.action() == "actions/configure-pages" }) {
				continue
			}
			seen++
			if p := wf.effective(j)["pages"]; p != "read" && p != "write" {
				t.Errorf("%s: job %s runs configure-pages with permissions %v: it needs pages: read", wf.file, j.name, wf.effective(j))
			}
		}
	}
	if seen == 0 {
		t.Error("no job runs actions/configure-pages")
	}
}

// TestWorkflowCIRunsTheOneList: ci.yml runs .ci/run, the one list of
// checks (interoperability and the browser check included), as the check
// named ci, and keeps no second list of its own.
func TestWorkflowCIRunsTheOneList(t *testing.T) {
	wf := loadWorkflow(t, "ci.yml")
	callsRun := regexp.MustCompile(`(?m)^\s*(bash\s+)?(\./)?\.ci/run(\s|$)`)
	runs := false
	for _, j := range wf.jobs() {
		for _, s := range j.Steps {
			if callsRun.MatchString(s.Run) {
				runs = true
				if nameOf(j) != "ci" {
					t.Errorf("ci.yml: job %s runs .ci/run under the name %q: the status check docs/setup.md tells a copy to require is ci", j.name, nameOf(j))
				}
				continue
			}
			if regexp.MustCompile(`\bgo\s+(test|vet)\b|actionlint`).MatchString(s.Run) {
				t.Errorf("ci.yml: job %s: %s runs checks of its own; they belong in .ci/run", j.name, s)
			}
		}
	}
	if !runs {
		t.Error("ci.yml runs no .ci/run: CI and .ci/run would hold two lists of checks")
	}
	list, err := os.ReadFile(filepath.Join(root(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".ci/interop.sh", ".ci/browser.sh", "go test -race ./...", "actionlint", "staticcheck"} {
		if !strings.Contains(string(list), want) {
			t.Errorf(".ci/run does not run %s", want)
		}
	}
}

// nameOf is the job's name as a status check shows it: its name, else its id.
func nameOf(j *job) string {
	if j.Name != "" {
		return j.Name
	}
	return j.name
}

// TestWorkflowActionsPinned: every action a workflow uses is pinned to a
// full commit SHA (a tag can be moved to other code).
func TestWorkflowActionsPinned(t *testing.T) {
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[^@]+)?@[0-9a-f]{40}$`)
	for _, wf := range loadWorkflows(t) {
		for _, j := range wf.jobs() {
			uses := []string{j.Uses}
			for _, s := range j.Steps {
				uses = append(uses, s.Uses)
			}
			for _, u := range uses {
				switch {
				case u == "", strings.HasPrefix(u, "./"):
				case strings.HasPrefix(u, "docker://"):
					if !strings.Contains(u, "@sha256:") {
						t.Errorf("%s: job %s uses %s, not pinned to a digest", wf.file, j.name, u)
					}
				case !pinned.MatchString(u):
					t.Errorf("%s: job %s uses %s, not pinned to a 40-hex commit SHA", wf.file, j.name, u)
				}
			}
		}
	}
}

// TestReportsDriftFailsCI: the committed reports/ cannot be edited by
// hand unseen, and a contributor is never asked to render them.
// validate.yml runs on every pull request that touches manifests/ or
// reports/ and holds each file the pull request changes under reports/ to
// what report writes (report --check --changed-since the base), and
// .ci/run (which ci.yml runs) checks the pages against the manifests they
// were rendered for on every push. pages.yml renders the site from main's
// manifests whenever they change, so it never waits for the bot.
func TestReportsDriftFailsCI(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), ".github", "workflows", "validate.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var on struct {
		On struct {
			PullRequest struct {
				Paths []string `yaml:"paths"`
			} `yaml:"pull_request"`
			Push struct {
				Paths []string `yaml:"paths"`
			} `yaml:"push"`
		} `yaml:"on"`
	}
	if err := yaml.Unmarshal(data, &on); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"manifests/**", "reports/**"} {
		if !slices.Contains(on.On.PullRequest.Paths, want) {
			t.Errorf("validate.yml does not run on pull requests that touch %s (paths: %q)", want, on.On.PullRequest.Paths)
		}
	}
	runs := func(wf, what string) bool {
		for _, j := range loadWorkflow(t, wf).jobs() {
			for _, s := range j.Steps {
				for _, l := range s.runLines() {
					if strings.Contains(l, what) {
						return true
					}
				}
			}
		}
		return false
	}
	if !runs("validate.yml", "taxkernelbot report --check --changed-since") {
		t.Error("validate.yml: no step runs `taxkernelbot report --check --changed-since` the base")
	}
	if loadWorkflow(t, "validate.yml").jobs()[0].runsMatching(regexp.MustCompile(`taxkernelbot report --check\s*$`)) {
		t.Error("validate.yml holds a contributor's pull request to pages rendered for its manifests")
	}
	run, err := os.ReadFile(filepath.Join(root(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^go run \./cmd/taxkernelbot report --check$`).Match(run) {
		t.Error(".ci/run does not run `go run ./cmd/taxkernelbot report --check`")
	}
	if !runs("pages.yml", "go run ./cmd/taxkernelbot report ") {
		t.Error("pages.yml does not render the pages (taxkernelbot report) before it publishes them")
	}
	pages, err := os.ReadFile(filepath.Join(root(t), ".github", "workflows", "pages.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(pages, &on); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(on.On.Push.Paths, "manifests/**") {
		t.Errorf("pages.yml does not publish when main's manifests change (paths: %q)", on.On.Push.Paths)
	}
}

// TestWorkflowRefsForRulesRepositories: refs.yml is only called by a rules
// repository (workflow_call), its token may read contents and write issues
// and nothing else, it reads no secret, it checks out the caller with its
// whole history (git blame dates the references) and keeps no credentials,
// and it runs `refs --issue`. What runs with the caller's token is the
// commit the caller pinned: the code is checked out at job.workflow_sha
// (the reusable workflow's own commit; github.workflow_sha is the
// caller's) and built there, and the record checked out at
// inputs.archive-ref is only read: no Go command runs in it.
func TestWorkflowRefsForRulesRepositories(t *testing.T) {
	wf := loadWorkflow(t, "refs.yml")
	data, err := os.ReadFile(filepath.Join(root(t), ".github", "workflows", "refs.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var on struct {
		On map[string]any `yaml:"on"`
	}
	if err := yaml.Unmarshal(data, &on); err != nil {
		t.Fatal(err)
	}
	if _, ok := on.On["workflow_call"]; !ok || len(on.On) != 1 {
		t.Errorf("refs.yml runs on %v, want workflow_call alone", on.On)
	}
	if strings.Contains(string(data), "secrets.") {
		t.Error("refs.yml reads a secret; the caller's github.token is all it needs")
	}
	for _, j := range wf.jobs() {
		if p := wf.effective(j); len(p) != 2 || p["contents"] != "read" || p["issues"] != "write" {
			t.Errorf("job %s may %v, want contents: read and issues: write alone", j.name, p)
		}
		ran, history, built := false, false, false
		code, record := "", ""
		for _, s := range j.Steps {
			if s.action() == "actions/checkout" {
				if s.with("persist-credentials") != "false" {
					t.Errorf("job %s: %s keeps the token in the checkout", j.name, s)
				}
				ref := strings.Join(strings.Fields(s.with("ref")), "")
				switch {
				case s.with("repository") == "" && s.with("fetch-depth") == "0":
					history = true
				case ref == "${{job.workflow_sha}}" && strings.Join(strings.Fields(s.with("repository")), "") == "${{job.workflow_repository}}":
					code = s.with("path")
				case ref == "${{inputs.archive-ref}}" && s.with("repository") == "taxkernel/taxkernelbot":
					record = s.with("path")
				case strings.Contains(ref, "github.workflow_") || strings.Contains(ref, "github.sha") || strings.Contains(ref, "github.ref"):
					t.Errorf("job %s: %s checks out %q: in a called workflow the github context is the caller's", j.name, s, ref)
				}
			}
			if s.Run == "" {
				continue
			}
			dir := cmpOr(s.WorkingDirectory, ".")
			if goBuild.MatchString(s.Run) {
				if code == "" || dir != code {
					t.Errorf("job %s: %s runs Go in %q, not in the checkout of the workflow's own commit (%q)", j.name, s, dir, code)
				}
				built = true
			}
			for _, l := range s.runLines() {
				if strings.Contains(l, " refs ") && strings.Contains(l, "--issue") {
					ran = true
					if !strings.Contains(l, "$RUNNER_TEMP/taxkernelbot") || dir != record || record == "" {
						t.Errorf("job %s: %s runs %q in %q: want the command built from the pinned commit, run in the record's checkout (%q)", j.name, s, l, dir, record)
					}
				}
			}
		}
		if !history || !ran || !built || code == "" || record == "" {
			t.Errorf("job %s: checks out the caller with its history %v, the code at job.workflow_sha %q, the record at inputs.archive-ref %q, builds it %v, runs refs --issue %v; want all",
				j.name, history, code, record, built, ran)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
