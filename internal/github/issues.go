package github

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
)

// FailureLabel is the label of every failure issue; issues are found again
// by it and by the marker in their body.
const FailureLabel = "taxkernelbot:failing"

// FailingSource is a source whose last check failed, as the coverage report
// and the ledgers describe it.
type FailingSource struct {
	ID           string
	Jurisdiction string
	Title        string
	URL          string
	Status       string    // the report's status: failing, unreachable, robots-unavailable, too-large, …
	Detail       string    // the report's detail: what went wrong
	HTTPStatus   int       // the status of the last answer, 0 for none
	Since        time.Time // when the source entered this status (the report's since)
	Advice       string    // what to do, as the report says it
	Checks       []string  // the ledger lines of its last checks, oldest first, as text
}

// fingerprint identifies the failure: an issue is commented on when it
// changes, and only then. It is the status, the URL and the failure's
// kind: times, ledger lines and what a server chose to say (a Retry-After
// that differs at each answer, a status text) are left out, so a quiet
// day with the same failure changes nothing and a server cannot make the
// bot comment, and mention, again and again.
func (f FailingSource) fingerprint() string {
	sum := sha256.Sum256([]byte(f.Status + "\x00" + f.kind() + "\x00" + f.URL))
	return hex.EncodeToString(sum[:8])
}

// oldFingerprint is the fingerprint issues were marked with before the
// kind replaced the detail in it: an issue that carries it for the same
// failure is brought up to date without a comment.
func (f FailingSource) oldFingerprint() string {
	sum := sha256.Sum256([]byte(f.Status + "\x00" + f.Detail + "\x00" + f.URL))
	return hex.EncodeToString(sum[:8])
}

// kind is what failed, without the values a server chooses: "HTTP 503"
// when the server answered, else the detail with its parenthesised parts
// (where the values quoted from an answer or an error go) and digits
// (addresses, ports, sizes) left out: "timeout after #s", "host x could
// not be reached: connection refused".
func (f FailingSource) kind() string {
	if f.HTTPStatus != 0 {
		return fmt.Sprintf("HTTP %d", f.HTTPStatus)
	}
	return strings.Join(strings.Fields(digits.ReplaceAllString(parenthesised.ReplaceAllString(f.Detail, ""), "#")), " ")
}

var (
	parenthesised = regexp.MustCompile(`\([^()]*\)`)
	digits        = regexp.MustCompile(`[0-9]+`)
)

// IssueOptions tune SyncFailureIssues.
type IssueOptions struct {
	// After is how long a source must have been failing before an issue
	// is opened (policy issue_after; 3 days by default).
	After time.Duration
	Now   time.Time
	// Label defaults to FailureLabel.
	Label string
	// MaxNew is how many issues one sync opens at most (DefaultMaxNew
	// when 0), and MaxOpen how many failure issues may be open at once
	// (DefaultMaxOpen when 0): a bad day of a big authority must not
	// bury the maintainers, nor run into GitHub's limits on content
	// creation. The sources beyond either are listed in one summary issue.
	MaxNew, MaxOpen int
}

// The default bounds of IssueOptions.
const (
	DefaultMaxNew  = 10
	DefaultMaxOpen = 30
)

// summaryID is the marker's source of the one summary issue: no source id
// can be it (ids are [a-z0-9-]+).
const summaryID = "~more"

// IssueSync reports what SyncFailureIssues did, by issue number.
type IssueSync struct {
	Opened, Commented, Closed []int
}

// marker is the hidden line that ties an issue to its source.
var marker = regexp.MustCompile(`<!-- taxkernelbot:failure source="([a-z0-9-]+|~more)" fingerprint="([0-9a-f]*)" -->`)

func markerLine(f FailingSource) string {
	return fmt.Sprintf(`<!-- taxkernelbot:failure source="%s" fingerprint="%s" -->`, f.ID, f.fingerprint())
}

type openIssue struct {
	number      int
	fingerprint string
}

// SyncFailureIssues keeps one open issue per source that has been failing
// for at least opts.After, and none for the others:
//   - a source failing that long with no open issue gets one (labelled, with
//     the detail, since when, its last checks and what to do);
//   - an open issue whose failure changed (status, detail or URL) gets a
//     comment and its body brought up to date;
//   - an open issue whose source is no longer failing is closed with a
//     comment;
//   - a second open issue for one source (two runs racing) is closed as a
//     duplicate of the oldest.
//
// It lists the open issues with the label first (the only call when nothing
// changed) and stops at the first error, saying which call failed; what
// was done until then is in the result, and the next run finishes the job.
func (c *Client) SyncFailureIssues(ctx context.Context, failing []FailingSource, opts IssueOptions) (IssueSync, error) {
	var done IssueSync
	if opts.Label == "" {
		opts.Label = FailureLabel
	}
	if opts.Now.IsZero() {
		return done, errors.New("github: SyncFailureIssues needs the time of the report (IssueOptions.Now)")
	}
	opts.MaxNew = cmp.Or(opts.MaxNew, DefaultMaxNew)
	opts.MaxOpen = cmp.Or(opts.MaxOpen, DefaultMaxOpen)
	open, dups, err := c.openFailureIssues(ctx, opts.Label)
	if err != nil {
		return done, err
	}
	for _, d := range dups {
		body := fmt.Sprintf("Duplicate of #%d, which TaxKernelBot keeps up to date for this source.", d.keep)
		if err := c.closeIssue(ctx, d.number, body, "not_planned"); err != nil {
			return done, err
		}
		done.Closed = append(done.Closed, d.number)
	}
	byID := map[string]FailingSource{}
	for _, f := range failing {
		byID[f.ID] = f
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	individual := 0 // open issues of single sources
	for id := range open {
		if _, still := byID[id]; still && id != summaryID {
			individual++
		}
	}
	var more []FailingSource // failing long enough, beyond the bounds
	for _, id := range ids {
		f := byID[id]
		is, exists := open[id]
		switch {
		case exists && is.fingerprint == f.fingerprint():
			// The same failure as last time: nothing to say.
		case exists && is.fingerprint == f.oldFingerprint():
			// The same failure, marked the old way: the marker is
			// brought up to date, with nothing to say.
			if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, is.number, &gh.IssueRequest{Body: gh.String(issueBody(f, opts.Now))}); err != nil {
				return done, fmt.Errorf("github: update failure issue #%d of %s in %s/%s: %w", is.number, id, c.owner, c.repo, c.explainIssues(err))
			}
		case exists:
			if _, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, is.number, &gh.IssueComment{Body: gh.String(changedComment(f, opts.Now))}); err != nil {
				return done, fmt.Errorf("github: comment on failure issue #%d of %s in %s/%s: %w", is.number, id, c.owner, c.repo, c.explainIssues(err))
			}
			done.Commented = append(done.Commented, is.number)
			if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, is.number, &gh.IssueRequest{Title: gh.String(issueTitle(f)), Body: gh.String(issueBody(f, opts.Now))}); err != nil {
				return done, fmt.Errorf("github: update failure issue #%d of %s in %s/%s: %w", is.number, id, c.owner, c.repo, c.explainIssues(err))
			}
		case !f.Since.IsZero() && opts.Now.Sub(f.Since) >= opts.After && (len(done.Opened) >= opts.MaxNew || individual >= opts.MaxOpen):
			more = append(more, f)
		case !f.Since.IsZero() && opts.Now.Sub(f.Since) >= opts.After:
			individual++
			labels := []string{opts.Label}
			is, _, err := c.gh.Issues.Create(ctx, c.owner, c.repo, &gh.IssueRequest{
				Title:  gh.String(issueTitle(f)),
				Body:   gh.String(issueBody(f, opts.Now)),
				Labels: &labels,
			})
			if err != nil {
				return done, fmt.Errorf("github: open failure issue for %s in %s/%s: %w", id, c.owner, c.repo, c.explainIssues(err))
			}
			done.Opened = append(done.Opened, is.GetNumber())
		}
	}
	openIDs := make([]string, 0, len(open))
	for id := range open {
		openIDs = append(openIDs, id)
	}
	slices.Sort(openIDs)
	if err := c.syncSummary(ctx, open, more, opts, &done); err != nil {
		return done, err
	}
	for _, id := range openIDs {
		if _, still := byID[id]; still || id == summaryID {
			continue
		}
		body := fmt.Sprintf("**%s** is no longer failing as of %s: its last check succeeded, or it left the manifests. Closing; TaxKernelBot opens a new issue if it fails for long again.", id, opts.Now.UTC().Format(time.DateOnly))
		if err := c.closeIssue(ctx, open[id].number, body, "completed"); err != nil {
			return done, err
		}
		done.Closed = append(done.Closed, open[id].number)
	}
	return done, nil
}

// syncSummary keeps the one summary issue listing the sources beyond the
// bounds: opened when there are some, its body replaced (an edit, which
// notifies nobody) when the list changes, closed when there are none.
func (c *Client) syncSummary(ctx context.Context, open map[string]openIssue, more []FailingSource, opts IssueOptions, done *IssueSync) error {
	is, exists := open[summaryID]
	if len(more) == 0 {
		if !exists {
			return nil
		}
		if err := c.closeIssue(ctx, is.number, "Every source listed here now has an issue of its own, or is no longer failing. Closing.", "completed"); err != nil {
			return err
		}
		done.Closed = append(done.Closed, is.number)
		return nil
	}
	title, body, fp := summaryIssue(more, opts.Now)
	switch {
	case exists && is.fingerprint == fp:
		return nil
	case exists:
		if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, is.number, &gh.IssueRequest{Title: gh.String(title), Body: gh.String(body)}); err != nil {
			return fmt.Errorf("github: update the summary issue #%d in %s/%s: %w", is.number, c.owner, c.repo, c.explainIssues(err))
		}
	default:
		labels := []string{opts.Label}
		created, _, err := c.gh.Issues.Create(ctx, c.owner, c.repo, &gh.IssueRequest{Title: gh.String(title), Body: gh.String(body), Labels: &labels})
		if err != nil {
			return fmt.Errorf("github: open the summary issue in %s/%s: %w", c.owner, c.repo, c.explainIssues(err))
		}
		done.Opened = append(done.Opened, created.GetNumber())
	}
	return nil
}

// summaryIssue is the summary issue's title, body and fingerprint (of the
// sources and their failures, not of times).
func summaryIssue(more []FailingSource, now time.Time) (title, body, fingerprint string) {
	h := sha256.New()
	var b strings.Builder
	for _, f := range more {
		fmt.Fprintf(h, "%s\x00%s\x00", f.ID, f.fingerprint())
	}
	fingerprint = hex.EncodeToString(h.Sum(nil)[:8])
	fmt.Fprintf(&b, "<!-- taxkernelbot:failure source=\"%s\" fingerprint=\"%s\" -->\n", summaryID, fingerprint)
	fmt.Fprintf(&b, "%d more source(s) have been failing for days, as of %s. So as not to open an issue for each, they are listed here; "+
		"each gets an issue of its own as the others are resolved.\n\n", len(more), now.UTC().Format(time.DateOnly))
	b.WriteString("| source | status | since | detail |\n| --- | --- | --- | --- |\n")
	for _, f := range more {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", markdown.CellCode(f.ID), markdown.CellCode(f.Status), f.Since.UTC().Format(time.DateOnly), markdown.CellCode(markdown.Clip(f.Detail, 200)))
	}
	b.WriteString("\n---\nKept up to date by TaxKernelBot's publishing step; closed when no source is left in it.\n")
	return fmt.Sprintf("TaxKernelBot: %d more sources failing for days", len(more)), b.String(), fingerprint
}

type duplicate struct{ number, keep int }

// openFailureIssues lists the open issues carrying label, by source id (the
// oldest per source), and the newer duplicates.
func (c *Client) openFailureIssues(ctx context.Context, label string) (map[string]openIssue, []duplicate, error) {
	open := map[string]openIssue{}
	var all []struct {
		id string
		openIssue
	}
	opts := &gh.IssueListByRepoOptions{State: "open", Labels: []string{label}, ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		list, resp, err := c.gh.Issues.ListByRepo(ctx, c.owner, c.repo, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("github: list open issues labelled %s in %s/%s: %w", label, c.owner, c.repo, c.explainIssues(err))
		}
		for _, is := range list {
			if is.IsPullRequest() {
				continue
			}
			m := marker.FindStringSubmatch(is.GetBody())
			if m == nil {
				continue // labelled by hand, not one of ours
			}
			all = append(all, struct {
				id string
				openIssue
			}{m[1], openIssue{is.GetNumber(), m[2]}})
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	slices.SortFunc(all, func(a, b struct {
		id string
		openIssue
	}) int {
		return a.number - b.number
	})
	var dups []duplicate
	for _, is := range all {
		if kept, ok := open[is.id]; ok {
			dups = append(dups, duplicate{is.number, kept.number})
			continue
		}
		open[is.id] = is.openIssue
	}
	return open, dups, nil
}

func (c *Client) closeIssue(ctx context.Context, number int, comment, reason string) error {
	if _, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, number, &gh.IssueComment{Body: gh.String(comment)}); err != nil {
		return fmt.Errorf("github: comment before closing issue #%d in %s/%s: %w", number, c.owner, c.repo, c.explainIssues(err))
	}
	if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, number, &gh.IssueRequest{State: gh.String("closed"), StateReason: gh.String(reason)}); err != nil {
		return fmt.Errorf("github: close issue #%d in %s/%s: %w", number, c.owner, c.repo, c.explainIssues(err))
	}
	return nil
}

// ErrIssuesOff: the repository's Issues are turned off (410 "Issues are
// disabled for this repo") or the token may not read them (404). Failure
// issues are best-effort: the caller warns once and goes on.
var ErrIssuesOff = errors.New("issues are turned off for this repository, or the token cannot read them")

// explainIssues is explain with the permission the issue calls need.
func (c *Client) explainIssues(err error) error {
	switch {
	case hasStatus(err, http.StatusGone):
		return fmt.Errorf("%w: %w (turn Issues on in Settings → General → Features to have sources failing for days reported as issues; nothing else needs them)", ErrIssuesOff, err)
	case hasStatus(err, http.StatusNotFound):
		return fmt.Errorf("%w: %w (turn Issues on in Settings → General → Features, and give the workflow `permissions: issues: write` or the App the Issues permission, to have sources failing for days reported as issues; nothing else needs them)", ErrIssuesOff, err)
	}
	if hasStatus(err, 403) {
		return fmt.Errorf("%w (the token may not write issues: give the workflow `permissions: issues: write`)", err)
	}
	return c.explain(err, "check the label name and the issue body")
}

func issueTitle(f FailingSource) string {
	return fmt.Sprintf("TaxKernelBot: %s is %s since %s", f.ID, f.Status, f.Since.UTC().Format(time.DateOnly))
}

// issueBody is the whole body: the marker, what fails, since when, the last
// checks and what to do. What a contributor or a server wrote (title,
// URL, detail, the ledger's lines) is inert Markdown: text, a code span, a
// fenced block.
func issueBody(f FailingSource, now time.Time) string {
	var b strings.Builder
	b.WriteString(markerLine(f) + "\n")
	name := markdown.Code(f.ID)
	if f.Title != "" {
		name += " (" + markdown.TextN(f.Title, 200) + ")"
	}
	days := int(now.Sub(f.Since) / (24 * time.Hour))
	fmt.Fprintf(&b, "**%s** in %s has been **%s** since %s (%d day(s) as of %s).\n\n",
		name, markdown.Code(f.Jurisdiction), markdown.Text(f.Status), f.Since.UTC().Format(time.DateOnly), days, now.UTC().Format(time.DateOnly))
	fmt.Fprintf(&b, "- URL: %s\n", markdown.Link(markdown.Clip(f.URL, 200), f.URL))
	if f.Detail != "" {
		fmt.Fprintf(&b, "- Detail: %s\n", markdown.CodeN(f.Detail, 500))
	}
	b.WriteString(checksSection(f))
	if f.Advice != "" {
		fmt.Fprintf(&b, "\n### What to do\n\n%s\n", f.Advice)
	}
	b.WriteString("\n---\nOpened by TaxKernelBot's publishing step. It comments here when the failure changes and closes this issue when the source recovers; no need to close it by hand.\n")
	return b.String()
}

func changedComment(f FailingSource, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The failure changed on %s: **%s**", now.UTC().Format(time.DateOnly), markdown.Text(f.Status))
	if f.Detail != "" {
		fmt.Fprintf(&b, ": %s", markdown.CodeN(f.Detail, 500))
	}
	b.WriteString("\n")
	b.WriteString(checksSection(f))
	return b.String()
}

func checksSection(f FailingSource) string {
	if len(f.Checks) == 0 {
		return ""
	}
	lines := make([]string, len(f.Checks))
	for i, l := range f.Checks {
		lines[i] = markdown.Clip(l, 500)
	}
	return "\n### Last checks (ledger)\n\n" + markdown.Fence("", strings.Join(lines, "\n"))
}
