package github

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

var (
	issuesPath  = "/repos/octo/coverage/issues"
	issuesQuery = url.Values{"state": {"open"}, "labels": {FailureLabel}}
	issueNow    = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
)

func failingRates(days int) FailingSource {
	return FailingSource{
		ID: "uk-rates", Jurisdiction: "uk", Title: "Income Tax rates", URL: "https://www.gov.uk/income-tax-rates",
		Status: "failing", Detail: "HTTP 503 (Retry-After: 120)", Since: issueNow.Add(-time.Duration(days) * 24 * time.Hour),
		Advice: "Nothing to do yet if the site is down for everyone; if it lasts, check the URL in a browser and update the manifest.",
		Checks: []string{
			`2026-11-29T09:00:01Z result status=503 url=https://www.gov.uk/income-tax-rates`,
			`2026-11-30T09:00:02Z result status=503 url=https://www.gov.uk/income-tax-rates`,
		},
	}
}

var issueObjects = githubtest.Objects{API: "https://api.github.example", Web: "https://github.example", Owner: "octo", Repo: "coverage"}

func issueJSON(number int, body string) map[string]any {
	return issueObjects.Issue(githubtest.Issue{Number: number, State: "open", Title: "t", Body: body})
}

func opts() IssueOptions { return IssueOptions{After: 72 * time.Hour, Now: issueNow} }

func TestFailureIssueOpened(t *testing.T) {
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{})
	f.on("POST", issuesPath, nil, 201, issueJSON(7, ""))
	c := newTestClient(t, f, "")
	done, err := c.SyncFailureIssues(context.Background(), []FailingSource{failingRates(4), {ID: "de-estg", Status: "failing", Since: issueNow.Add(-48 * time.Hour)}}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Opened) != 1 || done.Opened[0] != 7 || len(done.Commented)+len(done.Closed) != 0 {
		t.Errorf("done = %+v, want #7 opened (de-estg has failed 2 days only)", done)
	}
	reqs := f.requests()
	body := reqs[1].Body.(map[string]any)
	text := body["body"].(string)
	for _, want := range []string{
		`<!-- taxkernelbot:failure source="uk-rates" fingerprint="` + failingRates(4).fingerprint() + `" -->`,
		"**`uk-rates` (Income Tax rates)** in `uk` has been **failing** since 2026-11-26 (4 day(s) as of 2026-11-30).",
		"- Detail: `HTTP 503 (Retry-After: 120)`",
		"### Last checks (ledger)\n\n```\n2026-11-29T09:00:01Z result status=503",
		"### What to do\n\nNothing to do yet",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("issue body lacks %q:\n%s", want, text)
		}
	}
	if got := body["title"]; got != "TaxKernelBot: uk-rates is failing since 2026-11-26" {
		t.Errorf("title = %v", got)
	}
	if labels := body["labels"].([]any); len(labels) != 1 || labels[0] != FailureLabel {
		t.Errorf("labels = %v", labels)
	}
	checkAuth(t, f)
}

// TestFailureIssueQuiet: the same failure on another day, and a source not
// failing long enough, cost the one list call and nothing else.
func TestFailureIssueQuiet(t *testing.T) {
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{
		issueJSON(7, issueBody(failingRates(4), issueNow.Add(-24*time.Hour))),
		issueJSON(8, "labelled by a person, no marker"),
		issueObjects.PullAsIssue(githubtest.PR{Number: 9, State: "open", Title: "t", Body: markerLine(FailingSource{ID: "x"})}),
	})
	c := newTestClient(t, f, "")
	quiet := failingRates(5)
	quiet.Checks = append(quiet.Checks, "2026-12-01T09:00:00Z result status=503") // new ledger lines alone are no change
	done, err := c.SyncFailureIssues(context.Background(), []FailingSource{quiet, {ID: "de-estg", Status: "failing", Since: issueNow.Add(-time.Hour)}}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Opened)+len(done.Commented)+len(done.Closed) != 0 || len(f.requests()) != 1 {
		t.Errorf("done = %+v after %d calls; want nothing after one list", done, len(f.requests()))
	}
}

func TestFailureIssueChanged(t *testing.T) {
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{issueJSON(7, issueBody(failingRates(4), issueNow))})
	f.on("POST", issuesPath+"/7/comments", nil, 201, issueObjects.Comment(7, 1, "c"))
	f.on("PATCH", issuesPath+"/7", nil, 200, issueJSON(7, ""))
	c := newTestClient(t, f, "")
	now := failingRates(4)
	now.Status, now.Detail = "unreachable", "connection refused"
	now.Since = issueNow.Add(-time.Hour) // a new status restarts "since", the issue stays open
	done, err := c.SyncFailureIssues(context.Background(), []FailingSource{now}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Commented) != 1 || done.Commented[0] != 7 || len(done.Opened)+len(done.Closed) != 0 {
		t.Errorf("done = %+v", done)
	}
	reqs := f.requests()
	if c := reqs[1].Body.(map[string]any)["body"].(string); !strings.HasPrefix(c, "The failure changed on 2026-11-30: **unreachable**: `connection refused`") {
		t.Errorf("comment = %q", c)
	}
	if b := reqs[2].Body.(map[string]any)["body"].(string); !strings.Contains(b, `fingerprint="`+now.fingerprint()+`"`) {
		t.Errorf("body not brought up to date:\n%s", b)
	}
}

func TestFailureIssueClosedOnRecoveryAndDuplicates(t *testing.T) {
	f := newFake(t)
	body := issueBody(failingRates(4), issueNow)
	f.on("GET", issuesPath, issuesQuery, 200, []any{issueJSON(9, body), issueJSON(7, body)})
	f.on("POST", issuesPath+"/9/comments", nil, 201, issueObjects.Comment(9, 1, "c"))
	f.on("PATCH", issuesPath+"/9", nil, 200, issueJSON(9, ""))
	f.on("POST", issuesPath+"/7/comments", nil, 201, issueObjects.Comment(7, 2, "c"))
	f.on("PATCH", issuesPath+"/7", nil, 200, issueJSON(7, ""))
	c := newTestClient(t, f, "")
	done, err := c.SyncFailureIssues(context.Background(), nil, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Closed) != 2 || done.Closed[0] != 9 || done.Closed[1] != 7 {
		t.Errorf("done = %+v, want #9 closed as a duplicate of #7, then #7 on recovery", done)
	}
	reqs := f.requests()
	if c := reqs[1].Body.(map[string]any)["body"]; c != "Duplicate of #7, which TaxKernelBot keeps up to date for this source." {
		t.Errorf("duplicate comment = %v", c)
	}
	for _, i := range []int{2, 4} {
		if b := reqs[i].Body.(map[string]any); b["state"] != "closed" {
			t.Errorf("%s %s: %v, want state closed", reqs[i].Method, reqs[i].Path, b)
		}
	}
	if b := reqs[4].Body.(map[string]any); b["state_reason"] != "completed" {
		t.Errorf("recovery close: %v", b)
	}
	if c := reqs[3].Body.(map[string]any)["body"].(string); !strings.HasPrefix(c, "**uk-rates** is no longer failing as of 2026-11-30") {
		t.Errorf("recovery comment = %q", c)
	}
}

func TestFailureIssuePermissionHint(t *testing.T) {
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{})
	f.on("POST", issuesPath, nil, http.StatusForbidden, map[string]any{"message": "Resource not accessible by integration"})
	c := newTestClient(t, f, "")
	_, err := c.SyncFailureIssues(context.Background(), []FailingSource{failingRates(3)}, opts())
	if err == nil || !strings.Contains(err.Error(), "issues: write") {
		t.Errorf("err = %v, want a hint about issues: write", err)
	}
}

// hostileFailure is a failing source whose every field a contributor or a
// server wrote: the title, the detail (a Retry-After), the ledger lines.
func hostileFailure(retryAfter string) FailingSource {
	f := failingRates(4)
	f.Title = "Rates <!-- @octocat ![t](https://evil.example/t.png)"
	f.HTTPStatus = 503
	f.Detail = "HTTP 503 (Retry-After: " + retryAfter + ")"
	f.Checks = append(f.Checks, "2026-11-30T10:00:00Z GET https://www.gov.uk/income-tax-rates → 503 (Retry-After: "+retryAfter+")\n```\n~~~\n@octocat")
	return f
}

const evilRetryAfter = "1 cc @octocat @github/security ![pixel](https://evil.example/p.png) [re-verify](https://evil.example/phish) \x1b[2J"

// TestFailureIssueHostile: a Retry-After of mentions, an image and a link,
// and a title with a comment and a mention, stay inert in the issue's body
// and in the comment on a change.
func TestFailureIssueHostile(t *testing.T) {
	f := hostileFailure(evilRetryAfter)
	changed := f
	changed.HTTPStatus, changed.Detail = 504, "HTTP 504 "+evilRetryAfter
	ours := escapetest.Options{
		Link: func(d string) bool { return d == f.URL },
		HTML: regexp.MustCompile(`^<!-- taxkernelbot:failure source="[a-z0-9-]+" fingerprint="[0-9a-f]+" -->$`),
	}
	for name, md := range map[string]string{"body": issueBody(f, issueNow), "comment": changedComment(changed, issueNow)} {
		if live := escapetest.Live(md, ours); len(live) > 0 {
			t.Errorf("%s has live Markdown %q:\n%s", name, live, md)
		}
		if c := escapetest.Controls(md); len(c) > 0 {
			t.Errorf("%s has control characters %q", name, c)
		}
	}
}

// TestFailureIssueServerValueNoComment: a Retry-After that differs at each
// answer is no change a person needs to hear of; another status is.
func TestFailureIssueServerValueNoComment(t *testing.T) {
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{issueJSON(7, issueBody(hostileFailure("120"), issueNow.Add(-24*time.Hour)))})
	c := newTestClient(t, f, "")
	done, err := c.SyncFailureIssues(context.Background(), []FailingSource{hostileFailure(evilRetryAfter)}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Opened)+len(done.Commented)+len(done.Closed) != 0 || len(f.requests()) != 1 {
		t.Errorf("a new Retry-After value: done = %+v after %d calls, want nothing after one list", done, len(f.requests()))
	}
	other := hostileFailure("120")
	other.HTTPStatus, other.Detail = 429, "HTTP 429 (Retry-After: 120)"
	if other.fingerprint() == hostileFailure("120").fingerprint() {
		t.Error("429 and 503 share a fingerprint")
	}
}

// TestFailureIssueOldMarker: an issue marked before the fingerprint left
// the detail out is brought up to date once, without a comment.
func TestFailureIssueOldMarker(t *testing.T) {
	src := failingRates(4)
	old := strings.Replace(issueBody(src, issueNow), src.fingerprint(), src.oldFingerprint(), 1)
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{issueJSON(7, old)})
	f.on("PATCH", issuesPath+"/7", nil, 200, issueJSON(7, ""))
	c := newTestClient(t, f, "")
	done, err := c.SyncFailureIssues(context.Background(), []FailingSource{src}, opts())
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(done.Commented) != 0 || len(reqs) != 2 || reqs[1].Method != "PATCH" || !strings.Contains(reqs[1].Body.(map[string]any)["body"].(string), src.fingerprint()) {
		t.Errorf("done = %+v after %d calls; want one edit of the marker", done, len(reqs))
	}
}
