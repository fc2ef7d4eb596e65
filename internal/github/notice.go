package github

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"

	gh "github.com/google/go-github/v60/github"
)

// NoticeLabel labels the one issue `refs --issue` keeps in a rules
// repository: the parameters whose cited documents changed.
const NoticeLabel = "taxkernelbot:cited-changed"

// Notice is the one issue kept under a key: its title and body (without the
// marker line the client puts first). An empty Body means there is
// nothing to say.
type Notice struct {
	Key         string // [a-z0-9-]+, what the marker names
	Title, Body string
	// Label defaults to NoticeLabel.
	Label string
	// Resolved is the comment an open notice is closed with when there is
	// nothing to say any more.
	Resolved string
}

// NoticeSync says what SyncNotice did: the issue's number and whether it
// was opened, updated or closed (all false: nothing was sent but the list).
type NoticeSync struct {
	Number                  int
	Opened, Updated, Closed bool
}

var noticeMarker = regexp.MustCompile(`<!-- taxkernelbot:notice key="([a-z0-9-]+)" fingerprint="([0-9a-f]*)" -->`)

var noticeKey = regexp.MustCompile(`^[a-z0-9-]+$`)

// SyncNotice keeps one open issue for n.Key: opened when there is something
// to say and none is open, its title and body replaced (an edit, which
// notifies nobody) when what it says changed, closed with n.Resolved when
// there is nothing to say any more. When nothing changed it sends nothing
// but the list of open issues with the label. A second open issue with
// the key (two runs racing) is left as it is; the oldest is kept.
func (c *Client) SyncNotice(ctx context.Context, n Notice) (NoticeSync, error) {
	var done NoticeSync
	if !noticeKey.MatchString(n.Key) {
		return done, fmt.Errorf("github: notice key %q: want [a-z0-9-]+", n.Key)
	}
	if n.Label == "" {
		n.Label = NoticeLabel
	}
	number, fp, err := c.openNotice(ctx, n.Label, n.Key)
	if err != nil {
		return done, err
	}
	done.Number = number
	sum := sha256.Sum256([]byte(n.Title + "\x00" + n.Body))
	want := hex.EncodeToString(sum[:8])
	body := fmt.Sprintf(`<!-- taxkernelbot:notice key="%s" fingerprint="%s" -->`, n.Key, want) + "\n" + n.Body
	switch {
	case n.Body == "" && number == 0:
		return done, nil
	case n.Body == "":
		if err := c.closeIssue(ctx, number, n.Resolved, "completed"); err != nil {
			return done, err
		}
		done.Closed = true
	case number == 0:
		labels := []string{n.Label}
		is, _, err := c.gh.Issues.Create(ctx, c.owner, c.repo, &gh.IssueRequest{Title: gh.String(n.Title), Body: gh.String(body), Labels: &labels})
		if err != nil {
			return done, fmt.Errorf("github: open the %s issue in %s/%s: %w", n.Key, c.owner, c.repo, c.explainIssues(err))
		}
		done.Number, done.Opened = is.GetNumber(), true
	case fp != want:
		if _, _, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, number, &gh.IssueRequest{Title: gh.String(n.Title), Body: gh.String(body)}); err != nil {
			return done, fmt.Errorf("github: update the %s issue #%d in %s/%s: %w", n.Key, number, c.owner, c.repo, c.explainIssues(err))
		}
		done.Updated = true
	}
	return done, nil
}

// openNotice finds the oldest open issue labelled label whose marker names
// key: its number (0 for none) and fingerprint.
func (c *Client) openNotice(ctx context.Context, label, key string) (int, string, error) {
	type found struct {
		number int
		fp     string
	}
	var all []found
	opts := &gh.IssueListByRepoOptions{State: "open", Labels: []string{label}, ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		list, resp, err := c.gh.Issues.ListByRepo(ctx, c.owner, c.repo, opts)
		if err != nil {
			return 0, "", fmt.Errorf("github: list open issues labelled %s in %s/%s: %w", label, c.owner, c.repo, c.explainIssues(err))
		}
		for _, is := range list {
			if m := noticeMarker.FindStringSubmatch(is.GetBody()); m != nil && !is.IsPullRequest() && m[1] == key {
				all = append(all, found{is.GetNumber(), m[2]})
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(all) == 0 {
		return 0, "", nil
	}
	oldest := slices.MinFunc(all, func(a, b found) int { return a.number - b.number })
	return oldest.number, oldest.fp, nil
}
