package github

import (
	"context"
	"fmt"
	"net/http"

	gh "github.com/google/go-github/v60/github"
)

// PRState is what the bot needs to know of its latest pull request to
// decide what to do next: whether a reviewer merged or closed it, which
// commit it last showed, and its labels.
type PRState struct {
	Number  int
	URL     string
	Open    bool
	Merged  bool // closed by a merge (of any kind: merge, squash, rebase)
	HeadSHA string
	Labels  []string
}

// HasLabel reports whether the pull request carries label.
func (p *PRState) HasLabel(label string) bool {
	for _, l := range p.Labels {
		if l == label {
			return true
		}
	}
	return false
}

// LatestPR returns the newest pull request, open or closed, from branch
// head of the repository, or nil when there has never been one. One call.
func (c *Client) LatestPR(ctx context.Context, head string) (*PRState, error) {
	list, _, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, &gh.PullRequestListOptions{
		State: "all", Head: c.owner + ":" + head, Sort: "created", Direction: "desc",
		ListOptions: gh.ListOptions{PerPage: 10},
	})
	if err != nil {
		return nil, fmt.Errorf("github: list pull requests from %s:%s in %s/%s: %w", c.owner, head, c.owner, c.repo, c.explain(err, ""))
	}
	var latest *gh.PullRequest
	for _, p := range list {
		if ref := p.GetHead().GetRef(); ref != "" && ref != head {
			continue // the filter is the server's; a ref that does not match is not ours
		}
		if latest == nil || p.GetNumber() > latest.GetNumber() {
			latest = p
		}
	}
	if latest == nil {
		return nil, nil
	}
	s := &PRState{
		Number: latest.GetNumber(), URL: latest.GetHTMLURL(),
		Open: latest.GetState() == "open", Merged: latest.MergedAt != nil || latest.GetMerged(),
		HeadSHA: latest.GetHead().GetSHA(),
	}
	for _, l := range latest.Labels {
		s.Labels = append(s.Labels, l.GetName())
	}
	return s, nil
}

// Comment adds a comment to pull request (or issue) number.
func (c *Client) Comment(ctx context.Context, number int, body string) error {
	if _, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, number, &gh.IssueComment{Body: gh.String(body)}); err != nil {
		return fmt.Errorf("github: comment on #%d in %s/%s: %w", number, c.owner, c.repo, c.explain(err, ""))
	}
	return nil
}

// RemoveLabel takes label off pull request (or issue) number; a label
// that is not there is not an error.
func (c *Client) RemoveLabel(ctx context.Context, number int, label string) error {
	_, err := c.gh.Issues.RemoveLabelForIssue(ctx, c.owner, c.repo, number, label)
	if err != nil && !hasStatus(err, http.StatusNotFound) {
		return fmt.Errorf("github: remove label %q from #%d in %s/%s: %w", label, number, c.owner, c.repo, c.explain(err, ""))
	}
	return nil
}

// MaxBody is GitHub's limit on a pull request body, in characters;
// EnsurePR and EditPR refuse a body longer in bytes.
const MaxBody = 65536

// EditPR sets the title and body of pull request number.
func (c *Client) EditPR(ctx context.Context, number int, title, body string) error {
	if len(body) > MaxBody {
		return fmt.Errorf("github: pull request body is %d bytes, over GitHub's limit of %d", len(body), MaxBody)
	}
	if _, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.repo, number, &gh.PullRequest{Title: gh.String(title), Body: gh.String(body)}); err != nil {
		return fmt.Errorf("github: update pull request #%d in %s/%s: %w", number, c.owner, c.repo, c.explain(err, ""))
	}
	return nil
}

// ClosedByBranchDeletion reports whether pull request number, closed
// without a merge, was closed because its head branch was deleted (GitHub
// records head_ref_deleted just before it closes the pull request) rather
// than by a person: a deleted branch is no decision about the content.
func (c *Client) ClosedByBranchDeletion(ctx context.Context, number int) (bool, error) {
	deleted, byDeletion := false, false
	opts := &gh.ListOptions{PerPage: 100}
	for {
		events, resp, err := c.gh.Issues.ListIssueEvents(ctx, c.owner, c.repo, number, opts)
		if err != nil {
			return false, fmt.Errorf("github: list the events of #%d in %s/%s: %w", number, c.owner, c.repo, c.explain(err, ""))
		}
		for _, ev := range events {
			switch ev.GetEvent() {
			case "head_ref_deleted":
				deleted = true
			case "head_ref_restored", "reopened":
				deleted = false
			case "closed":
				byDeletion = deleted
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return byDeletion, nil
		}
		opts.Page = resp.NextPage
	}
}
