package schemas_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"
)

// diagnostic is one line an editor underlines, as the YAML language server
// reports it.
type diagnostic struct {
	File      string `json:"file"`
	Line, Col int
	Message   string `json:"message"`
	Done      bool   `json:"done"`
}

// editorDiagnostics opens files in the YAML language server (the one
// editors run, from npm) and returns what it says of each, by file. It
// skips unless interoptest.NPMDirEnv names a folder with
// node_modules/yaml-language-server (.ci/interop.sh sets it up).
func editorDiagnostics(t *testing.T, files ...string) map[string][]diagnostic {
	t.Helper()
	out := interoptest.Run(t, "yaml-diagnostics.cjs", "yaml-language-server", files...)
	got := map[string][]diagnostic{}
	done := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var d diagnostic
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("yaml-diagnostics.cjs printed %q: %v", sc.Text(), err)
		}
		if d.Done {
			done[d.File] = true
			continue
		}
		got[d.File] = append(got[d.File], d)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("yaml-diagnostics.cjs: %v", err)
	}
	for _, f := range files {
		if !done[f] {
			t.Fatalf("the language server never validated %s", f)
		}
	}
	return got
}

// editorWorkspace is a folder laid out like the repository, with the
// schemas beside manifests/, so that the files' schema comments resolve
// as they do in a clone.
func editorWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	names, err := filepath.Glob("*.schema.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no schemas here: %v", err)
	}
	for _, dir := range []string{"schemas", "manifests"} {
		if err := os.MkdirAll(filepath.Join(ws, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "schemas", n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

var firstKind = regexp.MustCompile(`(?m)^(\s+kind:\s*)\S+`)

// TestInteropYAMLLanguageServer holds the schemas against the editor's own
// reader: every manifest of the repository is clean in it, the same file
// with one wrong kind is underlined (so the schema comment did resolve),
// a typical contributor's mistakes are underlined where they are, and on
// every testdata manifest the editor and the schema validator these tests
// use agree on "has a problem".
func TestInteropYAMLLanguageServer(t *testing.T) {
	manifestSchema, policySchema := schema(t, "manifest.schema.json"), schema(t, "policy.schema.json")
	ws := editorWorkspace(t)
	var files []string
	write := func(rel string, data []byte) string {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
		return p
	}

	repo, err := filepath.Glob(filepath.Join("..", "manifests", "*.yaml"))
	if err != nil || len(repo) < 2 {
		t.Fatalf("manifests: %v %v", repo, err)
	}
	mutated := map[string]string{} // the copy with a wrong kind -> its manifest
	for _, p := range repo {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, abs)
		if filepath.Base(p) == "policy.yaml" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !firstKind.Match(data) {
			t.Fatalf("%s has no kind: line to spoil", p)
		}
		bad := firstKind.ReplaceAll(data, []byte("${1}webpage"))
		mutated[write(filepath.Join("manifests", "wrong-kind-"+filepath.Base(p)), bad)] = abs
	}

	mistakes := write(filepath.Join("manifests", "uk.yaml"), []byte(`# yaml-language-server: $schema=../schemas/manifest.schema.json
jurisdiction: uk
name: United Kingdom
timezone: Europe/London

sources:
  - id: uk-rates
    url: https://www.gov.uk/rates#bands
    kind: webpage
    titel: Rates
`))

	// The testdata manifests carry no schema comment: give each one, as a
	// contributor's editor would read it in manifests/.
	type tdFile struct{ key, schemaSays string }
	testdata := map[string]tdFile{}
	root := filepath.Join("..", "internal", "manifest", "testdata")
	tdFiles, err := filepath.Glob(filepath.Join(root, "*", "*.yaml"))
	if err != nil || len(tdFiles) < 30 {
		t.Fatalf("testdata: %d files, %v", len(tdFiles), err)
	}
	for _, p := range tdFiles {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		key := filepath.Base(filepath.Dir(p)) + "/" + filepath.Base(p)
		comment := "# yaml-language-server: $schema=../../schemas/manifest.schema.json\n"
		if filepath.Base(p) == "policy.yaml" {
			comment = strings.Replace(comment, "manifest", "policy", 1)
		}
		copyPath := write(filepath.Join("td", key), append([]byte(comment), data...))
		testdata[copyPath] = tdFile{key, schemaProblem(p, data, manifestSchema, policySchema)}
	}

	got := editorDiagnostics(t, files...)

	for _, p := range repo {
		abs, _ := filepath.Abs(p)
		for _, d := range got[abs] {
			t.Errorf("%s:%d:%d: the editor underlines %q", p, d.Line, d.Col, d.Message)
		}
	}
	for copyPath, of := range mutated {
		found := false
		for _, d := range got[copyPath] {
			found = found || strings.Contains(d.Message, `Valid values: "rates-page"`)
		}
		if !found {
			t.Errorf("%s with kind: webpage: the editor underlines %v, want the kind refused (does its schema comment resolve?)", of, got[copyPath])
		}
	}

	want := []diagnostic{
		{Line: 7, Col: 5, Message: `Missing property "title".`},
		{Line: 8, Col: 10, Message: "an absolute https:// URL without user@ or #fragment, port 1-65535"},
		{Line: 9, Col: 11, Message: `Value is not accepted. Valid values: "rates-page", "tax-table", "withholding-schedule", "legislation", "gazette".`},
		{Line: 10, Col: 5, Message: "Property titel is not allowed."},
	}
	if g := got[mistakes]; len(g) != len(want) {
		t.Errorf("a manifest with four mistakes: the editor underlines %d places, want %d:\n%v", len(g), len(want), g)
	} else {
		for i, w := range want {
			if g[i].Line != w.Line || g[i].Col != w.Col || g[i].Message != w.Message {
				t.Errorf("mistake %d: editor says %d:%d %q, want %d:%d %q", i+1, g[i].Line, g[i].Col, g[i].Message, w.Line, w.Col, w.Message)
			}
		}
	}

	seen := map[string]bool{}
	for copyPath, f := range testdata {
		editor := got[copyPath]
		why, listed := editorSilent[f.key]
		switch {
		case listed:
			seen[f.key] = true
			if len(editor) > 0 || f.schemaSays == "" {
				t.Errorf("%s is listed as silent in the editor (%s), but the editor says %v and the schema validator %q: update the list", f.key, why, editor, f.schemaSays)
			}
		case len(editor) > 0 && f.schemaSays == "":
			t.Errorf("%s: the editor underlines %v, the schema validator accepts it", f.key, editor)
		case len(editor) == 0 && f.schemaSays != "":
			t.Errorf("%s: the schema validator refuses it (%s), the editor underlines nothing", f.key, f.schemaSays)
		}
	}
	for key := range editorSilent {
		if !seen[key] {
			t.Errorf("editorSilent lists %s, which is not in the testdata", key)
		}
	}
}

// editorSilent lists the testdata files the schema refuses and the editor
// does not underline, with why. It must stay exact.
var editorSilent = map[string]string{
	"two-documents/uk.yaml":  "the schema comment belongs to the first document, so the editor checks only that one; the schema validator here checks every document, and validate refuses a second one outright",
	"empty-manifest/uk.yaml": "an empty file is no document to an editor, so there is nothing to check; to the schema (and to validate) it is null where a manifest must be",
}
