package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

var (
	issuesPath  = "/repos/octo/coverage/issues"
	issuesQuery = url.Values{"state": {"open"}, "labels": {FailureLabel}}
	issueNow    = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
)

// failingRates is a source failing for days, its texts as package
// review would write them in short.
func failingRates(days int) FailureIssue {
	since := issueNow.Add(-time.Duration(days) * 24 * time.Hour)
	return FailureIssue{
		Source: "uk-rates", Since: since, Fingerprint: "0123456789abcdef", Old: "00000000deadbeef",
		Title:   "TaxKernelBot: uk-rates is failing since " + since.Format(time.DateOnly),
		Body:    "**`uk-rates`** has been **failing**.\n",
		Comment: "The failure changed: **unreachable**\n",
	}
}

// issueBody is the body the client sends for f.
func issueBody(f FailureIssue) string { return markerLine(f.Source, f.Fingerprint) + "\n" + f.Body }

var issueObjects = githubtest.Objects{API: "https://api.github.example", Web: "https://github.example", Owner: "octo", Repo: "coverage"}

func issueJSON(number int, body string) map[string]any {
	return issueObjects.Issue(githubtest.Issue{Number: number, State: "open", Title: "t", Body: body})
}

func opts() IssueOptions {
	return IssueOptions{After: 72 * time.Hour, Now: issueNow, Summary: func(more []FailureIssue) (string, string) {
		var b strings.Builder
		for _, f := range more {
			b.WriteString("| `" + f.Source + "` |\n")
		}
		return fmt.Sprintf("%d more", len(more)), b.String()
	}}
}

func TestFailureIssueOpened(t *testing.T) {
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{})
	f.on("POST", issuesPath, nil, 201, issueJSON(7, ""))
	c := newTestClient(t, f, "")
	done, err := c.SyncFailureIssues(context.Background(), []FailureIssue{failingRates(4), {Source: "de-estg", Fingerprint: "aa", Since: issueNow.Add(-48 * time.Hour)}}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Opened) != 1 || done.Opened[0] != 7 || len(done.Commented)+len(done.Closed) != 0 {
		t.Errorf("done = %+v, want #7 opened (de-estg has failed 2 days only)", done)
	}
	reqs := f.requests()
	body := reqs[1].Body.(map[string]any)
	text := body["body"].(string)
	if want := `<!-- taxkernelbot:failure source="uk-rates" fingerprint="0123456789abcdef" -->` + "\n" + failingRates(4).Body; text != want {
		t.Errorf("issue body = %q, want %q (the marker, then the body)", text, want)
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
		issueJSON(7, issueBody(failingRates(4))),
		issueJSON(8, "labelled by a person, no marker"),
		issueObjects.PullAsIssue(githubtest.PR{Number: 9, State: "open", Title: "t", Body: markerLine("x", "")}),
	})
	c := newTestClient(t, f, "")
	quiet := failingRates(5)
	quiet.Body += "A new ledger line.\n" // a new text with the same fingerprint is no change
	done, err := c.SyncFailureIssues(context.Background(), []FailureIssue{quiet, {Source: "de-estg", Fingerprint: "aa", Since: issueNow.Add(-time.Hour)}}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Opened)+len(done.Commented)+len(done.Closed) != 0 || len(f.requests()) != 1 {
		t.Errorf("done = %+v after %d calls; want nothing after one list", done, len(f.requests()))
	}
}

func TestFailureIssueChanged(t *testing.T) {
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{issueJSON(7, issueBody(failingRates(4)))})
	f.on("POST", issuesPath+"/7/comments", nil, 201, issueObjects.Comment(7, 1, "c"))
	f.on("PATCH", issuesPath+"/7", nil, 200, issueJSON(7, ""))
	c := newTestClient(t, f, "")
	now := failingRates(4)
	now.Fingerprint, now.Body = "fedcba9876543210", "**`uk-rates`** has been **unreachable**.\n"
	now.Since = issueNow.Add(-time.Hour) // a new status restarts "since", the issue stays open
	done, err := c.SyncFailureIssues(context.Background(), []FailureIssue{now}, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Commented) != 1 || done.Commented[0] != 7 || len(done.Opened)+len(done.Closed) != 0 {
		t.Errorf("done = %+v", done)
	}
	reqs := f.requests()
	if c := reqs[1].Body.(map[string]any)["body"].(string); c != now.Comment {
		t.Errorf("comment = %q, want %q", c, now.Comment)
	}
	if b := reqs[2].Body.(map[string]any)["body"].(string); b != issueBody(now) {
		t.Errorf("body not brought up to date:\n%s", b)
	}
}

func TestFailureIssueClosedOnRecoveryAndDuplicates(t *testing.T) {
	f := newFake(t)
	body := issueBody(failingRates(4))
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
	_, err := c.SyncFailureIssues(context.Background(), []FailureIssue{failingRates(3)}, opts())
	if err == nil || !strings.Contains(err.Error(), "issues: write") {
		t.Errorf("err = %v, want a hint about issues: write", err)
	}
}

// TestFailureIssueOldMarker: an issue marked before the fingerprint left
// the detail out is brought up to date once, without a comment.
func TestFailureIssueOldMarker(t *testing.T) {
	src := failingRates(4)
	old := strings.Replace(issueBody(src), src.Fingerprint, src.Old, 1)
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{issueJSON(7, old)})
	f.on("PATCH", issuesPath+"/7", nil, 200, issueJSON(7, ""))
	c := newTestClient(t, f, "")
	done, err := c.SyncFailureIssues(context.Background(), []FailureIssue{src}, opts())
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(done.Commented) != 0 || len(reqs) != 2 || reqs[1].Method != "PATCH" || reqs[1].Body.(map[string]any)["body"].(string) != issueBody(src) {
		t.Errorf("done = %+v after %d calls; want one edit of the marker", done, len(reqs))
	}
}

// TestSummaryIssueNeedsItsWriter: failures beyond the bounds with no
// Summary to write their issue is an error saying so, not a panic.
func TestSummaryIssueNeedsItsWriter(t *testing.T) {
	f := newFake(t)
	f.on("GET", issuesPath, issuesQuery, 200, []any{})
	f.on("POST", issuesPath, nil, 201, issueJSON(7, ""))
	c := newTestClient(t, f, "")
	o := opts()
	o.Summary, o.MaxNew = nil, 1
	two := []FailureIssue{failingRates(4), failingRates(4)}
	two[1].Source = "uk-ni"
	if _, err := c.SyncFailureIssues(context.Background(), two, o); err == nil || !strings.Contains(err.Error(), "IssueOptions.Summary") {
		t.Errorf("err = %v, want one naming IssueOptions.Summary", err)
	}
}

// TestSummaryFingerprintKept: the summary issue's fingerprint is the one
// the bot marked it with before its texts moved to package review.
func TestSummaryFingerprintKept(t *testing.T) {
	if got, want := summaryFingerprint([]FailureIssue{{Source: "uk-rates", Fingerprint: "53609212aa384345"}}), "7a5c08a4453ff5df"; got != want {
		t.Errorf("summaryFingerprint = %s, want %s", got, want)
	}
}
