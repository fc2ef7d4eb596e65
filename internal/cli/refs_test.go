package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

// refs reads a rules repository's parameters and matches each reference to
// the held bytes: the sha256 and dates come from the index a run wrote.
func TestRefsMatchesAHeldSource(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nAllow: /\n"),
		"/act":        text("the whole act"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-act", a.url("/act"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	repo := t.TempDir()
	params := filepath.Join(repo, "pkg", "parameters", "gov")
	must(t, os.MkdirAll(params, 0o755))
	must(t, os.WriteFile(filepath.Join(params, "rate.yaml"), []byte(`description: A rate.
values:
  2019-01-01:
    value: 0.2
    metadata:
      reference:
        title: The act, as read in 2019
        href: `+a.url("/act#s1")+`
  2099-01-01:
    value: 0.3
    reference:
      - title: The act, read far ahead
        href: `+a.url("/act")+`
metadata:
  reference:
    - title: A guide not held
      href: https://www.example.org/guide
`), 0o644))
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}
	code, stdout, stderr := runMain(t, nil, append([]string{"refs", repo, "--json"}, flags...)...)
	if code != ExitOK {
		t.Fatalf("refs --json: exit %d\n%s", code, stderr)
	}
	var rep refsReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	held := w.report()["t-act"].SHA256
	if rep.References != 3 || rep.Files != 1 || len(rep.Rows) != 3 || rep.TopHeld != 1 {
		t.Fatalf("summary %+v", rep)
	}
	r0, r1, r2 := rep.Rows[0], rep.Rows[1], rep.Rows[2]
	if r0.Match.Kind != "normalised" || r0.Match.Source != "t-act" || r0.Held == nil || r0.Held.SHA256 != held ||
		r0.Held.RefDate != "2019-01-01" || r0.Held.RefDateFrom != "date-key" || r0.Held.OnRefDate != "" || r0.Held.ChangedAfter != "unknown" || r0.Held.FirstRetrieved == "" {
		t.Errorf("a reference dated before the first bytes held: %+v %+v", r0.Match, r0.Held)
	}
	if r1.Match.Kind != "exact" || r1.Held == nil || r1.Held.OnRefDate != held || r1.Held.ChangedAfter != "no" || r1.Parameter != "gov.rate" || r1.Level != "value" {
		t.Errorf("a reference dated after: %+v %+v", r1, r1.Held)
	}
	if r2.Match.Kind != "none" || r2.Held != nil || r2.Line != 17 {
		t.Errorf("an unmatched reference: %+v", r2)
	}

	code, stdout, _ = runMain(t, nil, append([]string{"refs", repo}, flags...)...)
	for _, want := range []string{"3 references in 1 files, 2 distinct URLs", "exact", "the 2 documents cited by most files: 1 held"} {
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("refs: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
	code, stdout, _ = runMain(t, nil, append([]string{"refs", repo, "--suggest", "--jurisdiction", "test"}, flags...)...)
	if code != ExitOK || !strings.Contains(stdout, "  - id: test-a-guide-not-held\n    url: https://www.example.org/guide\n    kind: rates-page\n") || strings.Contains(stdout, a.url("/act")) {
		t.Errorf("refs --suggest: exit %d, want the guide alone as an entry:\n%s", code, stdout)
	}
}

func TestRefsRefusesWhatIsNotACheckout(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-act", "http://127.0.0.1:1/act", ""})
	for _, args := range [][]string{
		{"refs", "--manifests", w.Manifests},
		{"refs", filepath.Join(t.TempDir(), "missing"), "--manifests", w.Manifests},
		{"refs", t.TempDir(), "--top", "0", "--manifests", w.Manifests},
	} {
		if code, stdout, stderr := runMain(t, nil, args...); code != ExitUsage || stdout != "" || stderr == "" {
			t.Errorf("%v: exit %d, want 2 with a message\nstdout %q\nstderr %q", args, code, stdout, stderr)
		}
	}
}

// refs --issue keeps one issue in the rules repository (the GitHub fake
// held to GitHub's REST description): opened when a cited document changed
// after the reference's date, left alone when nothing changed, closed once
// the reference is brought up to date.
func TestRefsIssue(t *testing.T) {
	bodies := []string{"<p>Basic rate 20%</p>", "<p>Basic rate 21%</p>"}
	var day int
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates":      func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, bodies[day]) },
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	clk := clock.NewFake(time.Date(2026, 10, 1, 10, 0, 0, 0, time.UTC))
	w.clock = clk
	for day = range bodies {
		if code := w.run(t.Context()); code != ExitOK {
			t.Fatalf("run on day %d: exit %d\n%s", day, code, w.out.String())
		}
		clk.Advance(24 * time.Hour)
	}
	repo := t.TempDir()
	write := func(date string) {
		must(t, os.WriteFile(filepath.Join(repo, "rate.yaml"), []byte(`description: The basic rate.
values:
  `+date+`:
    value: 0.2
    metadata:
      reference:
        title: Rates @maintainer <img src=x>
        href: `+a.url("/rates")+`
`), 0o644))
	}
	write("2026-10-01")
	gh := githubtest.New(t, "rules", "engine", "tok")
	env := map[string]string{"GITHUB_REPOSITORY": "rules/engine", "GITHUB_API_URL": gh.URL, "GITHUB_TOKEN": "tok"}
	args := []string{"refs", repo, "--issue", "--archive", "taxkernel/taxkernelbot@abc123", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}

	code, _, stderr := runMain(t, env, args...)
	is := gh.Issues()
	if code != ExitOK || len(is) != 1 || is[0].State != "open" || !strings.Contains(stderr, "opened issue") {
		t.Fatalf("a document changed after its reference: exit %d, issues %+v\n%s", code, is, stderr)
	}
	for _, want := range []string{"### `t-rates` changed on 2026-10-02", "| `rate` | `rate.yaml:8` | 2026-10-01 (date-key) |", "taxkernel/taxkernelbot\\@&#8203;abc123", "Rates \\@maintainer \\<img src=x\\>",
		"- After: `taxkernelbot cite t-rates --at 2026-10-02`", "- Before: `taxkernelbot cite t-rates --at 2026-10-01`"} {
		if !strings.Contains(is[0].Body, want) {
			t.Errorf("the issue lacks %q:\n%s", want, is[0].Body)
		}
	}
	writes := len(gh.Writes())
	if code, _, stderr := runMain(t, env, args...); code != ExitOK || len(gh.Writes()) != writes || !strings.Contains(stderr, "nothing sent") {
		t.Errorf("nothing changed: exit %d, writes %v\n%s", code, gh.Writes()[writes:], stderr)
	}
	write("2026-10-02") // the reference brought up to date
	if code, _, stderr := runMain(t, env, args...); code != ExitOK || gh.Issues()[0].State != "closed" {
		t.Errorf("the reference brought up to date: exit %d, issue %+v\n%s", code, gh.Issues()[0], stderr)
	}
	// Without the Actions environment, --issue says what is missing.
	if code, stdout, stderr := runMain(t, nil, args...); code != ExitUsage || stdout != "" || !strings.Contains(stderr, "GITHUB_REPOSITORY") {
		t.Errorf("--issue outside Actions: exit %d\n%s%s", code, stdout, stderr)
	}
}

// A reference written before the archive first held its document is told
// of the first change the archive saw: the document changed after the
// reference, though what it cited may differ from both sides. The issue
// links the change document and shows its figures; the step summary says
// what the archive watches and what it cannot.
func TestRefsIssueReportsAChangeAfterAnOlderReference(t *testing.T) {
	bodies := []string{"<table><tr><td>Basic rate</td><td>20%</td></tr></table>", "<table><tr><td>Basic rate</td><td>21%</td></tr></table>"}
	var day int
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates":      func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, bodies[day]) },
		"/guide":      text("a guide that never changes"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""}, src{"t-guide", a.url("/guide"), ""})
	clk := clock.NewFake(time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC))
	w.clock = clk
	for day = range bodies {
		if code := w.run(t.Context()); code != ExitOK {
			t.Fatalf("run on day %d: exit %d\n%s", day, code, w.out.String())
		}
		clk.Advance(24 * time.Hour)
	}
	repo := t.TempDir()
	must(t, os.WriteFile(filepath.Join(repo, "rate.yaml"), []byte(`description: The basic rate.
values:
  2026-11-01:
    value: 0.2
    metadata:
      reference:
        - title: Rates
          href: `+a.url("/rates")+`
        - title: Guide
          href: `+a.url("/guide")+`
        - title: Not held
          href: https://www.example.org/other
`), 0o644))
	gh := githubtest.New(t, "rules", "engine", "tok")
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_REPOSITORY": "rules/engine", "GITHUB_API_URL": gh.URL, "GITHUB_TOKEN": "tok", "GITHUB_STEP_SUMMARY": summary}
	args := []string{"refs", repo, "--issue", "--no-git", "--archive", "taxkernel/taxkernelbot@abc123", "--archive-url", "https://github.example/taxkernel/taxkernelbot/blob/abc123/",
		"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "--reports", w.Reports}

	code, _, stderr := runMain(t, env, args...)
	is := gh.Issues()
	if code != ExitOK || len(is) != 1 || is[0].State != "open" {
		t.Fatalf("a change seen after an older reference: exit %d, issues %+v\n%s", code, is, stderr)
	}
	for _, want := range []string{
		"### `t-rates` changed on 2026-12-08",
		"| `rate` | `rate.yaml:8` | 2026-11-01 (date-key) | none held yet |",
		"- 1 reference(s) below are older than the archive's first copy (2026-12-07): what they cited may differ from both sides",
		"(https://github.example/taxkernel/taxkernelbot/blob/abc123/reports/changes/t-rates/2026-12-08_",
		"  - Basic rate: `20%` → `21%`\n",
		"- Before: `taxkernelbot cite t-rates --at 2026-12-07`",
	} {
		if !strings.Contains(is[0].Body, want) {
			t.Errorf("the issue lacks %q:\n%s", want, is[0].Body)
		}
	}
	if strings.Contains(is[0].Body, "t-guide") {
		t.Errorf("the guide, which never changed, is in the issue:\n%s", is[0].Body)
	}
	got, err := os.ReadFile(summary)
	must(t, err)
	for _, want := range []string{"watches 2 of this repository's 3 reference(s)", "- 1 cite a document that changed after their date", "- 1 are older than the archive's first copy", "| 2026-12-07 | 2 | 2 |", "It cannot watch 1: 1 cite a document it does not hold"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the step summary lacks %q:\n%s", want, got)
		}
	}

	// A change document the record no longer keeps (older than its
	// source's feed) is not linked where it is not: the issue names the
	// dataset release that ships it.
	must(t, os.RemoveAll(filepath.Join(w.Reports, "changes")))
	if code, _, stderr := runMain(t, env, args...); code != ExitOK {
		t.Fatalf("refs --issue without the change document: exit %d\n%s", code, stderr)
	}
	body := gh.Issues()[0].Body
	if strings.Contains(body, "/reports/changes/") || !strings.Contains(body, "- Change document: `reports/changes/t-rates/2026-12-08_") ||
		!strings.Contains(body, "in the archive, and in the dataset release `dataset-2026-12`") {
		t.Errorf("the issue, the change document no longer in the record's reports:\n%s", body)
	}

	code, stdout, _ := runMain(t, nil, "refs", repo, "--json", "--no-git", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State)
	var rep refsReport
	if err := json.Unmarshal([]byte(stdout), &rep); code != ExitOK || err != nil {
		t.Fatalf("refs --json: exit %d, %v\n%s", code, err, stdout)
	}
	if h := rep.Rows[0].Held; h == nil || h.ChangedAfter != "yes" || h.ChangedOn != "2026-12-08" || !h.BeforeFirst || h.FirstRetrieved != "2026-12-07" ||
		h.Note != "changed on 2026-12-08; the archive holds this document since 2026-12-07, after your reference of 2026-11-01, so what you cited may differ from both" {
		t.Errorf("refs --json, the rates page: %+v", rep.Rows[0].Held)
	}
	if h := rep.Rows[1].Held; h == nil || h.ChangedAfter != "unknown" || !h.BeforeFirst {
		t.Errorf("refs --json, the guide that never changed: %+v", rep.Rows[1].Held)
	}
	code, stdout, _ = runMain(t, nil, "refs", repo, "--no-git", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State)
	for _, want := range []string{"the archive watches 2 references", "held since 2026-12-07: 2 documents, 2 references", "t-rates changed on 2026-12-08; the archive holds this document since 2026-12-07, after your reference of 2026-11-01"} {
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("refs: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
}
