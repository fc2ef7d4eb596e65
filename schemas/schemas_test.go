// The tests of this directory check the JSON Schemas beside them against
// what the code accepts and writes: validate and the manifest and policy
// schemas agree on every manifest under internal/manifest/testdata (or the
// difference is listed below, with why), and the index and coverage
// schemas accept the committed files and everything the code can write.
package schemas_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// schema compiles one schema of this directory, with format assertions on
// (the regex of a view's ignore list).
func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	sch, err := c.Compile(name)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return sch
}

// yamlDocs reads every document of a YAML file as JSON values, so that
// each is checked against the schema (stricter than an editor, which
// applies a file's schema comment to the first document only; see
// editorSilent). An error is what the editor shows as a YAML problem
// (syntax, a key set twice).
func yamlDocs(data []byte) ([]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, v)
	}
	if len(docs) == 0 {
		docs = []any{nil} // an empty file is an empty document
	}
	out := make([]any, len(docs))
	for i, d := range docs {
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		if out[i], err = jsonschema.UnmarshalJSON(bytes.NewReader(b)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// schemaProblem is what the schema (or the YAML reader before it) says of
// one manifest file, "" when it accepts it.
func schemaProblem(path string, data []byte, manifestSchema, policySchema *jsonschema.Schema) string {
	docs, err := yamlDocs(data)
	if err != nil {
		return "YAML: " + err.Error()
	}
	sch := manifestSchema
	if filepath.Base(path) == "policy.yaml" {
		sch = policySchema
	}
	var problems []string
	for _, d := range docs {
		if err := sch.Validate(d); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return strings.Join(problems, "\n")
}

// onlyValidate lists the files that validate refuses and the schemas
// accept, with why no JSON Schema can say it. Every other file of the
// testdata must be accepted by both or refused by both; this list must
// stay exact, so a schema that learns to catch one of these fails the
// test until the entry is removed.
var onlyValidate = map[string]string{
	"alias/uk.yaml":               "a YAML alias is valid YAML, resolved before any schema sees the value; validate refuses it so that a reviewer reads each value where it applies",
	"dup-id/uk.yaml":              "ids are unique across all manifests: a schema sees one file",
	"dup-url/uk.yaml":             "URLs are unique across all manifests (after normalisation): a schema sees one file",
	"faster-than-policy/uk.yaml":  "a host may only be slower than policy.yaml, another file; and min ≤ max compares two durations, which JSON Schema cannot",
	"legal-id-url/nz.yaml":        "a jurisdiction's own identifier scheme starts with the jurisdiction, and a written edition must agree with the one the URL pins: both compare two values, which JSON Schema cannot",
	"private-allowed/policy.yaml": "allow_private_networks is refused when a manifest names a public host: another file",
	"stem-mismatch/gb.yaml":       "the jurisdiction must equal the file name, which a schema never sees",
}

// TestManifestSchemaAgreesWithValidate runs validate on each testdata
// directory and the schemas on each of its files, and compares, per file,
// "has an error".
func TestManifestSchemaAgreesWithValidate(t *testing.T) {
	manifestSchema, policySchema := schema(t, "manifest.schema.json"), schema(t, "policy.schema.json")
	root := filepath.Join("..", "internal", "manifest", "testdata")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	checked := 0
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "fuzz" {
			continue
		}
		dir := filepath.Join(root, d.Name())
		_, diags := manifest.Load(dir)
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := f.Name()
			if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
				continue
			}
			path := filepath.Join(dir, name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var validateSays []string
			for _, dg := range diags {
				if dg.File == path && dg.Severity == manifest.Error {
					validateSays = append(validateSays, dg.String())
				}
			}
			schemaSays := schemaProblem(path, data, manifestSchema, policySchema)
			key := d.Name() + "/" + name
			checked++
			switch why, listed := onlyValidate[key]; {
			case listed:
				seen[key] = true
				if len(validateSays) == 0 || schemaSays != "" {
					t.Errorf("%s is listed as refused by validate only (%s), but validate says %q and the schema says %q: update the list", key, why, validateSays, schemaSays)
				}
			case len(validateSays) > 0 && schemaSays == "":
				t.Errorf("%s: validate refuses it and the schema accepts it; teach the schema, or list it in onlyValidate with why\nvalidate: %s", key, strings.Join(validateSays, "\n"))
			case len(validateSays) == 0 && schemaSays != "":
				t.Errorf("%s: validate accepts it and the schema refuses it: the schema is stricter than the rules\nschema: %s", key, schemaSays)
			}
		}
	}
	for key := range onlyValidate {
		if !seen[key] {
			t.Errorf("onlyValidate lists %s, which is not in the testdata", key)
		}
	}
	if checked < 30 {
		t.Errorf("only %d manifest files checked; is the testdata where this test looks?", checked)
	}
}

// SchemaComment is the first line of every file in manifests/: the
// yaml-language-server modeline that lets an editor complete and check
// fields while a contributor types.
func schemaComment(name string) string {
	if name == "policy.yaml" {
		return "# yaml-language-server: $schema=../schemas/policy.schema.json"
	}
	return "# yaml-language-server: $schema=../schemas/manifest.schema.json"
}

// TestRepositoryManifests checks that every manifest of the repository
// names its schema on its first line, that the schema accepts it, and
// that validate does too (the comment is only a comment to it).
func TestRepositoryManifests(t *testing.T) {
	manifestSchema, policySchema := schema(t, "manifest.schema.json"), schema(t, "policy.schema.json")
	dir := filepath.Join("..", "manifests")
	if _, diags := manifest.Load(dir); diags.HasErrors() {
		t.Fatalf("validate refuses manifests/: %v", diags)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(names) < 2 {
		t.Fatalf("manifests: %v %v", names, err)
	}
	for _, path := range names {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		if want := schemaComment(filepath.Base(path)); first != want {
			t.Errorf("%s:1: the first line is %q; want %q", path, first, want)
		}
		if p := schemaProblem(path, data, manifestSchema, policySchema); p != "" {
			t.Errorf("%s: the schema refuses it:\n%s", path, p)
		}
		if _, err := os.Stat(filepath.Join(dir, strings.TrimPrefix(schemaComment(filepath.Base(path)), "# yaml-language-server: $schema="))); err != nil {
			t.Errorf("%s: the schema it names is not there: %v", path, err)
		}
	}
}

// TestSchemaFindsMistakes shows the schema at work on what a contributor
// types, one mistake at a time, and that it says where.
func TestSchemaFindsMistakes(t *testing.T) {
	sch := schema(t, "manifest.schema.json")
	good := `jurisdiction: uk
name: United Kingdom
timezone: Europe/London
hosts:
  www.gov.uk:
    delay: {min: 5s, max: 8s}
    off_peak: ["Mon-Fri 20:00-07:00", "Sat-Sun"]
sources:
  - id: uk-income-tax-rates
    url: https://www.gov.uk/income-tax-rates
    kind: rates-page
    title: Income Tax rates
    recheck: 7d
`
	for _, tc := range []struct{ from, to, where string }{
		{"kind: rates-page", "kind: webpage", "/sources/0/kind"},
		{"title: Income", "titel: Income", "/sources/0"},
		{"recheck: 7d", "recheck: 7 days", "/sources/0/recheck"},
		{"recheck: 7d", "recheck: 1h7d", "/sources/0/recheck"},
		{"id: uk-income-tax-rates", "id: UK_Rates", "/sources/0/id"},
		{"\"Sat-Sun\"", "\"Sat-Sun 24:00-07:00\"", "/hosts/www.gov.uk/off_peak/1"},
		{"\"Sat-Sun\"", "\"Sa\"", "/hosts/www.gov.uk/off_peak/1"},
		{"max: 8s", "maxi: 8s", "/hosts/www.gov.uk/delay"},
		{"www.gov.uk:\n", "https://www.gov.uk/:\n", "invalid propertyName 'https://www.gov.uk/'"},
		{"income-tax-rates\n    kind", "income-tax-rates#bands\n    kind", "/sources/0/url"},
		{"https://www.gov.uk/income", "https://me@www.gov.uk/income", "/sources/0/url"},
		{"https://www.gov.uk/income", "ftp://www.gov.uk/income", "/sources/0/url"},
		{"timezone: Europe/London", "timezone: Local", "/timezone"},
		{"off_peak: [\"Mon-Fri 20:00-07:00\", \"Sat-Sun\"]", "off_peak: Sat", "/hosts/www.gov.uk/off_peak"},
	} {
		if !strings.Contains(good, tc.from) {
			t.Fatalf("%q is not in the example", tc.from)
		}
		bad := strings.Replace(good, tc.from, tc.to, 1)
		docs, err := yamlDocs([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		err = sch.Validate(docs[0])
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s → %s: accepted (%v)", tc.from, tc.to, err)
			continue
		}
		if where := tc.where; !strings.Contains(fmt.Sprintf("%v", err), where) && !strings.Contains(fmt.Sprintf("%v", err), "at '"+where) {
			t.Errorf("%s → %s: the error does not point at %s:\n%v", tc.from, tc.to, tc.where, err)
		}
	}
	docs, err := yamlDocs([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(docs[0]); err != nil {
		t.Errorf("the example is refused: %v", err)
	}
}

func jsonFile(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func jsonBytes(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sumOf is the store's name of a blob of b.
func sumOf(b []byte) store.Sum {
	s := sha256.Sum256(b)
	return store.Sum(hex.EncodeToString(s[:]))
}

// TestIndexSchema checks the committed snapshots/index.json and an index
// with every field the store writes.
func TestIndexSchema(t *testing.T) {
	sch := schema(t, "index.schema.json")
	if err := sch.Validate(jsonFile(t, filepath.Join("..", "snapshots", "index.json"))); err != nil {
		t.Errorf("snapshots/index.json: %v", err)
	}
	ix := store.NewIndex()
	a, b := sumOf([]byte("a")), sumOf([]byte("b"))
	ix.Add("uk-rates", store.Entry{SHA256: a, Size: 1, ContentType: "text/html; charset=utf-8", FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-11-01",
		Status: 200, Fetched: "2026-11-01T21:04:05Z", Header: map[string]string{"ETag": `"x"`, "Content-Type": "text/html"}}, "")
	ix.Add("uk-rates", store.Entry{SHA256: b, Size: 1, FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-11-02",
		Sent: &store.Sent{SHA256: sumOf([]byte("b, gzipped")), Size: 10, Encoding: "gzip"}}, a)
	ix.Add("uk-rates", store.Entry{SHA256: a, Size: 1, FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-11-03"}, b)
	ix.Add("uk-other", store.Entry{SHA256: a, Size: 1, FinalURL: "https://www.gov.uk/other", FirstSeen: "2026-11-03", Usage: examplePrefs}, "")
	if got := ix.Entries("uk-rates"); len(got) != 2 || len(got[0].Returned) != 1 {
		t.Fatalf("the example index is not what it is meant to be: %+v", got)
	}
	data, err := ix.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(jsonBytes(t, data)); err != nil {
		t.Errorf("a written index is refused: %v\n%s", err, data)
	}
	// And it is not a schema that accepts anything.
	for _, bad := range []string{
		`{"sources": {"uk-rates": [{"sha256": "ABC", "size": 1, "final_url": "u", "first_seen": "2026-11-01"}]}}`,
		`{"sources": {"uk-rates": [{"sha256": "` + string(a) + `", "size": 1, "final_url": "u", "first_seen": "1 Nov 2026"}]}}`,
		`{"sources": {"uk-rates": [{"sha256": "` + string(a) + `", "size": 1, "final_url": "u", "first_seen": "2026-11-01", "extra": 1}]}}`,
		`{"sources": {}, "version": 2}`,
		`{"sources": {"uk-rates": [{"sha256": "` + string(a) + `", "size": 1, "final_url": "u", "first_seen": "2026-11-01", "usage": {"content_usage": {"train-ai": "n"}}}]}}`,
		`{"sources": {"uk-rates": [{"sha256": "` + string(a) + `", "size": 1, "final_url": "u", "first_seen": "2026-11-01", "sent": {"sha256": "` + string(b) + `", "size": 1}}]}}`,
	} {
		if err := sch.Validate(jsonBytes(t, []byte(bad))); err == nil {
			t.Errorf("accepted: %s", bad)
		}
	}
}

// examplePrefs has every field preferences can have.
var examplePrefs = usage.Combine([]usage.Statement{
	{Field: usage.ContentUsage, From: "robots.txt line 4", Path: "/ai-ok/", Value: "train-ai=y, new-label=?0"},
	{Field: usage.ContentSignal, From: "robots.txt line 2", Value: "search=yes, ai-train=no"},
	{Field: usage.ContentUsage, From: "header", Value: "Train-AI=n"},
})

// statuses are every status a report entry can have.
var statuses = []state.Status{
	state.Pending, state.Fresh, state.Failing, state.Gone, state.BlockedRobots, state.RobotsUnavailable,
	state.Unreachable, state.Excluded, state.Paused, state.Moved, state.TooLarge,
}

// TestCoverageSchema checks the committed reports/coverage.json, the
// report golden file and a report with every status and every field.
func TestCoverageSchema(t *testing.T) {
	sch := schema(t, "coverage.schema.json")
	for _, path := range []string{
		filepath.Join("..", "reports", "coverage.json"),
		filepath.Join("..", "internal", "report", "testdata", "coverage.golden.json"),
	} {
		if err := sch.Validate(jsonFile(t, path)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	rep := &report.Report{Week: "2026-W48", Hosts: []report.HostSeen{
		{Host: "www.gov.uk", Robots: "read, obeyed; 1 source(s) disallowed", Requests: []int{0, 4, 1, 12}},
		{Host: "x.gov.uk", Robots: "none (HTTP 404): everything allowed"},
	}}
	for i, s := range statuses {
		rep.Sources = append(rep.Sources, report.Entry{
			Jurisdiction: "uk", ID: fmt.Sprintf("uk-%02d", i), URL: "https://www.gov.uk/x?a=1&b=2", Kind: "rates-page", Title: "T <&>",
			Status: s, Since: "2026-11-01", HTTPStatus: 200, SHA256: string(sumOf([]byte{byte(i)})), Size: 10,
			ContentType: "text/html", FinalURL: "https://www.gov.uk/y", Detail: "d", Encodes: []string{"uk.x"}, Gaps: []string{"g"},
			Noisy: &report.Noisy{Since: "2026-11-02", Drop: []string{".ts"}, Ignore: []string{"at .*"}, Matched: true},
			FRBR: manifest.Source{Legal: &manifest.LegalID{Scheme: "eli", ID: "http://www.legislation.gov.uk/id/ukpga/2007/3"},
				Edition: &manifest.Edition{Type: "point-in-time", Date: "2024-04-06", FromURL: true}}.FRBR("text/html; charset=utf-8", string(sumOf([]byte{byte(i)}))),
			Usage: examplePrefs,
		})
	}
	data, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(jsonBytes(t, data)); err != nil {
		t.Errorf("a written report is refused: %v", err)
	}
	var s struct {
		Defs struct {
			Entry struct {
				Properties struct {
					Status struct {
						Enum []state.Status `json:"enum"`
					} `json:"status"`
				} `json:"properties"`
			} `json:"entry"`
		} `json:"$defs"`
	}
	raw, err := os.ReadFile("coverage.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	got, want := slices.Sorted(slices.Values(s.Defs.Entry.Properties.Status.Enum)), slices.Sorted(slices.Values(statuses))
	if !slices.Equal(got, want) {
		t.Errorf("the schema's statuses are %v; the report's are %v", got, want)
	}
	bad := strings.Replace(string(data), `"status":"fresh"`, `"status":"ok"`, 1)
	if err := sch.Validate(jsonBytes(t, []byte(bad))); err == nil {
		t.Error("a report with status ok is accepted")
	}
}
