package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// Objects builds the objects GitHub's REST API answers with for one
// repository, with every property GitHub's description says is required,
// filled with plausible values: API is where the API lives (api.github.com,
// or a GitHub Enterprise Server's /api/v3), Web where its pages are.
type Objects struct {
	API, Web, Owner, Repo string
}

// Bot is the login the objects give the pull requests', issues' and
// comments' author: an App's bot user, as with the recommended token.
const Bot = "taxkernelbot[bot]"

// epoch is when the objects say things happened: the fakes have no clock,
// and the bot reads no time from these objects.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func stamp(minutes int) string {
	return epoch.Add(time.Duration(minutes) * time.Minute).Format(time.RFC3339)
}

func (o Objects) repoAPI() string { return o.API + "/repos/" + o.Owner + "/" + o.Repo }

func nodeID(kind string, n int) string { return kind + "_kwDOfake" + strconv.Itoa(n) }

// SHA is a plausible commit id for name (the same name, the same id).
func SHA(name string) string {
	s := sha1.Sum([]byte(name))
	return hex.EncodeToString(s[:])
}

// User is a simple-user object.
func (o Objects) User(login string) map[string]any {
	api, web := o.API+"/users/"+login, o.Web+"/"+login
	id := 41898282 // the id github-actions[bot] has; any would do
	if login != Bot {
		id = len(login) * 1009
	}
	typ := "User"
	if len(login) > 5 && login[len(login)-5:] == "[bot]" {
		typ = "Bot"
	}
	return map[string]any{
		"login": login, "id": id, "node_id": nodeID("U", id), "type": typ, "site_admin": false,
		"avatar_url": o.Web + "/avatars/u/" + strconv.Itoa(id), "gravatar_id": "",
		"url": api, "html_url": web,
		"followers_url": api + "/followers", "following_url": api + "/following{/other_user}",
		"gists_url": api + "/gists{/gist_id}", "starred_url": api + "/starred{/owner}{/repo}",
		"subscriptions_url": api + "/subscriptions", "organizations_url": api + "/orgs",
		"repos_url": api + "/repos", "events_url": api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
	}
}

// Repository is a repository object of o's repository.
func (o Objects) Repository() map[string]any {
	api := o.repoAPI()
	m := map[string]any{
		"id": 1296269, "node_id": nodeID("R", 1296269), "name": o.Repo, "full_name": o.Owner + "/" + o.Repo,
		"owner": o.User(o.Owner), "private": false, "fork": false, "archived": false, "disabled": false,
		"description": nil, "homepage": nil, "language": nil, "mirror_url": nil, "license": nil,
		"html_url": o.Web + "/" + o.Owner + "/" + o.Repo, "url": api,
		"clone_url": o.Web + "/" + o.Owner + "/" + o.Repo + ".git", "git_url": "git:" + o.Web[len("http:"):] + "/" + o.Owner + "/" + o.Repo + ".git",
		"ssh_url": "git@localhost:" + o.Owner + "/" + o.Repo + ".git", "svn_url": o.Web + "/" + o.Owner + "/" + o.Repo,
		"default_branch": "main", "visibility": "public",
		"has_issues": true, "has_projects": false, "has_wiki": false, "has_pages": false, "has_downloads": true,
		"forks": 0, "forks_count": 0, "open_issues": 0, "open_issues_count": 0, "size": 1,
		"stargazers_count": 0, "watchers": 0, "watchers_count": 0,
		"pushed_at": stamp(0), "created_at": stamp(0), "updated_at": stamp(0),
	}
	for name, tail := range map[string]string{
		"archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}", "blobs_url": "/git/blobs{/sha}",
		"branches_url": "/branches{/branch}", "collaborators_url": "/collaborators{/collaborator}",
		"comments_url": "/comments{/number}", "commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}",
		"contents_url": "/contents/{+path}", "contributors_url": "/contributors", "deployments_url": "/deployments",
		"downloads_url": "/downloads", "events_url": "/events", "forks_url": "/forks", "git_commits_url": "/git/commits{/sha}",
		"git_refs_url": "/git/refs{/sha}", "git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks",
		"issue_comment_url": "/issues/comments{/number}", "issue_events_url": "/issues/events{/number}",
		"issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}",
		"languages_url": "/languages", "merges_url": "/merges", "milestones_url": "/milestones{/number}",
		"notifications_url": "/notifications{?since,all,participating}", "pulls_url": "/pulls{/number}",
		"releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
		"subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags",
		"teams_url": "/teams", "trees_url": "/git/trees{/sha}",
	} {
		m[name] = api + tail
	}
	return m
}

// Label is a label object. Its description is "", not null: the
// description lets a label's description be null, but not inside a pull
// request.
func (o Objects) Label(name string) map[string]any {
	id := 208045946 + len(name)
	return map[string]any{
		"id": id, "node_id": nodeID("LA", id), "url": o.repoAPI() + "/labels/" + name,
		"name": name, "description": "", "color": "ededed", "default": false,
	}
}

// Labels is a list of label objects.
func (o Objects) Labels(names []string) []any {
	out := []any{}
	for _, n := range names {
		out = append(out, o.Label(n))
	}
	return out
}

// Pull is a pull-request object of p, as GET, POST and PATCH on pulls
// give it (a superset of the list's pull-request-simple).
func (o Objects) Pull(p PR) map[string]any {
	api, n := o.repoAPI(), strconv.Itoa(p.Number)
	html := o.Web + "/" + o.Owner + "/" + o.Repo + "/pull/" + n
	state := p.State
	if state == "" {
		state = "open"
	}
	sha := p.HeadSHA
	if sha == "" {
		sha = SHA("head " + p.Head + " #" + n)
	}
	ref := func(branch, sha string) map[string]any {
		return map[string]any{"label": o.Owner + ":" + branch, "ref": branch, "sha": sha, "user": o.User(o.Owner), "repo": o.Repository()}
	}
	link := func(href string) map[string]any { return map[string]any{"href": href} }
	m := map[string]any{
		"url": api + "/pulls/" + n, "id": 1000000 + p.Number, "node_id": nodeID("PR", p.Number),
		"html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch",
		"issue_url": api + "/issues/" + n, "commits_url": api + "/pulls/" + n + "/commits",
		"review_comments_url": api + "/pulls/" + n + "/comments", "review_comment_url": api + "/pulls/comments{/number}",
		"comments_url": api + "/issues/" + n + "/comments", "statuses_url": api + "/statuses/" + sha,
		"number": p.Number, "state": state, "locked": false, "title": p.Title, "body": p.Body,
		"user": o.User(Bot), "labels": o.Labels(p.Labels), "milestone": nil, "active_lock_reason": nil,
		"created_at": stamp(p.Number), "updated_at": stamp(p.Number + len(p.Events)), "closed_at": nil, "merged_at": nil,
		"merge_commit_sha": nil, "assignee": nil, "assignees": []any{}, "requested_reviewers": []any{}, "requested_teams": []any{},
		"head": ref(p.Head, sha), "base": ref(p.Base, SHA("base "+p.Base)),
		"_links": map[string]any{
			"self": link(api + "/pulls/" + n), "html": link(html), "issue": link(api + "/issues/" + n),
			"comments": link(api + "/issues/" + n + "/comments"), "review_comments": link(api + "/pulls/" + n + "/comments"),
			"review_comment": link(api + "/pulls/comments{/number}"), "commits": link(api + "/pulls/" + n + "/commits"),
			"statuses": link(api + "/statuses/" + sha),
		},
		"author_association": "CONTRIBUTOR", "auto_merge": nil, "draft": false,
		"merged": p.Merged, "mergeable": nil, "rebaseable": nil, "mergeable_state": "unknown", "merged_by": nil,
		"comments": len(p.Comments), "review_comments": 0, "maintainer_can_modify": false,
		"commits": 1, "additions": 1, "deletions": 0, "changed_files": 1,
	}
	if state == "closed" {
		m["closed_at"] = stamp(p.Number + len(p.Events))
	}
	if p.Merged {
		m["merged_at"] = stamp(p.Number + len(p.Events))
		m["merge_commit_sha"] = SHA("merge #" + n)
		m["merged_by"] = o.User(o.Owner)
		m["mergeable_state"] = "unknown"
	}
	return m
}

// Issue is an issue object of is.
func (o Objects) Issue(is Issue) map[string]any {
	api, n := o.repoAPI(), strconv.Itoa(is.Number)
	state := is.State
	if state == "" {
		state = "open"
	}
	m := map[string]any{
		"id": 2000000 + is.Number, "node_id": nodeID("I", is.Number), "url": api + "/issues/" + n,
		"repository_url": api, "labels_url": api + "/issues/" + n + "/labels{/name}",
		"comments_url": api + "/issues/" + n + "/comments", "events_url": api + "/issues/" + n + "/events",
		"html_url": o.Web + "/" + o.Owner + "/" + o.Repo + "/issues/" + n,
		"number":   is.Number, "state": state, "title": is.Title, "body": is.Body,
		"user": o.User(Bot), "labels": o.Labels(is.Labels), "assignee": nil, "assignees": []any{}, "milestone": nil,
		"locked": false, "active_lock_reason": nil, "comments": len(is.Comments),
		"created_at": stamp(is.Number), "updated_at": stamp(is.Number + len(is.Comments)), "closed_at": nil,
		"author_association": "CONTRIBUTOR", "state_reason": nil,
	}
	if state == "closed" {
		m["closed_at"] = stamp(is.Number + len(is.Comments))
		m["state_reason"] = cmpOr(is.StateReason, "completed")
	}
	return m
}

// PullAsIssue is pull request p as the issues API lists it: an issue with
// a pull_request member.
func (o Objects) PullAsIssue(p PR) map[string]any {
	m := o.Issue(Issue{Number: p.Number, State: p.State, Title: p.Title, Body: p.Body, Labels: p.Labels, Comments: p.Comments})
	html := o.Web + "/" + o.Owner + "/" + o.Repo + "/pull/" + strconv.Itoa(p.Number)
	m["html_url"] = html
	m["pull_request"] = map[string]any{"url": o.repoAPI() + "/pulls/" + strconv.Itoa(p.Number), "html_url": html,
		"diff_url": html + ".diff", "patch_url": html + ".patch", "merged_at": nil}
	return m
}

// Comment is an issue-comment object: comment id (1, 2, …) on issue or
// pull request number.
func (o Objects) Comment(number, id int, body string) map[string]any {
	api := o.repoAPI()
	cid := 3000000 + number*1000 + id
	return map[string]any{
		"id": cid, "node_id": nodeID("IC", cid), "url": api + "/issues/comments/" + strconv.Itoa(cid),
		"html_url":  fmt.Sprintf("%s/%s/%s/issues/%d#issuecomment-%d", o.Web, o.Owner, o.Repo, number, cid),
		"issue_url": api + "/issues/" + strconv.Itoa(number), "body": body, "user": o.User(Bot),
		"author_association": "CONTRIBUTOR", "created_at": stamp(number + id), "updated_at": stamp(number + id),
	}
}

// Event is the i-th (0, 1, …) event of issue or pull request number's
// timeline, named event (closed, merged, labeled, …).
func (o Objects) Event(number, i int, event string) map[string]any {
	id := number*1000 + i + 1
	m := map[string]any{
		"id": id, "node_id": nodeID("E", id), "url": o.repoAPI() + "/issues/events/" + strconv.Itoa(id),
		"actor": o.User(o.Owner), "event": event, "commit_id": nil, "commit_url": nil,
		"created_at": stamp(number + i), "performed_via_github_app": nil,
	}
	switch event {
	case "labeled", "unlabeled":
		m["label"] = map[string]any{"name": "label", "color": "ededed"}
	case "merged":
		m["commit_id"] = SHA("merge #" + strconv.Itoa(number))
		m["commit_url"] = o.repoAPI() + "/commits/" + m["commit_id"].(string)
	}
	return m
}

// Error is GitHub's error body.
func Error(message string) map[string]any {
	return map[string]any{"message": message, "documentation_url": "https://docs.github.com/rest"}
}

// Installation is the installation of App appID on the repository's owner.
func (o Objects) Installation(id int, appID int64) map[string]any {
	return map[string]any{
		"id": id, "app_id": appID, "app_slug": "taxkernelbot", "client_id": "Iv1.fake",
		"target_id": 1, "target_type": "Organization", "account": o.User(o.Owner),
		"single_file_name": nil, "repository_selection": "selected",
		"access_tokens_url": fmt.Sprintf("%s/app/installations/%d/access_tokens", o.API, id),
		"repositories_url":  o.API + "/installation/repositories",
		"html_url":          fmt.Sprintf("%s/organizations/%s/settings/installations/%d", o.Web, o.Owner, id),
		"events":            []any{},
		"permissions":       map[string]any{"contents": "write", "pull_requests": "write", "issues": "write"},
		"created_at":        stamp(0), "updated_at": stamp(0),
		"suspended_by": nil, "suspended_at": nil,
	}
}

// InstallationToken is a token minted for the repository, expiring at exp.
func (o Objects) InstallationToken(token string, exp time.Time) map[string]any {
	return map[string]any{
		"token": token, "expires_at": exp.UTC().Format(time.RFC3339),
		"permissions":          map[string]any{"contents": "write", "pull_requests": "write", "issues": "write"},
		"repository_selection": "selected",
	}
}
