package review

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
)

var issueNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func failingRates(days int) Failure {
	return Failure{
		ID: "uk-rates", Jurisdiction: "uk", Title: "Income Tax rates", URL: "https://www.gov.uk/income-tax-rates",
		Status: "failing", Detail: "HTTP 503 (Retry-After: 120)", Since: issueNow.Add(-time.Duration(days) * 24 * time.Hour),
		Advice: "Nothing to do yet if the site is down for everyone; if it lasts, check the URL in a browser and update the manifest.",
		Checks: []string{
			`2026-11-29T09:00:01Z result status=503 url=https://www.gov.uk/income-tax-rates`,
			`2026-11-30T09:00:02Z result status=503 url=https://www.gov.uk/income-tax-rates`,
		},
	}
}

func TestFailureIssueTexts(t *testing.T) {
	f := failingRates(4)
	text := f.IssueBody(issueNow)
	for _, want := range []string{
		"**`uk-rates` (Income Tax rates)** in `uk` has been **failing** since 2026-11-26 (4 day(s) as of 2026-11-30).",
		"- Detail: `HTTP 503 (Retry-After: 120)`",
		"### Last checks (ledger)\n\n```\n2026-11-29T09:00:01Z result status=503",
		"### What to do\n\nNothing to do yet",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("issue body lacks %q:\n%s", want, text)
		}
	}
	if got := f.IssueTitle(); got != "TaxKernelBot: uk-rates is failing since 2026-11-26" {
		t.Errorf("title = %v", got)
	}
	now := f
	now.Status, now.Detail = "unreachable", "connection refused"
	if c := now.ChangedComment(issueNow); !strings.HasPrefix(c, "The failure changed on 2026-11-30: **unreachable**: `connection refused`") {
		t.Errorf("comment = %q", c)
	}
	if now.Fingerprint() == f.Fingerprint() {
		t.Error("another status, the same fingerprint")
	}
	quiet := failingRates(5)
	quiet.Checks = append(quiet.Checks, "2026-12-01T09:00:00Z result status=503")
	if quiet.Fingerprint() != f.Fingerprint() {
		t.Error("new ledger lines and another day changed the fingerprint")
	}
}

// hostileFailure is a failing source whose every field a contributor or a
// server wrote: the title, the detail (a Retry-After), the ledger lines.
func hostileFailure(retryAfter string) Failure {
	f := failingRates(4)
	f.Title = "Rates <!-- @octocat ![t](https://evil.example/t.png)"
	f.HTTPStatus = 503
	f.Detail = "HTTP 503 (Retry-After: " + retryAfter + ")"
	f.Checks = append(f.Checks, "2026-11-30T10:00:00Z GET https://www.gov.uk/income-tax-rates → 503 (Retry-After: "+retryAfter+")\n```\n~~~\n@octocat")
	return f
}

const evilRetryAfter = "1 cc @octocat @github/security ![pixel](https://evil.example/p.png) [re-verify](https://evil.example/phish) \x1b[2J"

// TestFailureIssueHostile: a Retry-After of mentions, an image and a link,
// and a title with a comment and a mention, stay inert in the issue's body,
// in the comment on a change and in the summary issue.
func TestFailureIssueHostile(t *testing.T) {
	f := hostileFailure(evilRetryAfter)
	changed := f
	changed.HTTPStatus, changed.Detail = 504, "HTTP 504 "+evilRetryAfter
	ours := escapetest.Options{
		Link: func(d string) bool { return d == f.URL },
		HTML: regexp.MustCompile(`^<!-- taxkernelbot:failure source="[a-z0-9-]+" fingerprint="[0-9a-f]+" -->$`),
	}
	_, summary := SummaryIssue([]Failure{f, changed}, issueNow)
	for name, md := range map[string]string{"body": f.IssueBody(issueNow), "comment": changed.ChangedComment(issueNow), "summary": summary} {
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
	if hostileFailure(evilRetryAfter).Fingerprint() != hostileFailure("120").Fingerprint() {
		t.Error("a new Retry-After value changed the fingerprint")
	}
	other := hostileFailure("120")
	other.HTTPStatus, other.Detail = 429, "HTTP 429 (Retry-After: 120)"
	if other.Fingerprint() == hostileFailure("120").Fingerprint() {
		t.Error("429 and 503 share a fingerprint")
	}
}

// TestIssueKept: the fingerprints are what issues already open are marked
// with, and the body is what they say: a change of either would comment
// on, or edit, every open issue once. The values are those the bot wrote
// before the texts moved here.
func TestIssueKept(t *testing.T) {
	f := failingRates(4)
	f.Advice, f.Checks = "", nil
	if got, want := f.Fingerprint(), "53609212aa384345"; got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
	if got, want := f.OldFingerprint(), "ea616b53679336e8"; got != want {
		t.Errorf("OldFingerprint = %s, want %s", got, want)
	}
	want := "**`uk-rates` (Income Tax rates)** in `uk` has been **failing** since 2026-11-26 (4 day(s) as of 2026-11-30).\n\n" +
		"- URL: [https://www.gov.uk/income-tax-rates](https://www.gov.uk/income-tax-rates)\n- Detail: `HTTP 503 (Retry-After: 120)`\n\n" +
		"---\nOpened by TaxKernelBot's publishing step. It comments here when the failure changes and closes this issue when the source recovers; no need to close it by hand.\n"
	if got := f.IssueBody(issueNow); got != want {
		t.Errorf("IssueBody =\n%q\nwant\n%q", got, want)
	}
}

func TestSummaryIssue(t *testing.T) {
	a, b := failingRates(4), failingRates(5)
	b.ID = "uk-ni"
	title, body := SummaryIssue([]Failure{a, b}, issueNow)
	if title != "TaxKernelBot: 2 more sources failing for days" {
		t.Errorf("title = %q", title)
	}
	if !strings.Contains(body, "| `uk-rates` | `failing` | 2026-11-26 |") || !strings.Contains(body, "| `uk-ni` | `failing` | 2026-11-25 |") {
		t.Errorf("summary lacks a row:\n%s", body)
	}
}
