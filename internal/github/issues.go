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
	"time"

	gh "github.com/google/go-github/v60/github"
)

// FailureLabel is the label of every failure issue; issues are found again
// by it and by the marker in their body.
const FailureLabel = "taxkernelbot:failing"

// FailureIssue is what SyncFailureIssues keeps one issue for: a source
// failing, with what its issue says already written (package review
// writes it).
type FailureIssue struct {
	Source string    // the source id, [a-z0-9-]+
	Since  time.Time // when the source entered its failure; zero: no issue is opened
	// Fingerprint identifies the failure (hex): the issue is commented
	// on when it changes, and only then. Old is the fingerprint an older
	// version marked the same failure with: such an issue has its marker
	// brought up to date, silently.
	Fingerprint, Old string
	// Title and Body are the issue's (Body without the marker line the
	// client puts first); Comment is posted when the failure changed.
	Title, Body, Comment string
}

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
	// Summary writes the summary issue's title and body (without the
	// marker line) for the failures beyond the bounds; it must be set
	// when there may be some.
	Summary func(more []FailureIssue) (title, body string)
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

func markerLine(source, fingerprint string) string {
	return fmt.Sprintf(`<!-- taxkernelbot:failure source="%s" fingerprint="%s" -->`, source, fingerprint)
}

// body is f's issue body, marked as f's.
func (f FailureIssue) body() string { return markerLine(f.Source, f.Fingerprint) + "\n" + f.Body }

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
func (c *Client) SyncFailureIssues(ctx context.Context, failing []FailureIssue, opts IssueOptions) (IssueSync, error) {
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
	byID := map[string]FailureIssue{}
	for _, f := range failing {
		byID[f.Source] = f
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
	var more []FailureIssue // failing long enough, beyond the bounds
	for _, id := range ids {
		f := byID[id]
		is, exists := open[id]
		switch {
		case exists && is.fingerprint == f.Fingerprint:
			// The same failure as last time: nothing to say.
		case exists && f.Old != "" && is.fingerprint == f.Old:
			// The same failure, marked the old way: the marker is
			// brought up to date, with nothing to say.
			if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, is.number, &gh.IssueRequest{Body: gh.String(f.body())}); err != nil {
				return done, fmt.Errorf("github: update failure issue #%d of %s in %s/%s: %w", is.number, id, c.owner, c.repo, c.explainIssues(err))
			}
		case exists:
			if _, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, is.number, &gh.IssueComment{Body: gh.String(f.Comment)}); err != nil {
				return done, fmt.Errorf("github: comment on failure issue #%d of %s in %s/%s: %w", is.number, id, c.owner, c.repo, c.explainIssues(err))
			}
			done.Commented = append(done.Commented, is.number)
			if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, is.number, &gh.IssueRequest{Title: gh.String(f.Title), Body: gh.String(f.body())}); err != nil {
				return done, fmt.Errorf("github: update failure issue #%d of %s in %s/%s: %w", is.number, id, c.owner, c.repo, c.explainIssues(err))
			}
		case !f.Since.IsZero() && opts.Now.Sub(f.Since) >= opts.After && (len(done.Opened) >= opts.MaxNew || individual >= opts.MaxOpen):
			more = append(more, f)
		case !f.Since.IsZero() && opts.Now.Sub(f.Since) >= opts.After:
			individual++
			labels := []string{opts.Label}
			is, _, err := c.gh.Issues.Create(ctx, c.owner, c.repo, &gh.IssueRequest{
				Title:  gh.String(f.Title),
				Body:   gh.String(f.body()),
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
func (c *Client) syncSummary(ctx context.Context, open map[string]openIssue, more []FailureIssue, opts IssueOptions, done *IssueSync) error {
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
	if opts.Summary == nil {
		return fmt.Errorf("github: %d sources failing for days are beyond the bounds on issues, and IssueOptions.Summary, which writes the issue listing them, is not set", len(more))
	}
	fp := summaryFingerprint(more)
	title, body := opts.Summary(more)
	body = markerLine(summaryID, fp) + "\n" + body
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

// summaryFingerprint is the summary issue's fingerprint: of the sources
// and their failures, not of times.
func summaryFingerprint(more []FailureIssue) string {
	h := sha256.New()
	for _, f := range more {
		fmt.Fprintf(h, "%s\x00%s\x00", f.Source, f.Fingerprint)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
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
