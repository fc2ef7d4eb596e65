package github

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

// fakeAPI is a local GitHub REST API in the manner of cli/cli's httpmock:
// a test registers each call it expects (method, path, and the query
// values that must be present) with a canned answer; any other call fails
// the test, and so does a registered call that was never made. Every
// request is recorded for the test to inspect.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu    sync.Mutex
	stubs []*stub
	reqs  []request
}

type stub struct {
	method, path string
	query        url.Values // each value must be present as given
	status       int
	resp         any // encoded as JSON
	header       http.Header
	used         bool
}

type request struct {
	Method, Path string
	Query        url.Values
	Body         any // decoded JSON, nil when none
	Auth         string
	UserAgent    string
}

// newFake starts the fake on 127.0.0.1. Stub paths are full paths, so a
// test chooses where the API lives: at the root as on api.github.com, or
// under /api/v3 as on GitHub Enterprise Server.
func newFake(t *testing.T) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t}
	f.srv = httptest.NewServer(githubtest.Validating(t, http.HandlerFunc(f.serve)))
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, s := range f.stubs {
			if !s.used {
				t.Errorf("registered %s %s was never called", s.method, s.path)
			}
		}
	})
	return f
}

// onHeader is on with response headers (rate limits, Retry-After).
func (f *fakeAPI) onHeader(method, path string, query url.Values, status int, header http.Header, resp any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stubs = append(f.stubs, &stub{method: method, path: path, query: query, status: status, resp: resp, header: header})
}

// on registers one expected call; calls to the same method and path are
// answered by their stubs in registration order, each once.
func (f *fakeAPI) on(method, path string, query url.Values, status int, resp any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stubs = append(f.stubs, &stub{method: method, path: path, query: query, status: status, resp: resp})
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("%s %s: reading body: %v", r.Method, r.URL, err)
	}
	req := request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Auth: r.Header.Get("Authorization"), UserAgent: r.Header.Get("User-Agent")}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &req.Body); err != nil {
			f.t.Errorf("%s %s: body is not JSON: %v: %q", r.Method, r.URL, err, data)
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	var match *stub
	for _, s := range f.stubs {
		if !s.used && s.method == r.Method && s.path == r.URL.Path && hasQuery(r.URL.Query(), s.query) {
			match = s
			break
		}
	}
	if match != nil {
		match.used = true
	}
	f.mu.Unlock()

	if match == nil {
		f.t.Errorf("unexpected call %s %s (nobody registered it)", r.Method, r.URL)
		w.WriteHeader(http.StatusNotImplemented)
		io.WriteString(w, `{"message":"unexpected call in fake GitHub API"}`)
		return
	}
	for k, vs := range match.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(match.status)
	if err := json.NewEncoder(w).Encode(match.resp); err != nil {
		f.t.Errorf("encoding response: %v", err)
	}
}

func hasQuery(got, want url.Values) bool {
	for k, vs := range want {
		for _, v := range vs {
			if !slices.Contains(got[k], v) {
				return false
			}
		}
	}
	return true
}

// requests returns a copy of what was recorded so far.
func (f *fakeAPI) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

// objects builds GitHub's answers for octo/coverage, complete as GitHub's
// REST description requires them (every fake answer is validated).
func objects(srvURL string) githubtest.Objects {
	return githubtest.Objects{API: srvURL, Web: srvURL, Owner: "octo", Repo: "coverage"}
}

// pull is a pull request as the API returns it.
func pull(srvURL string, number int, head, base, title, body string) map[string]any {
	return objects(srvURL).Pull(githubtest.PR{Number: number, State: "open", Head: head, Base: base, Title: title, Body: body})
}
