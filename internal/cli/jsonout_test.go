package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// decode reads stdout as one JSON document into v, refusing a field v
// does not document and anything after the document.
func decode(t *testing.T, stdout string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("not one JSON document of %T (%v):\n%s", v, err, stdout)
	}
	if dec.More() {
		t.Fatalf("more than one JSON document:\n%s", stdout)
	}
}

func TestValidateJSON(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"test-a", "http://127.0.0.1:1/a", ""}, src{"b-rates", "http://127.0.0.1:1/b", "    colour: blue\n"})
	// Under GitHub Actions too: stdout is the document, and nothing else.
	code, stdout, stderr := runMain(t, map[string]string{"GITHUB_ACTIONS": "true"}, "validate", "--json", "--manifests", w.Manifests, "--state", t.TempDir())
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2 for a manifest with an error\n%s%s", code, stdout, stderr)
	}
	var r validateReport
	decode(t, stdout, &r)
	file := filepath.Join(w.Manifests, "test.yaml")
	if r.Manifests != w.Manifests || r.Valid || r.Counts.Errors != 1 || r.Counts.Warnings != 1 || len(r.Diagnostics) != 2 {
		t.Fatalf("got %+v", r)
	}
	for _, d := range r.Diagnostics {
		if d.File != file || d.Line == 0 || d.Column == 0 || d.Message == "" {
			t.Errorf("diagnostic without its place or message: %+v", d)
		}
		switch d.Severity {
		case "error":
			if !strings.Contains(d.Message, `unknown key "colour"`) || d.Line != 15 || d.Column != 5 {
				t.Errorf("the error: %+v", d)
			}
		case "warning":
			if !strings.Contains(d.Message, `"b-rates" does not start with "test-"`) || d.Fix != "prefix ids with their jurisdiction, e.g. test-b-rates" {
				t.Errorf("the warning and its fix: %+v", d)
			}
		default:
			t.Errorf("severity %q", d.Severity)
		}
	}

	w.writeManifest("", src{"test-a", "http://127.0.0.1:1/a", ""})
	code, stdout, _ = runMain(t, nil, "validate", "--json", "--manifests", w.Manifests, "--state", t.TempDir())
	r = validateReport{}
	decode(t, stdout, &r)
	if code != ExitOK || !r.Valid || r.Counts != (validateCounts{Manifests: 1, Sources: 1, Hosts: 1}) || r.Diagnostics == nil || len(r.Diagnostics) != 0 {
		t.Errorf("valid manifests: exit %d, %+v", code, r)
	}
}

func TestRunDryRunJSON(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"test-a", a.url("/a"), ""}, src{"test-b", a.url("/b"), ""})
	code, stdout, stderr := runMain(t, map[string]string{"GITHUB_ACTIONS": "true"}, "run", "--dry-run", "--json",
		"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var p dryRunPlan
	decode(t, stdout, &p)
	if p.Requests != 3 || len(p.Hosts) != 1 || p.Hosts[0].Host != a.host() || len(p.Hosts[0].Requests) != 3 {
		t.Fatalf("plan %+v, want robots.txt and two documents of one host", p)
	}
	h := p.Hosts[0]
	if r := h.Requests[0]; r.Purpose != "robots" || r.URL != a.url("/robots.txt") || r.AtMS != 0 || r.Source != "" {
		t.Errorf("first request %+v, want robots.txt at 0", r)
	}
	if h.WaitMS < 10 || h.WaitMS != h.Requests[2].AtMS {
		t.Errorf("wait %dms, want the last request's, two delays of at least 5ms", h.WaitMS)
	}
	if len(h.Sources) != 2 || h.Sources[0].ID != "test-a" || h.Sources[0].URL != a.url("/a") || h.Sources[0].Action != "request" || h.Sources[0].AtMS == nil || *h.Sources[0].AtMS != h.Requests[1].AtMS {
		t.Errorf("sources %+v", h.Sources)
	}
	if len(a.seen()) != 0 {
		t.Errorf("a dry run sent %v", a.paths())
	}

	// After a run, nothing is due: the sources are skipped, and why.
	w.run(ctx, func(o *runOptions) { o.Only = "test-a" })
	_, stdout, _ = runMain(t, nil, "run", "--dry-run", "--json", "--only", "test-a",
		"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State)
	p = dryRunPlan{}
	decode(t, stdout, &p)
	if len(p.Hosts) != 1 || len(p.Hosts[0].Sources) == 0 {
		t.Fatalf("plan %+v", p)
	}
	for _, s := range p.Hosts[0].Sources {
		if s.ID == "test-a" && (s.Action == "request") == (s.Why != "") {
			t.Errorf("source %+v: a reason is given for all but a request", s)
		}
	}
	// --json is the plan's: a run's output is the report.
	if code, _, stderr := runMain(t, nil, "run", "--json", "--manifests", w.Manifests); code != ExitUsage || !strings.Contains(stderr, "--dry-run") {
		t.Errorf("run --json without --dry-run: exit %d, %s", code, stderr)
	}
}

func TestVerifyJSON(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("rates")})
	w := newWorkspace(t, testPolicy, "", src{"test-rates", a.url("/rates"), ""})
	w.run(ctx)
	code, stdout, _ := runMain(t, nil, "verify", "--json", "--snapshots", w.Snapshots)
	var r verifyReport
	decode(t, stdout, &r)
	if code != ExitOK || !r.OK || r.Target != "snapshots" || r.Dir != w.Snapshots || r.Counts != (verifyCounts{Sources: 1, Blobs: 1}) || r.Problems == nil || len(r.Problems) != 0 {
		t.Errorf("a good store: exit %d, %+v", code, r)
	}
	sum := w.report()["test-rates"].SHA256
	blob := filepath.Join(w.Snapshots, "sha256", sum[:2], sum)
	must(t, os.Chmod(blob, 0o644))
	must(t, os.WriteFile(blob, []byte("tampered"), 0o644))
	code, stdout, stderr := runMain(t, nil, "verify", "--json", "--snapshots", w.Snapshots)
	r = verifyReport{}
	decode(t, stdout, &r)
	if code != ExitFailures || r.OK || r.Counts.Problems != 1 || len(r.Problems) != 1 || r.Problems[0].Path != blob || !strings.Contains(r.Problems[0].Message, "corrupt") {
		t.Errorf("a tampered blob: exit %d, %+v\n%s", code, r, stderr)
	}
	// A dataset: its own counts.
	code, stdout, _ = runMain(t, nil, "verify", "--json", "--dataset", t.TempDir())
	r = verifyReport{}
	decode(t, stdout, &r)
	if code != ExitFailures || r.Target != "dataset" || r.OK || r.Counts.Problems == 0 || r.Counts.Problems != len(r.Problems) {
		t.Errorf("an empty folder as a dataset: exit %d, %+v", code, r)
	}
}

func TestRobotsJSON(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nAllow: /private/open\nDisallow: /private/\nCrawl-delay: 0.01\n"),
		"/rates":      text("rates"),
	})
	w := newWorkspace(t, testPolicy, "", src{"test-rates", a.url("/rates"), ""})
	w.run(ctx)
	robots := func(u string) robotsAnswer {
		t.Helper()
		code, stdout, stderr := runMain(t, nil, "robots", "--json", "--manifests", w.Manifests, "--state", w.State, u)
		if code != ExitOK {
			t.Fatalf("robots %s: exit %d\n%s", u, code, stderr)
		}
		var r robotsAnswer
		decode(t, stdout, &r)
		return r
	}
	r := robots(a.url("/private/x"))
	if r.URL != a.url("/private/x") || r.Agent != "TaxKernelBot" || r.Decision != "disallowed" || r.Group != "*" ||
		r.Rule == nil || *r.Rule != (robotsRule{Directive: "Disallow", Pattern: "/private/", Line: 3}) || r.CrawlDelaySeconds != 0.01 || r.Reason == "" {
		t.Errorf("a disallowed URL: %+v (rule %+v)", r, r.Rule)
	}
	if r.Copy.URL != a.url("/robots.txt") || r.Copy.HTTPStatus != 200 || r.Copy.Outcome != "parsed" || !r.Copy.Current || r.Copy.Fetched == "" {
		t.Errorf("the copy: %+v", r.Copy)
	}
	if r := robots(a.url("/private/open")); r.Decision != "allowed" || r.Rule == nil || r.Rule.Directive != "Allow" || r.Rule.Line != 2 {
		t.Errorf("an allowed URL: %+v (rule %+v)", r, r.Rule)
	}
	if r := robots(a.url("/rates")); r.Decision != "allowed" || r.Rule != nil {
		t.Errorf("a URL no rule matches: %+v (rule %+v)", r, r.Rule)
	}
}

// Every field a --json document has is named in its command's --help.
func TestJSONFieldsAreInTheHelp(t *testing.T) {
	for cmd, v := range map[string]any{
		"validate": validateReport{}, "run": dryRunPlan{}, "verify": verifyReport{}, "robots": robotsAnswer{}, "cite": citation{},
		"refs": refsReport{}, "refs --suggest": refsSuggestions{},
	} {
		_, help, _ := runMain(t, nil, strings.Fields(cmd)[0], "--help")
		for _, name := range jsonNames(reflect.TypeOf(v)) {
			if !strings.Contains(help, name) {
				t.Errorf("%s --help does not name the JSON field %s", cmd, name)
			}
		}
	}
}

// jsonNames are the JSON field names of a struct type and of the structs
// it holds.
func jsonNames(typ reflect.Type) []string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" && f.Anonymous {
			// An embedded struct's fields are the document's own.
			names = append(names, jsonNames(f.Type)...)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		names = append(names, name)
		names = append(names, jsonNames(f.Type)...)
	}
	return names
}
