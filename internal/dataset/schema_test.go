package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestFilesMatchTheSchemas: a dataset's index.json and coverage.json are
// what the published schemas of snapshots/index.json and
// reports/coverage.json describe, so a reader can check them with those.
func TestFilesMatchTheSchemas(t *testing.T) {
	f := newFixture(t)
	cov, err := os.ReadFile("../../reports/coverage.json")
	must(t, err)
	f.in.Coverage = cov
	dir, _ := build(t, f.in)
	for file, sch := range map[string]string{IndexName: "index.schema.json", CoverageName: "coverage.schema.json"} {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		c.DefaultDraft(jsonschema.Draft2020)
		s, err := c.Compile(filepath.Join("../../schemas", sch))
		must(t, err)
		data, err := os.ReadFile(filepath.Join(dir, file))
		must(t, err)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		must(t, err)
		if err := s.Validate(v); err != nil {
			t.Errorf("%s does not match %s: %v", file, sch, err)
		}
	}
}
