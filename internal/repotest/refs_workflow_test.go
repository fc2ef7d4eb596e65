package repotest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestWorkflowRefsRunsAsCalled runs refs.yml the way a rules repository's
// call runs it: the calling example of its header, as written, gives the
// inputs; each `uses:` step is done here as its action does it (a git
// clone from a repository on disk at the ref the step names, Go from this
// machine), each `run:` step runs in bash in order, with the Actions
// environment; the GitHub API is the fake held to GitHub's REST
// description. The archive is a repository on disk whose commit the
// workflow is pinned to holds this checkout's code, and whose main, one
// commit later, holds a record with two versions of a rates page (first
// held on 2026-12-07, changed on 2026-12-08) and a command that must not
// run. The rules repository cites the page on a line written on
// 2026-11-01, before the first copy: the first run opens the issue, the
// second sends nothing, and once the reference is re-dated the third
// closes it.
func TestWorkflowRefsRunsAsCalled(t *testing.T) {
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: the workflow's steps need it", tool)
		}
	}
	wf := loadRefsWorkflow(t)
	caller := callingExample(t, wf.header)
	inputs := wf.inputs(t, caller)
	// The docs show the same call, so that it too runs as written.
	docs, err := os.ReadFile(filepath.Join(root(t), "docs", "commands.md"))
	must(t, err)
	if !strings.Contains(string(docs), "```yaml\n"+caller+"```\n") {
		t.Errorf("docs/commands.md does not show refs.yml's calling example as its header writes it:\n%s", caller)
	}

	work := t.TempDir()
	gitEnv := []string{"HOME=" + work, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.org",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.org"}
	g := gitRunner{t: t, env: gitEnv}

	// The archive: the pinned commit holds this checkout's code; main
	// holds the record and, in its place, a command that fails.
	archive := filepath.Join(work, "taxkernelbot.git")
	copySource(t, root(t), archive)
	g.init(archive)
	g.commit(archive, "2026-12-01T10:00:00Z", "the code a caller pins")
	pinned := g.out(archive, "rev-parse", "HEAD")
	writeRecord(t, archive)
	must(t, os.WriteFile(filepath.Join(archive, "cmd", "taxkernelbot", "main.go"),
		[]byte("package main\n\nimport \"os\"\n\nfunc main() {\n\tos.Stderr.WriteString(\"main's code ran, not the pinned commit's\\n\")\n\tos.Exit(9)\n}\n"), 0o644))
	g.commit(archive, "2026-12-08T10:00:00Z", "the record of 2026-12-08, and code that must not run")
	recordCommit := g.out(archive, "rev-parse", "HEAD")

	// The rules repository: the reference written on 2026-11-01.
	rules := filepath.Join(work, "engine.git")
	g.init(rules)
	param := filepath.Join("policyengine_x", "parameters", "gov", "hmrc", "basic_rate.yaml")
	writeParam := func(href string) {
		must(t, os.MkdirAll(filepath.Join(rules, filepath.Dir(param)), 0o755))
		must(t, os.WriteFile(filepath.Join(rules, param), []byte(`description: The basic rate of income tax.
values:
  2026-04-06: 0.2
metadata:
  reference:
    - title: Income Tax rates and Personal Allowances
      href: `+href+`
    - title: A page the archive does not hold
      href: https://www.example.org/not-held
`), 0o644))
	}
	writeParam("https://www.gov.uk/income-tax-rates")
	// What the calling example excludes is not read.
	states := filepath.Join(rules, "policyengine_us", "parameters", "gov", "states")
	must(t, os.MkdirAll(states, 0o755))
	must(t, os.WriteFile(filepath.Join(states, "rate.yaml"), []byte("description: Excluded.\nvalues:\n  2020-01-01: 1\nmetadata:\n  reference:\n    - https://www.gov.uk/income-tax-rates\n"), 0o644))
	g.commit(rules, "2026-11-01T09:00:00Z", "the basic rate, as cited on 2026-11-01")

	gh := githubtest.New(t, "rules", "engine", "tok")
	ctx := map[string]string{
		"github.token":            "tok",
		"job.workflow_sha":        pinned,
		"job.workflow_repository": "taxkernel/taxkernelbot",
	}
	for k, v := range inputs {
		ctx["inputs."+k] = v
	}
	repos := map[string]string{"": rules, "taxkernel/taxkernelbot": archive}
	run := func(name string) (summary string) {
		t.Helper()
		return wf.run(t, name, ctx, repos, gitEnv, gh.URL)
	}

	summary := run("first")
	is := gh.Issues()
	if len(is) != 1 || is[0].State != "open" {
		t.Fatalf("first run: issues %+v, want one open", is)
	}
	body := is[0].Body
	for _, want := range []string{
		"taxkernel/taxkernelbot\\@&#8203;" + recordCommit[:12],
		"### `uk-income-tax-rates` changed on 2026-12-08",
		"(https://github.com/taxkernel/taxkernelbot/blob/" + recordCommit + "/reports/changes/uk-income-tax-rates/2026-12-08_",
		"  - Basic rate: `20%` → `21%`\n",
		"- Before: `taxkernelbot cite uk-income-tax-rates --at 2026-12-07`",
		"- After: `taxkernelbot cite uk-income-tax-rates --at 2026-12-08`",
		"| `gov.hmrc.basic_rate` | `" + filepath.ToSlash(param) + ":7` | 2026-11-01 (git) | none held yet |",
		"- 1 reference(s) below are older than the archive's first copy (2026-12-07): what they cited may differ from both sides",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("first run: the issue lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "policyengine_us") {
		t.Errorf("first run: the issue lists a reference under the excluded path:\n%s", body)
	}
	for _, want := range []string{"watches 1 of this repository's 2 reference(s)", "| 2026-12-07 | 1 | 1 |", "It cannot watch 1: 1 cite a document it does not hold"} {
		if !strings.Contains(summary, want) {
			t.Errorf("first run: the job summary lacks %q:\n%s", want, summary)
		}
	}

	writes := len(gh.Writes())
	run("second")
	if got := gh.Writes()[writes:]; len(got) != 0 {
		t.Errorf("second run, nothing changed: it wrote %v", got)
	}

	// The reference brought up to date, after the change.
	writeParam("https://www.gov.uk/income-tax-rates#current-rates")
	g.commit(rules, "2026-12-09T09:00:00Z", "the basic rate, checked against the page of 2026-12-08")
	run("third")
	if is := gh.Issues(); len(is) != 1 || is[0].State != "closed" {
		t.Errorf("third run, the reference re-dated: issues %+v, want the one closed", is)
	}
}

// refsWorkflow is refs.yml as a runner reads it.
type refsWorkflow struct {
	header string // the comment above `name:`
	On     struct {
		Call struct {
			Inputs map[string]struct {
				Default any `yaml:"default"`
			} `yaml:"inputs"`
		} `yaml:"workflow_call"`
	} `yaml:"on"`
	Jobs map[string]struct {
		Steps []struct {
			Name             string            `yaml:"name"`
			If               string            `yaml:"if"`
			Uses             string            `yaml:"uses"`
			With             map[string]string `yaml:"with"`
			Env              map[string]string `yaml:"env"`
			Run              string            `yaml:"run"`
			Shell            string            `yaml:"shell"`
			WorkingDirectory string            `yaml:"working-directory"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func loadRefsWorkflow(t *testing.T) *refsWorkflow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), ".github", "workflows", "refs.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf refsWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("refs.yml: %v", err)
	}
	wf.header = string(data[:strings.Index(string(data), "\nname:")])
	if len(wf.Jobs) != 1 {
		t.Fatalf("refs.yml has %d jobs; this test runs one", len(wf.Jobs))
	}
	return &wf
}

// callingExample is the workflow a rules repository adds, as the header
// shows it: the comment lines after "In the rules repository", indented.
func callingExample(t *testing.T, header string) string {
	t.Helper()
	_, after, ok := strings.Cut(header, "In the rules repository")
	if !ok {
		t.Fatal("refs.yml's header shows no calling example (\"In the rules repository ...\")")
	}
	var b strings.Builder
	for _, l := range strings.Split(after, "\n")[1:] {
		if body, ok := strings.CutPrefix(l, "#   "); ok {
			b.WriteString(body + "\n")
		} else if b.Len() > 0 || !strings.HasPrefix(l, "#") {
			break
		}
	}
	return b.String()
}

// inputs checks that the calling example calls refs.yml with what it
// needs, and returns the inputs it gives, with refs.yml's defaults for the
// rest.
func (wf *refsWorkflow) inputs(t *testing.T, example string) map[string]string {
	t.Helper()
	var call struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(example), &call); err != nil || len(call.Jobs) != 1 {
		t.Fatalf("the calling example in refs.yml's header does not read as a workflow with one job (%v):\n%s", err, example)
	}
	if call.Permissions["contents"] != "read" || call.Permissions["issues"] != "write" || len(call.Permissions) != 2 {
		t.Errorf("the calling example grants %v; refs.yml needs contents: read and issues: write, no more", call.Permissions)
	}
	out := map[string]string{}
	for name, in := range wf.On.Call.Inputs {
		out[name] = fmt.Sprint(in.Default)
	}
	for _, j := range call.Jobs {
		if !regexp.MustCompile(`^taxkernel/taxkernelbot/\.github/workflows/refs\.yml@<commit>$`).MatchString(j.Uses) {
			t.Errorf("the calling example uses %q, want taxkernel/taxkernelbot/.github/workflows/refs.yml@<commit>: pinned to a commit", j.Uses)
		}
		for k, v := range j.With {
			if _, ok := out[k]; !ok {
				t.Errorf("the calling example gives the input %q, which refs.yml does not declare", k)
			}
			out[k] = v
		}
	}
	return out
}

// expression is a ${{ }} expression of a workflow, its inside captured:
// what the tests that run workflows substitute.
var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// run runs the job's steps in order, as a runner would, and returns what
// they wrote to the job summary.
func (wf *refsWorkflow) run(t *testing.T, name string, ctx, repos map[string]string, gitEnv []string, api string) string {
	t.Helper()
	dir := t.TempDir()
	workspace, temp := filepath.Join(dir, "workspace"), filepath.Join(dir, "temp")
	must(t, os.MkdirAll(workspace, 0o755))
	must(t, os.MkdirAll(temp, 0o755))
	summary := filepath.Join(dir, "summary.md")
	base := append(os.Environ(), goEnv(t)...)
	base = append(base, gitEnv...)
	base = append(base, "GITHUB_WORKSPACE="+workspace, "RUNNER_TEMP="+temp, "GITHUB_STEP_SUMMARY="+summary,
		"GITHUB_REPOSITORY=rules/engine", "GITHUB_API_URL="+api, "GITHUB_SERVER_URL=https://github.com", "GITHUB_ACTIONS=true", "CI=true",
		// Loopback only: the module cache this test was built from.
		"GOPROXY=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local")
	g := gitRunner{t: t, env: gitEnv}
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if s.If != "" {
				t.Fatalf("%s run: step %q has an if (%q), which this test does not evaluate", name, s.Name, s.If)
			}
			action, _, _ := strings.Cut(s.Uses, "@")
			switch {
			case action == "actions/checkout":
				with := map[string]string{}
				for k, v := range s.With {
					with[k] = expand(t, "refs.yml", v, ctx)
				}
				src, ok := repos[with["repository"]]
				if !ok {
					t.Fatalf("%s run: step %q checks out %q, a repository this test does not hold", name, s.Name, with["repository"])
				}
				if with["path"] == "" || with["persist-credentials"] != "false" {
					t.Fatalf("%s run: step %q: want a path and persist-credentials: false, got %v", name, s.Name, with)
				}
				dest := filepath.Join(workspace, with["path"])
				args := []string{"clone", "--quiet", "--no-checkout"}
				if with["fetch-depth"] != "0" && !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(with["ref"]) {
					args = append(args, "--depth=1") // checkout's default, one commit
				}
				if ref := with["ref"]; ref != "" && !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(ref) {
					args = append(args, "--branch", ref)
				}
				g.run(dir, append(args, "file://"+src, dest)...)
				target := "HEAD"
				if ref := with["ref"]; regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(ref) {
					target = ref
				}
				g.run(dest, "checkout", "--quiet", "--detach", target)
			case action == "actions/setup-go":
				if v := s.With["go-version"]; v != "1.26" {
					t.Fatalf("%s run: step %q sets up Go %q; this test runs the Go it was built with", name, s.Name, v)
				}
			case s.Uses != "":
				t.Fatalf("%s run: step %q uses %s, which this test does not perform", name, s.Name, s.Uses)
			case s.Run != "":
				if s.Shell != "" && s.Shell != "bash" {
					t.Fatalf("%s run: step %q runs in %q; this test runs bash", name, s.Name, s.Shell)
				}
				// GitHub's bash: --noprofile --norc -eo pipefail {0}.
				script := filepath.Join(temp, "step.sh")
				must(t, os.WriteFile(script, []byte(expand(t, "refs.yml", s.Run, ctx)), 0o644))
				cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
				cmd.Dir = filepath.Join(workspace, s.WorkingDirectory)
				cmd.Env = append([]string{}, base...)
				for k, v := range s.Env {
					cmd.Env = append(cmd.Env, k+"="+expand(t, "refs.yml", v, ctx))
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s run: step %q: %v\n%s", name, s.Name, err, out)
				}
				t.Logf("%s run: step %q:\n%s", name, s.Name, out)
			default:
				t.Fatalf("%s run: step %q neither uses an action nor runs anything", name, s.Name)
			}
		}
	}
	got, err := os.ReadFile(summary)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(got)
}

// goEnv pins where Go keeps its modules and builds to this machine's,
// which HOME (a temporary directory here) would otherwise move.
func goEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 3 {
		t.Fatalf("go env printed %q", out)
	}
	return []string{"GOMODCACHE=" + f[0], "GOCACHE=" + f[1], "GOPATH=" + f[2]}
}

// copySource copies what building cmd/taxkernelbot needs from the
// checkout at from (go.mod, go.sum, cmd/ and internal/ without tests and
// test data) to dir.
func copySource(t *testing.T, from, dir string) {
	t.Helper()
	for _, f := range []string{"go.mod", "go.sum"} {
		copyFile(t, filepath.Join(from, f), filepath.Join(dir, f))
	}
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(from, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if d.IsDir() || strings.HasSuffix(p, "_test.go") || !d.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(from, p)
			copyFile(t, p, filepath.Join(dir, rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(filepath.Dir(to), 0o755))
	must(t, os.WriteFile(to, data, 0o644))
}

// writeRecord writes the archive's record: a manifest listing the rates
// page, an index holding two versions of it, and the change document of
// the change, with its figure.
func writeRecord(t *testing.T, dir string) {
	t.Helper()
	policy, err := os.ReadFile(filepath.Join(root(t), "manifests", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(filepath.Join(dir, "manifests"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "manifests", "policy.yaml"), policy, 0o644))
	const id, url = "uk-income-tax-rates", "https://www.gov.uk/income-tax-rates"
	must(t, os.WriteFile(filepath.Join(dir, "manifests", "uk.yaml"), []byte(`jurisdiction: uk
name: United Kingdom
timezone: Europe/London
sources:
  - id: `+id+`
    url: `+url+`
    kind: rates-page
    title: Income Tax rates and Personal Allowances
`), 0o644))
	sum := func(s string) store.Sum { h := sha256.Sum256([]byte(s)); return store.Sum(hex.EncodeToString(h[:])) }
	old, cur := sum("Basic rate 20%"), sum("Basic rate 21%")
	ix := store.NewIndex()
	ix.Add(id, store.Entry{SHA256: old, Size: 14, ContentType: "text/html", FinalURL: url, FirstSeen: "2026-12-07"}, "")
	ix.Add(id, store.Entry{SHA256: cur, Size: 14, ContentType: "text/html", FinalURL: url, FirstSeen: "2026-12-08"}, old)
	must(t, os.MkdirAll(filepath.Join(dir, "snapshots"), 0o755))
	must(t, ix.Save(filepath.Join(dir, "snapshots", "index.json")))
	side := func(s store.Sum, date string) map[string]any {
		return map[string]any{"sha256": s, "size": 14, "content_type": "text/html", "first_seen": date}
	}
	doc, err := json.MarshalIndent(map[string]any{
		"version": 1, "source": id, "url": url, "date": "2026-12-08", "returned": false,
		"from": side(old, "2026-12-07"), "to": side(cur, "2026-12-08"),
		"text": "changed", "text_version": "test", "removed": 1, "added": 1, "hunks": []any{},
		"figures": []any{map[string]any{"row": "Basic rate",
			"old": map[string]any{"line": 1, "text": "20%", "value": "20", "unit": "%"},
			"new": map[string]any{"line": 1, "text": "21%", "value": "21", "unit": "%"}}},
	}, "", "  ")
	must(t, err)
	path := filepath.Join(dir, "reports", "changes", id, "2026-12-08_"+string(old)[:12]+".."+string(cur)[:12]+".json")
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, doc, 0o644))
}

// gitRunner runs git with a fixed identity and no user configuration.
type gitRunner struct {
	t   *testing.T
	env []string
}

func (g gitRunner) cmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), g.env...)
	return cmd
}

func (g gitRunner) run(dir string, args ...string) {
	g.t.Helper()
	if out, err := g.cmd(dir, args...).CombinedOutput(); err != nil {
		g.t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
}

func (g gitRunner) out(dir string, args ...string) string {
	g.t.Helper()
	out, err := g.cmd(dir, args...).Output()
	if err != nil {
		g.t.Fatalf("git %v in %s: %v", args, dir, err)
	}
	return strings.TrimSpace(string(out))
}

func (g gitRunner) init(dir string) {
	g.t.Helper()
	must(g.t, os.MkdirAll(dir, 0o755))
	g.run(dir, "init", "--quiet", "--initial-branch=main")
}

// commit commits everything in dir as written at date (RFC 3339), the
// author's and the committer's.
func (g gitRunner) commit(dir, date, msg string) {
	g.t.Helper()
	g.run(dir, "add", "--all")
	cmd := g.cmd(dir, "commit", "--quiet", "--no-gpg-sign", "-m", msg)
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if out, err := cmd.CombinedOutput(); err != nil {
		g.t.Fatalf("git commit in %s: %v\n%s", dir, err, out)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
