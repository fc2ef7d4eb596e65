// Package githubtest is a local fake of the part of GitHub's REST API the
// bot uses — pull requests, their labels and comments, issues, releases
// and their assets (with the uploads host assets are sent to and the
// storage a download is redirected to) — that behaves like the real one
// where the bot's decisions depend on it: open, closed and merged pull
// requests, the state and head filters of the list, 422 for a second open
// pull request from one branch, error bodies and rate-limit headers,
// pagination, and uploads that an upstream failure leaves unfinished. It
// checks what go-github sends (the token, JSON bodies) and fails the test
// on any call it does not know. Tests script reviewers with Merge, Close
// and AddLabel, and inject failures with FailNext and BreakNextUploads.
package githubtest

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// PR is a pull request as the fake keeps it.
type PR struct {
	Number      int
	State       string // "open" or "closed"
	Merged      bool
	Head, Base  string
	HeadSHA     string // the head commit; when empty, one made up from Head
	Title, Body string
	Labels      []string
	Comments    []string
	// Events is the pull request's issue-event timeline, oldest first, as
	// GET /repos/{owner}/{repo}/issues/{number}/events names them
	// ("merged", "closed", "head_ref_deleted", "reopened", "labeled").
	Events []string
}

// Issue is an issue as the fake keeps it.
type Issue struct {
	Number      int
	State       string // "open" or "closed"
	StateReason string
	Title, Body string
	Labels      []string
	Comments    []string
}

// Fake is the API of one repository, Owner/Repo, that accepts Token.
type Fake struct {
	URL                string
	Owner, Repo, Token string

	t   testing.TB
	srv *httptest.Server

	mu     sync.Mutex
	prs    []*PR
	issues []*Issue
	next   int // the last number given: issues and pull requests share them, as on GitHub
	calls  []string
	fails  []failure
	app    *app
	// issuesOff, when not 0, is what the issues endpoints answer: 410 as
	// for a repository with Issues turned off, 404 for a token that cannot
	// see them.
	issuesOff int
	rel       releases
}

// IssuesOff makes the issue endpoints answer status (410: Issues turned
// off; 404: not visible to the token) from now on.
func (f *Fake) IssuesOff(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.issuesOff = status
}

// app is a GitHub App installed on the repository: its id and public key,
// the clock its tokens expire on, and the tokens it issued.
type app struct {
	id     string
	key    *rsa.PublicKey
	now    func() time.Time
	ttl    time.Duration
	issued map[string]time.Time // token → expiry
	log    []string
}

type failure struct {
	method, path string
	status       int
	header       http.Header
	body         string
}

// New starts a fake for owner/repo on 127.0.0.1, stopped when the test ends.
func New(t testing.TB, owner, repo, token string) *Fake {
	f := &Fake{Owner: owner, Repo: repo, Token: token, t: t}
	f.srv = httptest.NewServer(Validating(t, http.HandlerFunc(f.serve)))
	t.Cleanup(f.srv.Close)
	f.URL = f.srv.URL
	f.startReleaseHosts()
	return f
}

// FailNext makes the next call to method and path (e.g. "GET",
// "/repos/o/r/pulls") answer status with header and a JSON body carrying
// message, instead of doing its work. Several queue up in order.
func (f *Fake) FailNext(method, path string, status int, header http.Header, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := json.Marshal(Error(message))
	f.fails = append(f.fails, failure{method, path, status, header, string(body)})
}

// Calls returns every call so far, as "METHOD /path".
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// Writes returns the calls so far that are not reads.
func (f *Fake) Writes() []string {
	var out []string
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "GET ") {
			out = append(out, c)
		}
	}
	return out
}

// PRs returns a copy of every pull request, oldest first.
func (f *Fake) PRs() []PR {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]PR, len(f.prs))
	for i, p := range f.prs {
		out[i] = *p
		out[i].Labels = slices.Clone(p.Labels)
		out[i].Comments = slices.Clone(p.Comments)
		out[i].Events = slices.Clone(p.Events)
	}
	return out
}

// Merge closes pull request n as merged (the test moves the branches).
func (f *Fake) Merge(n int) {
	f.set(n, func(p *PR) {
		p.State, p.Merged = "closed", true
		p.Events = append(p.Events, "merged", "closed")
	})
}

// Close closes pull request n without merging: a reviewer's "no".
func (f *Fake) Close(n int) {
	f.set(n, func(p *PR) {
		p.State = "closed"
		p.Events = append(p.Events, "closed")
	})
}

// HeadDeleted is what GitHub does to pull request n when its head branch
// is deleted (the test deletes the branch): an open one is closed, and its
// timeline says why, head_ref_deleted just before closed.
func (f *Fake) HeadDeleted(n int) {
	f.set(n, func(p *PR) {
		p.Events = append(p.Events, "head_ref_deleted")
		if p.State == "open" {
			p.State = "closed"
			p.Events = append(p.Events, "closed")
		}
	})
}

// HeadDeletedFor is HeadDeleted for every pull request from branch head.
func (f *Fake) HeadDeletedFor(head string) {
	for _, p := range f.PRs() {
		if p.Head == head && !p.Merged {
			f.HeadDeleted(p.Number)
		}
	}
}

// AddLabel puts label on pull request n, as a maintainer would.
func (f *Fake) AddLabel(n int, label string) {
	f.set(n, func(p *PR) {
		p.Labels = append(p.Labels, label)
		p.Events = append(p.Events, "labeled")
	})
}

func (f *Fake) set(n int, fn func(*PR)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.prs {
		if p.Number == n {
			fn(p)
			return
		}
	}
	f.t.Fatalf("githubtest: no pull request #%d", n)
}

var (
	reIssues   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues$`)
	reIssue    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)$`)
	rePulls    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls$`)
	rePull     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)$`)
	reLabels   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/labels$`)
	reLabel    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/labels/([^/]+)$`)
	reComments = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`)
	reEvents   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/events$`)
)

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	call := r.Method + " " + r.URL.Path
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	if f.app != nil && f.appCall(w, r, call) {
		return
	}
	if f.publicDownload(w, r) { // github.com's download links ask for no token
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+f.Token && !f.validLocked(strings.TrimPrefix(got, "Bearer ")) {
		f.t.Errorf("githubtest: %s: Authorization %q, want the bearer token or an unexpired installation token", call, got)
		f.reply(w, http.StatusUnauthorized, map[string]any{"message": "Bad credentials"})
		return
	}
	var raw any // an object, or (labels, as GitHub also accepts) an array
	data, _ := io.ReadAll(r.Body)
	if len(data) > 0 && r.Header.Get("Content-Type") != "application/octet-stream" { // not an asset's bytes
		if err := json.Unmarshal(data, &raw); err != nil {
			f.t.Errorf("githubtest: %s: body is not JSON: %v", call, err)
		}
	}
	body, _ := raw.(map[string]any)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-RateLimit-Limit", "5000")
	w.Header().Set("X-RateLimit-Remaining", "4999")
	w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	for i, fl := range f.fails {
		if fl.method == r.Method && fl.path == r.URL.Path {
			f.fails = slices.Delete(f.fails, i, i+1)
			for k, v := range fl.header {
				w.Header()[k] = v
			}
			w.WriteHeader(fl.status)
			io.WriteString(w, fl.body)
			return
		}
	}
	mine := func(m []string) bool { return m != nil && m[1] == f.Owner && m[2] == f.Repo }
	if f.issuesOff != 0 && (mine(reIssues.FindStringSubmatch(r.URL.Path)) || mine(reIssue.FindStringSubmatch(r.URL.Path))) {
		// GitHub's description lists 410 for the calls that write issues,
		// and only 404 for listing them.
		status, msg := f.issuesOff, "Issues are disabled for this repo"
		if status == http.StatusNotFound || r.Method == http.MethodGet {
			status, msg = http.StatusNotFound, "Not Found"
		}
		f.reply(w, status, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest/issues/issues"})
		return
	}
	if f.serveReleases(w, r, body, data) {
		return
	}
	var m []string
	switch {
	case r.Method == "GET" && mine(rePulls.FindStringSubmatch(r.URL.Path)):
		f.list(w, r)
	case r.Method == "POST" && mine(rePulls.FindStringSubmatch(r.URL.Path)):
		f.create(w, body)
	case r.Method == "PATCH" && mine(rePull.FindStringSubmatch(r.URL.Path)):
		m = rePull.FindStringSubmatch(r.URL.Path)
		p := f.find(w, m[3])
		if p == nil {
			return
		}
		if v, ok := body["title"].(string); ok {
			p.Title = v
		}
		if v, ok := body["body"].(string); ok {
			p.Body = v
		}
		f.reply(w, http.StatusOK, f.objects().Pull(*p))
	case r.Method == "POST" && mine(reLabels.FindStringSubmatch(r.URL.Path)):
		p := f.find(w, reLabels.FindStringSubmatch(r.URL.Path)[3])
		if p == nil {
			return
		}
		list, ok := raw.([]any) // the bare array GitHub also accepts
		if !ok {
			list, ok = body["labels"].([]any) // the documented {"labels": [...]}
		}
		if !ok {
			f.t.Errorf("githubtest: %s: want {\"labels\": [names]}", call)
		}
		var labels []string
		for _, l := range list {
			labels = append(labels, fmt.Sprint(l))
		}
		p.Labels = append(p.Labels, labels...)
		p.Events = append(p.Events, "labeled")
		f.reply(w, http.StatusOK, f.objects().Labels(p.Labels))
	case r.Method == "DELETE" && mine(reLabel.FindStringSubmatch(r.URL.Path)):
		m = reLabel.FindStringSubmatch(r.URL.Path)
		p := f.find(w, m[3])
		if p == nil {
			return
		}
		i := slices.Index(p.Labels, m[4])
		if i < 0 {
			f.reply(w, http.StatusNotFound, Error("Label does not exist"))
			return
		}
		p.Labels = slices.Delete(p.Labels, i, i+1)
		f.reply(w, http.StatusOK, f.objects().Labels(p.Labels))
	case r.Method == "POST" && mine(reComments.FindStringSubmatch(r.URL.Path)):
		num := reComments.FindStringSubmatch(r.URL.Path)[3]
		var comments *[]string
		if is := f.issue(num); is != nil {
			comments = &is.Comments
		} else if p := f.find(w, num); p != nil {
			comments = &p.Comments
		} else {
			return
		}
		*comments = append(*comments, fmt.Sprint(body["body"]))
		n, _ := strconv.Atoi(num)
		f.reply(w, http.StatusCreated, f.objects().Comment(n, len(*comments), fmt.Sprint(body["body"])))
	case r.Method == "GET" && mine(reEvents.FindStringSubmatch(r.URL.Path)):
		p := f.find(w, reEvents.FindStringSubmatch(r.URL.Path)[3])
		if p == nil {
			return
		}
		out := []any{}
		if page := r.URL.Query().Get("page"); page == "" || page == "1" { // one page holds them all
			for i, ev := range p.Events {
				out = append(out, f.objects().Event(p.Number, i, ev))
			}
		}
		f.reply(w, http.StatusOK, out)
	case r.Method == "GET" && mine(reIssues.FindStringSubmatch(r.URL.Path)):
		q := r.URL.Query()
		out := []any{}
		for _, is := range f.issues {
			if st := q.Get("state"); st != "all" && is.State != cmpOr(st, "open") {
				continue
			}
			if l := q.Get("labels"); l != "" && !slices.Contains(is.Labels, l) {
				continue
			}
			out = append(out, f.objects().Issue(*is))
		}
		f.reply(w, http.StatusOK, out)
	case r.Method == "POST" && mine(reIssues.FindStringSubmatch(r.URL.Path)):
		f.next++
		is := &Issue{Number: f.next, State: "open", Title: fmt.Sprint(body["title"]), Body: fmt.Sprint(body["body"])}
		if ls, ok := body["labels"].([]any); ok {
			for _, l := range ls {
				is.Labels = append(is.Labels, fmt.Sprint(l))
			}
		}
		f.issues = append(f.issues, is)
		f.reply(w, http.StatusCreated, f.objects().Issue(*is))
	case r.Method == "PATCH" && mine(reIssue.FindStringSubmatch(r.URL.Path)):
		is := f.issue(reIssue.FindStringSubmatch(r.URL.Path)[3])
		if is == nil {
			f.reply(w, http.StatusNotFound, Error("Not Found"))
			return
		}
		for k, dst := range map[string]*string{"state": &is.State, "state_reason": &is.StateReason, "title": &is.Title, "body": &is.Body} {
			if v, ok := body[k].(string); ok {
				*dst = v
			}
		}
		f.reply(w, http.StatusOK, f.objects().Issue(*is))
	default:
		f.t.Errorf("githubtest: unexpected call %s (not part of the fake API)", call)
		f.reply(w, http.StatusNotFound, Error("Not Found"))
	}
}

func (f *Fake) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	out := []any{}                         // an empty list is [], never null
	for i := len(f.prs) - 1; i >= 0; i-- { // newest first, as sort=created&direction=desc
		p := f.prs[i]
		if state != "all" && p.State != state {
			continue
		}
		if h := q.Get("head"); h != "" && h != f.Owner+":"+p.Head {
			continue
		}
		out = append(out, f.objects().Pull(*p))
	}
	f.reply(w, http.StatusOK, out)
}

func (f *Fake) create(w http.ResponseWriter, body map[string]any) {
	head, base := fmt.Sprint(body["head"]), fmt.Sprint(body["base"])
	for _, p := range f.prs {
		if p.State == "open" && p.Head == head && p.Base == base {
			f.reply(w, http.StatusUnprocessableEntity, map[string]any{
				"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
				"errors": []any{map[string]any{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for " + f.Owner + ":" + head + "."}},
			})
			return
		}
	}
	f.next++
	p := &PR{Number: f.next, State: "open", Head: head, Base: base, Title: fmt.Sprint(body["title"]), Body: fmt.Sprint(body["body"])}
	f.prs = append(f.prs, p)
	f.reply(w, http.StatusCreated, f.objects().Pull(*p))
}

func (f *Fake) issue(num string) *Issue {
	n, _ := strconv.Atoi(num)
	for _, is := range f.issues {
		if is.Number == n {
			return is
		}
	}
	return nil
}

// Issues returns a copy of every issue, oldest first.
func (f *Fake) Issues() []Issue {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Issue, len(f.issues))
	for i, is := range f.issues {
		out[i] = *is
		out[i].Labels = slices.Clone(is.Labels)
		out[i].Comments = slices.Clone(is.Comments)
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (f *Fake) find(w http.ResponseWriter, num string) *PR {
	n, _ := strconv.Atoi(num)
	for _, p := range f.prs {
		if p.Number == n {
			return p
		}
	}
	f.reply(w, http.StatusNotFound, Error("Not Found"))
	return nil
}

func (f *Fake) objects() Objects {
	return Objects{API: f.URL, Web: f.URL, Owner: f.Owner, Repo: f.Repo}
}

func (f *Fake) reply(w http.ResponseWriter, status int, v any) {
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		f.t.Errorf("githubtest: encoding an answer: %v", err)
	}
}

// InstallApp installs a GitHub App on the repository: installation tokens
// are minted (POST /app/installations/1/access_tokens, with a JWT that
// key's private half signed, issuer id) and accepted until ttl has passed
// on now's clock. A call with a token after its expiry fails the test.
func (f *Fake) InstallApp(id string, key *rsa.PublicKey, now func() time.Time, ttl time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.app = &app{id: id, key: key, now: now, ttl: ttl, issued: map[string]time.Time{}}
}

// TokenValid reports whether tok is the fake's fixed token or an
// installation token not yet expired: what a git server in front of the
// same repository accepts.
func (f *Fake) TokenValid(tok string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return tok == f.Token || f.validLocked(tok)
}

// Minted lists the installation tokens issued, as "token until expiry",
// in order.
func (f *Fake) Minted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.app == nil {
		return nil
	}
	return slices.Clone(f.app.log)
}

func (f *Fake) validLocked(tok string) bool {
	if f.app == nil {
		return false
	}
	exp, ok := f.app.issued[tok]
	if ok && !f.app.now().Before(exp) {
		f.t.Errorf("githubtest: installation token %s used at %s, after its expiry at %s", tok, f.app.now().Format(time.RFC3339), exp.Format(time.RFC3339))
		return false
	}
	return ok
}

// appCall serves the App's own endpoints; it reports whether r was one.
func (f *Fake) appCall(w http.ResponseWriter, r *http.Request, call string) bool {
	installation := r.Method == "GET" && r.URL.Path == "/repos/"+f.Owner+"/"+f.Repo+"/installation"
	mint := r.Method == "POST" && r.URL.Path == "/app/installations/1/access_tokens"
	if !installation && !mint {
		return false
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if err := f.app.verifyJWT(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")); err != nil {
		f.t.Errorf("githubtest: %s: %v", call, err)
		f.reply(w, http.StatusUnauthorized, map[string]any{"message": "A JSON web token could not be decoded"})
		return true
	}
	if installation {
		appID, _ := strconv.ParseInt(f.app.id, 10, 64)
		f.reply(w, http.StatusOK, f.objects().Installation(1, appID))
		return true
	}
	now := f.app.now().UTC()
	tok := fmt.Sprintf("ghs_%d_%d", len(f.app.issued)+1, now.Unix())
	exp := now.Add(f.app.ttl)
	f.app.issued[tok] = exp
	f.app.log = append(f.app.log, fmt.Sprintf("%s minted at %s, until %s", tok, now.Format(time.RFC3339), exp.Format(time.RFC3339)))
	f.reply(w, http.StatusCreated, f.objects().InstallationToken(tok, exp))
	return true
}

// verifyJWT checks an App's JWT as GitHub does: RS256 by the App's key,
// issued by the App, not expired, valid at most 10 minutes.
func (a *app) verifyJWT(tok string) error {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return fmt.Errorf("not a JWT: %q", tok)
	}
	enc := base64.RawURLEncoding
	sig, err := enc.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(a.key, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("JWT signature: %w", err)
	}
	var header struct{ Alg string }
	if data, err := enc.DecodeString(parts[0]); err != nil || json.Unmarshal(data, &header) != nil || header.Alg != "RS256" {
		return fmt.Errorf("JWT header %q: want alg RS256", parts[0])
	}
	var claims struct {
		Iat, Exp int64
		Iss      string
	}
	data, err := enc.DecodeString(parts[1])
	if err != nil || json.Unmarshal(data, &claims) != nil {
		return fmt.Errorf("JWT claims %q do not decode", parts[1])
	}
	now := a.now().Unix()
	switch {
	case claims.Iss != a.id:
		return fmt.Errorf("JWT issuer %q, want the App's id %q", claims.Iss, a.id)
	case claims.Exp <= now || claims.Iat > now+60:
		return fmt.Errorf("JWT valid %d–%d, not at %d", claims.Iat, claims.Exp, now)
	case claims.Exp-claims.Iat > 600:
		return fmt.Errorf("JWT valid %d s, GitHub allows at most 600", claims.Exp-claims.Iat)
	}
	return nil
}
