package githubtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// The fakes are held to GitHub's published REST API description: every
// request a test sends them (method, path, query, body) and every answer
// they give is validated against the api.github.com description of the
// npm package @octokit/openapi (GitHub's own description, generated from
// github/rest-api-description), and a mismatch fails the test. The
// description is third-party and 13 MB, so the repository does not carry
// it: .ci/run installs the pinned version with
//
//	npm install --prefix .ci/openapi @octokit/openapi@23.0.2
//
// and the tests find it there (searching upwards from the package's folder)
// or at the file named by $TAXKERNELBOT_GITHUB_OPENAPI. Without it the fakes
// still work and say once that they are not validating, except when CI=true:
// there its absence fails the test, so that the check cannot vanish unseen.
const (
	// DescriptionPackage and DescriptionVersion are the npm package and
	// its pinned version; the description's info.version must equal it.
	DescriptionPackage = "@octokit/openapi"
	DescriptionVersion = "23.0.2"
	// DescriptionEnv names a description file to use instead of the
	// installed package.
	DescriptionEnv = "TAXKERNELBOT_GITHUB_OPENAPI"
	// descriptionInstall is where .ci/run installs the package, relative
	// to the module's root.
	descriptionInstall = ".ci/openapi"
	descriptionFile    = "node_modules/@octokit/openapi/generated/api.github.com.json"
)

// keptPaths are the path templates of the description that are loaded:
// those starting with one of these. Loading all 811 paths takes seconds and
// some 400 MB per test binary; these and the components they refer to take
// a fraction of that. A call outside them fails the test, naming this list.
var keptPaths = []string{
	"/repos/{owner}/{repo}/pulls",
	"/repos/{owner}/{repo}/issues",
	"/repos/{owner}/{repo}/releases",
	"/repos/{owner}/{repo}/installation",
	"/app",
	"/installation/",
	"/rate_limit",
}

// anyEndpoint are the statuses GitHub may answer on any endpoint, whether
// or not the description lists them for the operation: bad credentials,
// the rate limits (primary and secondary), a repository that is not there
// or that the token may not see, and server errors. Their body is GitHub's
// basic error, {"message": …, "documentation_url": …}.
var anyEndpoint = []int{401, 403, 404, 429, 500, 502, 503, 504}

var (
	validatedRequests  atomic.Int64
	validatedResponses atomic.Int64
	validating         atomic.Int64 // nanoseconds spent validating

	descOnce sync.Once
	desc     *description
	descErr  error // nil with desc nil: not found (outside CI)
	descMiss string
	missOnce sync.Once
)

type description struct {
	doc    *openapi3.T
	router routers.Router
	path   string
	took   time.Duration
}

// Validated returns how many requests and answers were validated against
// the description so far in this test binary.
func Validated() (requests, responses int64) {
	return validatedRequests.Load(), validatedResponses.Load()
}

// ValidationSummary is one line saying what Validated counts, for a
// TestMain to print when the package's tests have run.
func ValidationSummary() string {
	d, err := loadDescription()
	switch {
	case err != nil:
		return "githubtest: GitHub REST description: " + err.Error()
	case d == nil:
		return "githubtest: GitHub REST description not found, nothing validated (" + descMiss + ")"
	}
	rq, rs := Validated()
	return fmt.Sprintf("githubtest: %d requests and %d answers of the GitHub fakes validated against %s %s (%s, loaded in %s, validating took %s)",
		rq, rs, DescriptionPackage, DescriptionVersion, filepath.Base(d.path), d.took.Round(time.Millisecond),
		time.Duration(validating.Load()).Round(time.Millisecond))
}

// CountsEnv names a file to which Main appends one line per test binary:
// "<binary> <requests> <answers>", the numbers Validated gives, so that a
// run of many packages (.ci/run) can add them up.
const CountsEnv = "TAXKERNELBOT_GITHUB_OPENAPI_COUNTS"

// Main runs a package's tests, prints ValidationSummary after them (seen
// with -v) and appends the counts to $TAXKERNELBOT_GITHUB_OPENAPI_COUNTS
// when set; a test package using the fakes calls it from its TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	if !tried.Load() {
		return code // no fake was started
	}
	rq, rs := Validated()
	fmt.Println(ValidationSummary())
	if p := os.Getenv(CountsEnv); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = fmt.Fprintf(f, "%s %d %d\n", filepath.Base(os.Args[0]), rq, rs)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "githubtest: $%s: %v\n", CountsEnv, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// locateDescription finds the description file, or returns "" with what
// was looked for.
func locateDescription() (path, looked string, err error) {
	if p := os.Getenv(DescriptionEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", "", fmt.Errorf("$%s: %w", DescriptionEnv, err)
		}
		return p, "", nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, descriptionInstall, descriptionFile)
			if _, err := os.Stat(p); err == nil {
				return p, "", nil
			}
			return "", fmt.Sprintf("no %s and $%s unset; `npm install --prefix %s %s@%s` in the repository installs it",
				filepath.Join(descriptionInstall, descriptionFile), DescriptionEnv, descriptionInstall, DescriptionPackage, DescriptionVersion), nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", "no go.mod above the working directory, and $" + DescriptionEnv + " unset", nil
		}
		dir = up
	}
}

var tried atomic.Bool // loadDescription was called

func loadDescription() (*description, error) {
	descOnce.Do(func() {
		tried.Store(true)
		start := clock.Real{}.Now()
		path, looked, err := locateDescription()
		if err != nil || path == "" {
			descErr, descMiss = err, looked
			return
		}
		data, err := os.ReadFile(path)
		if err != nil {
			descErr = err
			return
		}
		data, err = pruneCached(path, data)
		if err != nil {
			descErr = fmt.Errorf("%s: %w", path, err)
			return
		}
		doc, err := openapi3.NewLoader().LoadFromData(data)
		if err != nil {
			descErr = fmt.Errorf("%s: %w", path, err)
			return
		}
		if doc.Info == nil || doc.Info.Version != DescriptionVersion {
			descErr = fmt.Errorf("%s: version %v, want %s %s (the version .ci/run installs)", path, doc.Info, DescriptionPackage, DescriptionVersion)
			return
		}
		// The fakes listen on 127.0.0.1, and the GitHub Enterprise tests
		// put the API under /api/v3 (stripped before routing), so routes
		// match on the path alone.
		doc.Servers = openapi3.Servers{{URL: "/"}}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			descErr = fmt.Errorf("%s: %w", path, err)
			return
		}
		desc = &description{doc: doc, router: router, path: path, took: clock.Since(clock.Real{}, start)}
	})
	return desc, descErr
}

// pruneVersion changes when prune does, so that no stale cache is used.
const pruneVersion = "1"

// pruneCached is prune, kept beside the description for the next test
// binary (a file named by the description's hash and keptPaths): decoding
// the 13 MB description under -race takes seconds, the pruned one a
// fraction. Where the folder is not writable, nothing is kept.
func pruneCached(path string, data []byte) ([]byte, error) {
	h := sha256.New()
	h.Write(data)
	fmt.Fprintf(h, "\x00%s\x00%s", pruneVersion, strings.Join(keptPaths, "\x00"))
	cache := filepath.Join(filepath.Dir(path), "githubtest-pruned-"+hex.EncodeToString(h.Sum(nil))[:24]+".json")
	if b, err := os.ReadFile(cache); err == nil {
		return b, nil
	}
	b, err := prune(data)
	if err != nil {
		return nil, err
	}
	if tmp, err := os.CreateTemp(filepath.Dir(path), ".githubtest-pruned-*"); err == nil {
		_, werr := tmp.Write(b)
		if cerr := tmp.Close(); werr == nil && cerr == nil {
			werr = os.Rename(tmp.Name(), cache)
		}
		if werr != nil {
			os.Remove(tmp.Name())
		}
	}
	return b, nil
}

// prune keeps the paths under keptPaths and the components they refer to,
// and drops the examples (documentation, not constraints). Only what is
// kept is decoded: the rest is scanned, not built, which is what makes the
// load fast (under -race, decoding all of it would take seconds).
func prune(data []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	var paths map[string]json.RawMessage
	if err := json.Unmarshal(top["paths"], &paths); err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no paths (%v)", err)
	}
	var comps map[string]map[string]json.RawMessage
	if err := json.Unmarshal(top["components"], &comps); err != nil {
		return nil, fmt.Errorf("components: %w", err)
	}
	used := map[string]map[string]any{} // kind → name → value
	var walk func(v any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				kind, name, ok := strings.Cut(strings.TrimPrefix(ref, "#/components/"), "/")
				if !ok || !strings.HasPrefix(ref, "#/components/") {
					return fmt.Errorf("$ref %q: only references to components are followed", ref)
				}
				if _, seen := used[kind][name]; !seen {
					raw, ok := comps[kind][name]
					if !ok {
						return fmt.Errorf("$ref %q: no such component", ref)
					}
					var c any
					if err := json.Unmarshal(raw, &c); err != nil {
						return fmt.Errorf("$ref %q: %w", ref, err)
					}
					dropExamples(c)
					if used[kind] == nil {
						used[kind] = map[string]any{}
					}
					used[kind][name] = c
					if err := walk(c); err != nil {
						return err
					}
				}
			}
			for _, e := range v {
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range v {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	kept := map[string]any{}
	for p, raw := range paths {
		if !slices.ContainsFunc(keptPaths, func(k string) bool { return strings.HasPrefix(p, k) }) {
			continue
		}
		var item any
		if err := json.Unmarshal(raw, &item); err != nil {
			return nil, fmt.Errorf("path %s: %w", p, err)
		}
		dropExamples(item)
		if err := walk(item); err != nil {
			return nil, fmt.Errorf("path %s: %w", p, err)
		}
		kept[p] = item
	}
	out := map[string]any{}
	for k, v := range top {
		switch k {
		case "paths", "components", "webhooks", "x-webhooks":
		default:
			out[k] = v
		}
	}
	out["paths"] = kept
	out["components"] = used
	return json.Marshal(out)
}

// dropExamples removes the examples of media types, in place. A schema's
// property could be called "examples", so only content objects lose theirs.
func dropExamples(v any) {
	switch v := v.(type) {
	case map[string]any:
		if content, ok := v["content"].(map[string]any); ok {
			for _, mt := range content {
				if mt, ok := mt.(map[string]any); ok {
					delete(mt, "examples")
					delete(mt, "example")
				}
			}
		}
		for _, e := range v {
			dropExamples(e)
		}
	case []any:
		for _, e := range v {
			dropExamples(e)
		}
	}
}

// Validating wraps a fake's handler so that each request and each answer
// is checked against the description, every mismatch a t.Errorf.
func Validating(t testing.TB, h http.Handler) http.Handler {
	d, err := loadDescription()
	switch {
	case err != nil:
		t.Errorf("githubtest: GitHub REST description: %v", err)
		return h
	case d == nil && os.Getenv("CI") == "true":
		t.Errorf("githubtest: GitHub REST description missing in CI (CI=true), so the fakes cannot be held to it: %s", descMiss)
		return h
	case d == nil:
		missOnce.Do(func() { t.Logf("githubtest: not validating against GitHub's REST description: %s", descMiss) })
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := r.Method + " " + r.URL.RequestURI()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("githubtest: %s: reading the body: %v", call, err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		start := clock.Real{}.Now()
		in, problems := d.request(r, body)
		spent := clock.Since(clock.Real{}, start)
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if in != nil {
			start = clock.Real{}.Now()
			problems = append(problems, d.response(in, rec)...)
			spent += clock.Since(clock.Real{}, start)
		}
		validating.Add(int64(spent))
		for _, p := range problems {
			t.Errorf("githubtest: %s → %d: not as GitHub's REST description says: %s", call, rec.status, p)
		}
		maps.Copy(w.Header(), rec.header)
		w.WriteHeader(rec.status)
		w.Write(rec.body.Bytes())
	})
}

// request validates r; it returns the input for validating the answer, nil
// when there is no operation to hold the answer to.
func (d *description) request(r *http.Request, body []byte) (*openapi3filter.RequestValidationInput, []string) {
	if rePublicDownload.MatchString(r.URL.Path) {
		return nil, nil // github.com's download link: a web page, not the REST API
	}
	req := r.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(body))
	u := *r.URL
	u.Path = strings.TrimPrefix(u.Path, "/api/v3") // GitHub Enterprise Server's prefix
	u.RawPath = ""
	req.URL = &u
	req.RequestURI = ""
	route, params, err := d.router.FindRoute(req)
	if err != nil {
		return nil, []string{fmt.Sprintf("no such operation: %v (or outside the paths githubtest loads: %s)", err, strings.Join(keptPaths, ", "))}
	}
	validatedRequests.Add(1)
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			MultiError: true,
			// The fakes check the bearer token themselves.
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		},
	}
	var problems []string
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		problems = append(problems, "request: "+oneLine(err))
	}
	// GitHub ignores what it does not know; a parameter or field the
	// operation does not have is a filter or a change that silently does
	// nothing.
	declared := map[string]bool{}
	for _, p := range append(slices.Clone(route.PathItem.Parameters), route.Operation.Parameters...) {
		if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
			declared[p.Value.Name] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(req.URL.Query())) {
		if !declared[k] {
			problems = append(problems, fmt.Sprintf("request: query parameter %q is not one of %s's", k, route.Operation.OperationID))
		}
	}
	if len(body) > 0 && route.Operation.RequestBody != nil && route.Operation.RequestBody.Value != nil {
		var obj map[string]any
		if mt := route.Operation.RequestBody.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil &&
			len(mt.Schema.Value.Properties) > 0 && json.Unmarshal(body, &obj) == nil {
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				if _, ok := mt.Schema.Value.Properties[k]; !ok {
					problems = append(problems, fmt.Sprintf("request: body field %q is not one of %s's", k, route.Operation.OperationID))
				}
			}
		}
	}
	return in, problems
}

func (d *description) response(in *openapi3filter.RequestValidationInput, rec *recorder) []string {
	validatedResponses.Add(1)
	op := in.Route.Operation
	if op.Responses.Status(rec.status) == nil && op.Responses.Default() == nil {
		if !slices.Contains(anyEndpoint, rec.status) {
			return []string{fmt.Sprintf("answer: status %d is not one %s gives (%s), nor one any endpoint may give",
				rec.status, op.OperationID, strings.Join(slices.Sorted(maps.Keys(op.Responses.Map())), ", "))}
		}
		var e struct {
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(rec.body.Bytes(), &e); err != nil || e.Message == nil {
			return []string{fmt.Sprintf("answer: status %d wants GitHub's error body {\"message\": …}, got %q", rec.status, rec.body.String())}
		}
		return nil
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 rec.status,
		Header:                 rec.header,
		Body:                   io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		Options:                &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return []string{"answer: " + oneLine(err)}
	}
	return nil
}

// oneLine shortens kin-openapi's errors, which quote whole schemas.
func oneLine(err error) string {
	var msgs []string
	var collect func(prefix string, err error)
	collect = func(prefix string, err error) {
		var me openapi3.MultiError
		var reqErr *openapi3filter.RequestError
		var respErr *openapi3filter.ResponseError
		var se *openapi3.SchemaError
		switch {
		case errors.As(err, &me) && len(me) > 0:
			for _, e := range me {
				collect(prefix, e)
			}
		case errors.As(err, &reqErr):
			where := "body"
			if p := reqErr.Parameter; p != nil {
				where = fmt.Sprintf("%s parameter %q", p.In, p.Name)
			}
			if reqErr.Err == nil {
				msgs = append(msgs, prefix+where+": "+reqErr.Reason)
			} else {
				collect(prefix+where+": ", reqErr.Err)
			}
		case errors.As(err, &respErr) && respErr.Err != nil:
			collect(prefix+respErr.Reason+": ", respErr.Err)
		case errors.As(err, &se):
			msgs = append(msgs, fmt.Sprintf("%sat /%s: %s", prefix, strings.Join(se.JSONPointer(), "/"), se.Reason))
		default:
			s := err.Error()
			if i := strings.Index(s, "\nSchema:"); i >= 0 {
				s = s[:i]
			}
			msgs = append(msgs, prefix+strings.ReplaceAll(s, "\n", " "))
		}
	}
	collect("", err)
	return strings.Join(msgs, "; ")
}

// recorder keeps an answer until it has been validated.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}
