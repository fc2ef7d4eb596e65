package github

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

const (
	testToken = "ghs_test-token-0123"
	head      = "taxkernelbot/update"
)

var listQuery = url.Values{"state": {"open"}, "head": {"octo:" + head}}

func newTestClient(t *testing.T, f *fakeAPI, apiPath string) *Client {
	t.Helper()
	c, err := NewClient(Config{
		Owner: "octo", Repo: "coverage", Token: testToken,
		ServerURL: f.srv.URL, APIURL: f.srv.URL + apiPath,
	}, f.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testPR() PR {
	return PR{Head: head, Base: "main", Title: "TaxKernelBot: 2 documents changed", Body: "## body\n\nline\n", Labels: []string{"taxkernelbot"}}
}

// checkAuth proves the token went with every request, as a bearer token.
func checkAuth(t *testing.T, f *fakeAPI) {
	t.Helper()
	for _, r := range f.requests() {
		if r.Auth != "Bearer "+testToken {
			t.Errorf("%s %s: Authorization %q, want the bearer token", r.Method, r.Path, r.Auth)
		}
		if r.UserAgent != UserAgent {
			t.Errorf("%s %s: User-Agent %q", r.Method, r.Path, r.UserAgent)
		}
	}
}

func TestEnsurePRCreatesAndLabels(t *testing.T) {
	f := newFake(t)
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{})
	f.on("POST", "/repos/octo/coverage/pulls", nil, 201, pull(f.srv.URL, 7, head, "main", "t", "b"))
	f.on("POST", "/repos/octo/coverage/issues/7/labels", nil, 200, objects(f.srv.URL).Labels([]string{"taxkernelbot"}))

	n, u, created, err := newTestClient(t, f, "").EnsurePR(context.Background(), testPR())
	if err != nil {
		t.Fatal(err)
	}
	if n != 7 || !created || u != f.srv.URL+"/octo/coverage/pull/7" {
		t.Errorf("got #%d %q created=%v, want #7 created", n, u, created)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want list, create, label: %+v", len(reqs), reqs)
	}
	want := map[string]any{"title": testPR().Title, "head": head, "base": "main", "body": testPR().Body}
	if d := cmp.Diff(want, reqs[1].Body); d != "" {
		t.Errorf("create body (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]any{"labels": []any{"taxkernelbot"}}, reqs[2].Body); d != "" {
		t.Errorf("labels body (-want +got):\n%s", d)
	}
	checkAuth(t, f)
}

func TestEnsurePREditsWhenBodyDiffers(t *testing.T) {
	f := newFake(t)
	pr := testPR()
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{pull(f.srv.URL, 3, head, "main", pr.Title, "old body")})
	f.on("PATCH", "/repos/octo/coverage/pulls/3", nil, 200, pull(f.srv.URL, 3, head, "main", pr.Title, pr.Body))

	n, _, created, err := newTestClient(t, f, "").EnsurePR(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || created {
		t.Errorf("got #%d created=%v, want #3 edited", n, created)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want list and edit: %+v", len(reqs), reqs)
	}
	// Only what differs is sent: the base stays, no label is added again.
	if d := cmp.Diff(map[string]any{"body": pr.Body}, reqs[1].Body); d != "" {
		t.Errorf("edit body (-want +got):\n%s", d)
	}
	checkAuth(t, f)
}

func TestEnsurePRRetargetsBase(t *testing.T) {
	f := newFake(t)
	pr := testPR()
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{pull(f.srv.URL, 3, head, "develop", "old title", pr.Body)})
	f.on("PATCH", "/repos/octo/coverage/pulls/3", nil, 200, pull(f.srv.URL, 3, head, "main", pr.Title, pr.Body))
	if _, _, _, err := newTestClient(t, f, "").EnsurePR(context.Background(), pr); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"title": pr.Title, "base": "main"}
	if d := cmp.Diff(want, f.requests()[1].Body); d != "" {
		t.Errorf("edit body (-want +got):\n%s", d)
	}
}

func TestEnsurePRIdenticalListsOnly(t *testing.T) {
	f := newFake(t)
	pr := testPR()
	// The body as GitHub's web form keeps it, with CRLF, is the same body.
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{pull(f.srv.URL, 5, head, "main", pr.Title, strings.ReplaceAll(pr.Body, "\n", "\r\n"))})
	n, u, created, err := newTestClient(t, f, "").EnsurePR(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 || created || !strings.HasSuffix(u, "/pull/5") {
		t.Errorf("got #%d %q created=%v", n, u, created)
	}
	if len(f.requests()) != 1 {
		t.Errorf("%d requests, want the list only", len(f.requests()))
	}
	checkAuth(t, f)
}

func TestEnsurePREnterpriseBasePath(t *testing.T) {
	for _, apiPath := range []string{"/api/v3", "/api/v3/"} {
		t.Run(apiPath, func(t *testing.T) {
			f := newFake(t)
			f.on("GET", "/api/v3/repos/octo/coverage/pulls", listQuery, 200, []any{})
			f.on("POST", "/api/v3/repos/octo/coverage/pulls", nil, 201, pull(f.srv.URL, 1, head, "main", "t", "b"))
			f.on("POST", "/api/v3/repos/octo/coverage/issues/1/labels", nil, 200, objects(f.srv.URL+"/api/v3").Labels([]string{"taxkernelbot"}))
			n, _, created, err := newTestClient(t, f, apiPath).EnsurePR(context.Background(), testPR())
			if err != nil || n != 1 || !created {
				t.Fatalf("got #%d created=%v err=%v", n, created, err)
			}
			checkAuth(t, f)
		})
	}
}

func TestEnsurePRForbiddenExplainsPermissions(t *testing.T) {
	f := newFake(t)
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{})
	f.on("POST", "/repos/octo/coverage/pulls", nil, 403, map[string]any{
		"message":           "GitHub Actions is not permitted to create or approve pull requests.",
		"documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
	})
	_, _, _, err := newTestClient(t, f, "").EnsurePR(context.Background(), testPR())
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"create pull request", "403", "permissions", "pull-requests: write", "Allow GitHub Actions to create and approve pull requests"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), testToken) {
		t.Errorf("error leaks the token: %q", err)
	}
}

func TestEnsurePRNotFoundNamesRepository(t *testing.T) {
	f := newFake(t)
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 404, map[string]any{"message": "Not Found"})
	_, _, _, err := newTestClient(t, f, "").EnsurePR(context.Background(), testPR())
	if err == nil || !strings.Contains(err.Error(), "list open pull requests") || !strings.Contains(err.Error(), "GITHUB_REPOSITORY (octo/coverage)") {
		t.Errorf("error %v should say the list failed and to check GITHUB_REPOSITORY", err)
	}
}

func TestEnsurePRLabelFailureIsDistinct(t *testing.T) {
	f := newFake(t)
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{})
	f.on("POST", "/repos/octo/coverage/pulls", nil, 201, pull(f.srv.URL, 9, head, "main", "t", "b"))
	f.on("POST", "/repos/octo/coverage/issues/9/labels", nil, 403, map[string]any{"message": "Resource not accessible by integration"})
	n, u, created, err := newTestClient(t, f, "").EnsurePR(context.Background(), testPR())
	if !errors.Is(err, ErrLabels) {
		t.Fatalf("error %v does not wrap ErrLabels", err)
	}
	if n != 9 || u == "" || !created {
		t.Errorf("got #%d %q created=%v: the created pull request must still be reported", n, u, created)
	}
}

// A concurrent run may open the pull request between our list and create:
// GitHub answers 422, and the one now open is edited instead.
func TestEnsurePRCreateRaceEditsTheOther(t *testing.T) {
	f := newFake(t)
	pr := testPR()
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{})
	f.on("POST", "/repos/octo/coverage/pulls", nil, 422, map[string]any{
		"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
		"errors": []any{map[string]any{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for octo:taxkernelbot/update."}},
	})
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{pull(f.srv.URL, 4, head, "main", "other run", "other body")})
	f.on("PATCH", "/repos/octo/coverage/pulls/4", nil, 200, pull(f.srv.URL, 4, head, "main", pr.Title, pr.Body))
	n, _, created, err := newTestClient(t, f, "").EnsurePR(context.Background(), pr)
	if err != nil || n != 4 || created {
		t.Fatalf("got #%d created=%v err=%v, want #4 edited", n, created, err)
	}
}

func TestEnsurePRUnprocessableExplainsBranch(t *testing.T) {
	f := newFake(t)
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{})
	f.on("POST", "/repos/octo/coverage/pulls", nil, 422, githubtest.Error("Validation Failed"))
	f.on("GET", "/repos/octo/coverage/pulls", listQuery, 200, []any{})
	_, _, _, err := newTestClient(t, f, "").EnsurePR(context.Background(), testPR())
	if err == nil || !strings.Contains(err.Error(), "was pushed") {
		t.Errorf("error %v should point at the head branch", err)
	}
}

func TestEnsurePRRejectsOversizeBody(t *testing.T) {
	f := newFake(t) // no stub: no request may be made
	pr := testPR()
	pr.Body = strings.Repeat("x", MaxBody+1)
	if _, _, _, err := newTestClient(t, f, "").EnsurePR(context.Background(), pr); err == nil {
		t.Error("no error for a body over the limit")
	}
}

func TestNewClientNeedsTokenAndRepo(t *testing.T) {
	for _, c := range []Config{
		{Owner: "o", Repo: "r"},
		{Token: "t"},
		{Owner: "o", Repo: "r", Token: "t", APIURL: "ftp://x"},
	} {
		if _, err := NewClient(c, nil); err == nil {
			t.Errorf("NewClient(%v): no error", c)
		}
	}
	if _, err := NewClient(Config{Owner: "o", Repo: "r", Token: "t"}, &http.Client{}); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
