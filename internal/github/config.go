package github

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Default URLs of github.com, used when the environment names no server.
const (
	DefaultServerURL = "https://github.com"
	DefaultAPIURL    = "https://api.github.com"
)

// Config is what the bot needs to know about the repository it publishes
// to, as GitHub Actions describes it in the environment.
type Config struct {
	Owner, Repo string // from GITHUB_REPOSITORY "owner/name"
	ServerURL   string // GITHUB_SERVER_URL, no trailing slash
	APIURL      string // GITHUB_API_URL, no trailing slash
	Token       string // GITHUB_TOKEN; never printed (see String)
	RunID       string // GITHUB_RUN_ID; empty outside Actions
	// AppID and AppKey (TAXKERNELBOT_APP_ID, TAXKERNELBOT_APP_PRIVATE_KEY,
	// the App's PEM key; never printed): when set, the bot mints its own
	// installation tokens and renews them (see AppTokens); Token is then
	// not needed.
	AppID  string
	AppKey []byte
}

// ConfigFromEnv reads the standard Actions variables through getenv
// (os.Getenv in production, a map in tests). GITHUB_REPOSITORY and
// GITHUB_TOKEN are required; GITHUB_SERVER_URL defaults to
// https://github.com and GITHUB_API_URL to https://api.github.com (or, for
// any other server, to its /api/v3, as on GitHub Enterprise Server);
// GITHUB_RUN_ID is optional. Every problem is reported at once, each
// naming its variable and what to set.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	var c Config
	var errs []error

	switch repo := get("GITHUB_REPOSITORY"); {
	case repo == "":
		errs = append(errs, errors.New(`GITHUB_REPOSITORY is not set: run inside GitHub Actions, or set it to "owner/name" of the repository to publish to`))
	default:
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || !validName(owner) || !validName(name) {
			errs = append(errs, fmt.Errorf(`GITHUB_REPOSITORY is %q: want "owner/name", e.g. "taxkernel/taxkernelbot"`, repo))
		} else {
			c.Owner, c.Repo = owner, name
		}
	}

	var err error
	explicitServer := get("GITHUB_SERVER_URL") != ""
	if c.ServerURL, err = baseURL("GITHUB_SERVER_URL", get("GITHUB_SERVER_URL"), DefaultServerURL); err != nil {
		errs = append(errs, err)
	}
	apiDefault := DefaultAPIURL
	if explicitServer && err == nil && c.ServerURL != DefaultServerURL {
		apiDefault = c.ServerURL + "/api/v3" // GitHub Enterprise Server
	}
	if c.APIURL, err = baseURL("GITHUB_API_URL", get("GITHUB_API_URL"), apiDefault); err != nil {
		errs = append(errs, err)
	}

	c.AppID = get("TAXKERNELBOT_APP_ID")
	if key := get("TAXKERNELBOT_APP_PRIVATE_KEY"); key != "" {
		c.AppKey = []byte(key)
	}
	switch {
	case c.AppID != "" && len(c.AppKey) == 0:
		errs = append(errs, errors.New("TAXKERNELBOT_APP_ID is set but TAXKERNELBOT_APP_PRIVATE_KEY is not: pass the App's private key (the .pem file) as a secret too"))
	case c.AppID == "" && len(c.AppKey) > 0:
		errs = append(errs, errors.New("TAXKERNELBOT_APP_PRIVATE_KEY is set but TAXKERNELBOT_APP_ID is not: pass the App's id (its settings page shows it) too"))
	case c.AppID != "":
		if _, err := strconv.ParseInt(c.AppID, 10, 64); err != nil {
			errs = append(errs, fmt.Errorf("TAXKERNELBOT_APP_ID is %q: want the App's numeric id", c.AppID))
		}
		if _, err := ParseAppKey(c.AppKey); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Token = get("GITHUB_TOKEN"); c.Token == "" && c.AppID == "" {
		errs = append(errs, errors.New("GITHUB_TOKEN is not set: give the workflow `permissions: contents: write, pull-requests: write` "+
			"and pass `env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}` (or a GitHub App token, so that the pull request triggers checks)"))
	}
	c.RunID = get("GITHUB_RUN_ID")
	return c, errors.Join(errs...)
}

// validName accepts a GitHub owner or repository name: no slashes, no
// spaces, nothing a URL path would need to escape.
func validName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

// baseURL checks an http(s) base URL (def when v is empty) and returns it
// without trailing slashes, so that joining paths never doubles them.
func baseURL(name, v, def string) (string, error) {
	if v == "" {
		v = def
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%s is %q: want an http(s) URL such as %s, with no credentials, query or fragment", name, v, def)
	}
	return strings.TrimRight(v, "/"), nil
}

// GitURL is the repository's HTTPS clone URL: ServerURL/owner/repo.git.
func (c Config) GitURL() string {
	return c.repoURL() + ".git"
}

// repoURL is the repository's web address.
func (c Config) repoURL() string {
	return strings.TrimRight(c.ServerURL, "/") + "/" + c.Owner + "/" + c.Repo
}

// RunURL links to this workflow run, or is empty outside Actions.
func (c Config) RunURL() string {
	if c.RunID == "" {
		return ""
	}
	return c.repoURL() + "/actions/runs/" + url.PathEscape(c.RunID)
}

// FileURL returns a function linking a file of the repository (a
// slash-separated path such as a stored blob or a derived text under
// snapshots/) as seen at ref: a branch such as "taxkernelbot/update" or,
// better, a commit hash, which never moves.
func (c Config) FileURL(ref string) func(path string) string {
	parts := strings.Split(ref, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	prefix := c.repoURL() + "/blob/" + strings.Join(parts, "/") + "/"
	return func(p string) string {
		if p == "" {
			return ""
		}
		return prefix + p
	}
}

// String describes c without its token, so that logging a Config (%v, %+v)
// never leaks it.
func (c Config) String() string {
	tok := "unset"
	switch {
	case c.AppID != "":
		tok = "minted by App " + c.AppID
	case c.Token != "":
		tok = "set"
	}
	return fmt.Sprintf("github.Config{repo %s/%s, server %s, api %s, run %q, token %s}", c.Owner, c.Repo, c.ServerURL, c.APIURL, c.RunID, tok)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }
