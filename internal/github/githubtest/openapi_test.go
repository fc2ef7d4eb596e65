package githubtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// recordingTB keeps the errors a validated server reports instead of
// failing the test.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.errs
	r.errs = nil
	return out
}

// needDescription skips a test that needs the description when it is not
// installed, except in CI, where Validating itself fails the test.
func needDescription(t *testing.T) {
	t.Helper()
	d, err := loadDescription()
	if err != nil {
		t.Fatal(err)
	}
	if d == nil && os.Getenv("CI") != "true" {
		t.Skipf("GitHub's REST description is not installed: %s", descMiss)
	}
}

// TestValidatingCatchesMismatches: each departure from the description,
// in a request or in an answer, is one error naming the call and why;
// exchanges as GitHub has them pass.
func TestValidatingCatchesMismatches(t *testing.T) {
	needDescription(t)
	rec := &recordingTB{TB: t}
	var answer struct {
		status int
		body   string
	}
	srv := httptest.NewServer(Validating(rec, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(answer.status)
		io.WriteString(w, answer.body)
	})))
	defer srv.Close()
	o := Objects{API: srv.URL, Web: srv.URL, Owner: "o", Repo: "r"}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	pr := o.Pull(PR{Number: 1, State: "open", Head: "h", Base: "main", Title: "t", Body: "b", Labels: []string{"x"}})
	incomplete := o.Pull(PR{Number: 1, Head: "h", Base: "main"})
	delete(incomplete, "node_id")

	for _, c := range []struct {
		name, method, path, body string
		status                   int
		answer                   string
		want                     string // "" for no error
	}{
		{"list as GitHub has it", "GET", "/repos/o/r/pulls?state=open&head=o:h&per_page=100", "", 200, js([]any{pr}), ""},
		{"empty list", "GET", "/repos/o/r/pulls", "", 200, "[]", ""},
		{"empty list as null", "GET", "/repos/o/r/pulls", "", 200, "null", "not nullable"},
		{"a state GitHub does not have", "GET", "/repos/o/r/pulls?state=opened", "", 200, "[]", `query parameter "state"`},
		{"a filter GitHub ignores", "GET", "/repos/o/r/pulls?labels=x", "", 200, "[]", `query parameter "labels" is not one of pulls/list's`},
		{"a body field GitHub ignores", "PATCH", "/repos/o/r/pulls/1", `{"title":"t","labels":["x"]}`, 200, js(pr), `body field "labels"`},
		{"create without base", "POST", "/repos/o/r/pulls", `{"head":"h","title":"t"}`, 201, js(pr), `property "base" is missing`},
		{"labels as the documented object", "POST", "/repos/o/r/issues/1/labels", `{"labels":["x"]}`, 200, js(o.Labels([]string{"x"})), ""},
		{"labels as a bare array", "POST", "/repos/o/r/issues/1/labels", `["x"]`, 200, js(o.Labels([]string{"x"})), "value must be an object"},
		{"an answer lacking a required field", "PATCH", "/repos/o/r/pulls/1", `{"title":"t"}`, 200, js(incomplete), `at /node_id: property "node_id" is missing`},
		{"a status the operation does not give", "PATCH", "/repos/o/r/pulls/1", `{"title":"t"}`, 418, `{"message":"teapot"}`, "status 418 is not one pulls/update gives"},
		{"a server error, as any endpoint may give", "GET", "/repos/o/r/pulls", "", 502, `{"message":"Server Error"}`, ""},
		{"a server error without GitHub's error body", "GET", "/repos/o/r/pulls", "", 502, "<html>", "wants GitHub's error body"},
		{"an operation GitHub does not have", "DELETE", "/repos/o/r/pulls/1", "", 204, "", "no such operation"},
		{"Enterprise Server's prefix", "GET", "/api/v3/repos/o/r/issues/1/events", "", 200, js([]any{o.Event(1, 0, "closed"), o.Event(1, 1, "labeled")}), ""},
		{"an issue", "POST", "/repos/o/r/issues", `{"title":"t","body":"b","labels":["x"]}`, 201, js(o.Issue(Issue{Number: 2, Title: "t", Labels: []string{"x"}})), ""},
		{"a comment", "POST", "/repos/o/r/issues/2/comments", `{"body":"b"}`, 201, js(o.Comment(2, 1, "b")), ""},
	} {
		answer.status, answer.body = c.status, c.answer
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		errs := rec.take()
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s: want no error, got %q", c.name, errs)
		case c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], c.want)):
			t.Errorf("%s: want one error with %q, got %q", c.name, c.want, errs)
		case c.want != "" && !strings.Contains(errs[0], c.method+" "+c.path):
			t.Errorf("%s: the error does not name the call: %q", c.name, errs[0])
		}
	}
}

// TestMissingDescription: without the description the fakes work and say
// that they do not validate, but with CI=true its absence fails the test.
func TestMissingDescription(t *testing.T) {
	if os.Getenv("GITHUBTEST_CHILD") == "1" {
		f := New(t, "o", "r", "tok")
		req, _ := http.NewRequest("GET", f.URL+"/repos/o/r/pulls", nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return
	}
	for _, ci := range []string{"", "true"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingDescription$", "-test.v")
		cmd.Dir = t.TempDir() // no go.mod above: nothing found
		cmd.Env = append(os.Environ(), "GITHUBTEST_CHILD=1", "CI="+ci, DescriptionEnv+"=", CountsEnv+"=")
		out, err := cmd.CombinedOutput()
		switch {
		case ci == "" && (err != nil || !strings.Contains(string(out), "not validating against GitHub's REST description")):
			t.Errorf("CI unset: want a pass that says it is not validating; %v:\n%s", err, out)
		case ci == "true" && (err == nil || !strings.Contains(string(out), "missing in CI")):
			t.Errorf("CI=true: want a failure naming the missing description; %v:\n%s", err, out)
		}
	}
}
