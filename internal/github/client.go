package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// UserAgent is sent with every API request, so that the bot's calls are
// recognisable in audit logs.
const UserAgent = "TaxKernelBot (+https://github.com/taxkernel/taxkernelbot)"

// ErrLabels marks the error EnsurePR returns when the pull request was
// created but labelling it failed: number, url and created are then
// valid, and a caller may report the error as a warning.
var ErrLabels = errors.New("pull request created but not labelled")

// Client opens and updates the bot's pull request through the REST API
// of the server a Config names.
type Client struct {
	gh          *gh.Client
	owner, repo string
	api         string // for error messages
	token       func(context.Context) (string, error)
	storage     *http.Client // follows GitHub's redirects to its storage, without the token
}

// NewClient returns a Client for c's repository, sending c.Token as a
// bearer token to c.APIURL (https://api.github.com, a GitHub Enterprise
// Server's https://host/api/v3, or a test server's root: the URL is used
// as given, trailing slash or not). httpClient may be nil; it is copied,
// never modified.
//
// Every call is retried, a bounded number of times, when GitHub answers
// with a server error or a secondary rate limit (4 tries; see WithClock).
func NewClient(c Config, httpClient *http.Client, opts ...Option) (*Client, error) {
	if c.Owner == "" || c.Repo == "" {
		return nil, errors.New("github: no repository: set GITHUB_REPOSITORY to owner/name")
	}
	if c.Token == "" && c.AppID == "" {
		return nil, errors.New("github: no token: set GITHUB_TOKEN, or TAXKERNELBOT_APP_ID and TAXKERNELBOT_APP_PRIVATE_KEY (see ConfigFromEnv)")
	}
	api := c.APIURL
	if api == "" {
		api = DefaultAPIURL
	}
	base, err := url.Parse(api)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("github: API URL %q: want an http(s) URL such as %s", api, DefaultAPIURL)
	}
	// go-github resolves relative paths against BaseURL, which must end in
	// '/' or its last segment (say "v3") would be replaced.
	base.Path = strings.TrimRight(base.Path, "/") + "/"
	base.RawPath = ""
	if httpClient == nil {
		httpClient = &http.Client{Timeout: time.Minute}
	}
	rt := &retry{base: httpClient.Transport, clock: clock.Real{}, attempts: DefaultAttempts}
	if rt.base == nil {
		rt.base = http.DefaultTransport
	}
	for _, o := range opts {
		o(rt)
	}
	hc := *httpClient
	hc.Transport = rt
	out := &Client{owner: c.Owner, repo: c.Repo, api: strings.TrimRight(api, "/")}
	storage := *httpClient
	storage.Transport = &retry{base: rt.base, clock: rt.clock, attempts: rt.attempts}
	out.storage = &storage
	var client *gh.Client
	if c.AppID != "" {
		key, err := ParseAppKey(c.AppKey)
		if err != nil {
			return nil, err
		}
		mint := hc
		tokens := NewAppTokens(c, key, &mint, rt.clock)
		hc.Transport = &bearer{tokens: tokens, base: rt}
		client = gh.NewClient(&hc)
		out.token = tokens.Token
	} else {
		client = gh.NewClient(&hc).WithAuthToken(c.Token)
		out.token = func(context.Context) (string, error) { return c.Token, nil }
	}
	client.BaseURL = base
	client.UserAgent = UserAgent
	out.gh = client
	return out, nil
}

// Token is the token the client sends now (a fresh installation token for
// an App): git over HTTP asks for it on each request, so that a long run
// never pushes with one that has expired.
func (c *Client) Token(ctx context.Context) (string, error) { return c.token(ctx) }

// PR is the pull request EnsurePR wants open: from branch Head of the same
// repository into Base. Labels are added when it is created, not again
// (a reviewer may have removed them on purpose).
type PR struct {
	Head, Base  string
	Title, Body string
	Labels      []string
}

// EnsurePR makes sure one open pull request from pr.Head exists with
// pr's title, body and base. It lists the open pull requests of head
// "owner:Head"; when there is one it is edited, only if its title, body
// or base differ (an unchanged pull request costs one request and sends
// no notification); otherwise one is created and labelled. If another run
// created it in the meantime (422 on create), the list is read again and
// that one is edited.
//
// Errors say which call failed and what to check. When the pull request
// was created but labels could not be added, the error wraps ErrLabels
// and the other results are valid.
func (c *Client) EnsurePR(ctx context.Context, pr PR) (number int, url string, created bool, err error) {
	switch {
	case pr.Head == "" || pr.Base == "":
		return 0, "", false, errors.New("github: a pull request needs a head and a base branch")
	case strings.TrimSpace(pr.Title) == "":
		return 0, "", false, errors.New("github: a pull request needs a title")
	case len(pr.Body) > MaxBody:
		return 0, "", false, fmt.Errorf("github: pull request body is %d bytes, over GitHub's limit of %d: render it with review.Body", len(pr.Body), MaxBody)
	}
	open, err := c.find(ctx, pr)
	if err != nil {
		return 0, "", false, err
	}
	if open == nil {
		p, _, err := c.gh.PullRequests.Create(ctx, c.owner, c.repo, &gh.NewPullRequest{
			Title: gh.String(pr.Title),
			Head:  gh.String(pr.Head),
			Base:  gh.String(pr.Base),
			Body:  gh.String(pr.Body),
		})
		if err == nil {
			number, url = p.GetNumber(), p.GetHTMLURL()
			if len(pr.Labels) > 0 {
				if err := c.addLabels(ctx, number, pr.Labels); err != nil {
					return number, url, true, fmt.Errorf("github: pull request #%d (%s) was created, but adding labels %q failed (%w): %w",
						number, url, pr.Labels, ErrLabels, c.explain(err, "check the label names"))
				}
			}
			return number, url, true, nil
		}
		if !hasStatus(err, http.StatusUnprocessableEntity) {
			return 0, "", false, fmt.Errorf("github: create pull request %s → %s in %s/%s: %w", pr.Head, pr.Base, c.owner, c.repo, c.explain(err, ""))
		}
		// 422: perhaps a concurrent run opened it; otherwise the branch is
		// not there or holds nothing new.
		again, lerr := c.find(ctx, pr)
		if lerr != nil || again == nil {
			return 0, "", false, fmt.Errorf("github: create pull request %s → %s in %s/%s: %w", pr.Head, pr.Base, c.owner, c.repo,
				c.explain(err, "check that branch "+pr.Head+" was pushed, has commits that "+pr.Base+" lacks, and that "+pr.Base+" exists"))
		}
		open = again
	}

	number, url = open.GetNumber(), open.GetHTMLURL()
	edit := &gh.PullRequest{}
	differ := false
	if open.GetTitle() != pr.Title {
		edit.Title, differ = gh.String(pr.Title), true
	}
	// GitHub keeps a body edited in its web form with CRLF line ends.
	if crlf(open.GetBody()) != crlf(pr.Body) {
		edit.Body, differ = gh.String(pr.Body), true
	}
	if ref := open.GetBase().GetRef(); ref != "" && ref != pr.Base {
		edit.Base, differ = &gh.PullRequestBranch{Ref: gh.String(pr.Base)}, true
	}
	if !differ {
		return number, url, false, nil
	}
	p, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.repo, number, edit)
	if err != nil {
		return number, url, false, fmt.Errorf("github: update pull request #%d in %s/%s: %w", number, c.owner, c.repo, c.explain(err, ""))
	}
	if u := p.GetHTMLURL(); u != "" {
		url = u
	}
	return number, url, false, nil
}

// find returns the open pull request from pr.Head, preferring one into
// pr.Base, or nil. GitHub allows one open pull request per head and base.
func (c *Client) find(ctx context.Context, pr PR) (*gh.PullRequest, error) {
	opts := &gh.PullRequestListOptions{
		State:       "open",
		Head:        c.owner + ":" + pr.Head,
		ListOptions: gh.ListOptions{PerPage: 100},
	}
	list, _, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, opts)
	if err != nil {
		return nil, fmt.Errorf("github: list open pull requests from %s:%s in %s/%s: %w", c.owner, pr.Head, c.owner, c.repo, c.explain(err, ""))
	}
	var found *gh.PullRequest
	for _, p := range list {
		// The filter is the server's; a ref that does not match is not ours.
		if ref := p.GetHead().GetRef(); ref != "" && ref != pr.Head {
			continue
		}
		switch {
		case found == nil:
			found = p
		case (p.GetBase().GetRef() == pr.Base) != (found.GetBase().GetRef() == pr.Base):
			if p.GetBase().GetRef() == pr.Base {
				found = p
			}
		case p.GetNumber() < found.GetNumber():
			found = p
		}
	}
	return found, nil
}

// explain adds to an API error what its status means for this bot.
// on422 is the hint for a 422 (validation failed) of this call.
func (c *Client) explain(err error, on422 string) error {
	var (
		rate  *gh.RateLimitError
		abuse *gh.AbuseRateLimitError
		resp  *gh.ErrorResponse
		hint  string
	)
	var reset string
	var primary bool
	if errors.As(err, &resp) && resp.Response != nil {
		reset, primary = primaryLimit(resp.Response)
	}
	switch {
	case errors.As(err, &rate):
		hint = "GitHub's API rate limit for this token is used up until " + rate.Rate.Reset.UTC().Format(time.RFC3339) +
			": the next scheduled run after that publishes; nothing fetched is lost"
	case primary:
		hint = "GitHub's API rate limit for this token is used up until " + reset +
			": the next scheduled run after that publishes; nothing fetched is lost"
	case errors.As(err, &abuse):
		hint = "GitHub's secondary rate limit held after " + fmt.Sprint(DefaultAttempts) + " tries: the next scheduled run publishes; nothing fetched is lost"
	case errors.As(err, &resp) && resp.Response != nil:
		switch resp.Response.StatusCode {
		case http.StatusUnauthorized:
			hint = "the token was rejected (expired, revoked or malformed): check the repository secret TAXKERNELBOT_TOKEN " +
				"(or, when it is not set, the workflow's GITHUB_TOKEN), which the workflow passes as GITHUB_TOKEN"
		case http.StatusTooManyRequests:
			hint = "GitHub's secondary rate limit held after " + fmt.Sprint(DefaultAttempts) + " tries: the next scheduled run publishes; nothing fetched is lost"
		case http.StatusForbidden:
			hint = "the token (secret TAXKERNELBOT_TOKEN, else the workflow's GITHUB_TOKEN) lacks permission: give the workflow `permissions: contents: write, pull-requests: write`; " +
				"with GITHUB_TOKEN, also allow it in Settings → Actions → General → Workflow permissions → " +
				"\"Allow GitHub Actions to create and approve pull requests\" (repository and organisation), or use a GitHub App token"
		case http.StatusNotFound:
			hint = fmt.Sprintf("GitHub answers 404 both for what does not exist and for what the token may not see: "+
				"check GITHUB_REPOSITORY (%s/%s), GITHUB_API_URL (%s) and that the token can read the repository", c.owner, c.repo, c.api)
		case http.StatusUnprocessableEntity:
			hint = on422
		default:
			if resp.Response.StatusCode >= 500 {
				hint = fmt.Sprintf("GitHub answered with a server error %d times in a row: the next scheduled run tries again; nothing fetched is lost", DefaultAttempts)
			}
		}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
	default:
		hint = "could not reach GITHUB_API_URL (" + c.api + "): check it and the network"
	}
	if hint == "" {
		return err
	}
	return fmt.Errorf("%w (%s)", err, hint)
}

func hasStatus(err error, code int) bool {
	var resp *gh.ErrorResponse
	return errors.As(err, &resp) && resp.Response != nil && resp.Response.StatusCode == code
}

func crlf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// addLabels adds labels to issue or pull request number. go-github's
// AddLabelsToIssue sends a bare JSON array, which GitHub accepts but its
// REST description does not list; this sends the documented form,
// {"labels": [...]}.
func (c *Client) addLabels(ctx context.Context, number int, labels []string) error {
	u := fmt.Sprintf("repos/%v/%v/issues/%d/labels", c.owner, c.repo, number)
	req, err := c.gh.NewRequest(http.MethodPost, u, struct {
		Labels []string `json:"labels"`
	}{labels})
	if err != nil {
		return err
	}
	_, err = c.gh.Do(ctx, req, nil)
	return err
}
