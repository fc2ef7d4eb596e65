package report

import (
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// A held source's line says what its publisher said about the use of the
// bytes held, in coverage.md and coverage.json; a source with nothing
// said, or nothing held, says nothing.
func TestReportShowsUsagePreferences(t *testing.T) {
	prefs := usage.Combine([]usage.Statement{{Field: usage.ContentUsage, From: "header", Value: "train-ai=n"}})
	sum := strings.Repeat("ab", 32)
	r := &Report{Sources: []Entry{
		{Jurisdiction: "uk", ID: "uk-said", URL: "https://www.gov.uk/said", Kind: "rates-page", Title: "Said", Status: state.Fresh, SHA256: sum, Size: 1},
		{Jurisdiction: "uk", ID: "uk-quiet", URL: "https://www.gov.uk/quiet", Kind: "rates-page", Title: "Quiet", Status: state.Fresh, SHA256: sum, Size: 1},
		{Jurisdiction: "uk", ID: "uk-pending", URL: "https://www.gov.uk/pending", Kind: "rates-page", Title: "Pending", Status: state.Pending},
	}}
	asked := map[string]bool{}
	r.AddUsage(func(id, sha string) *usage.Prefs {
		asked[id] = true
		if id == "uk-said" && sha == sum {
			return prefs
		}
		return nil
	})
	if asked["uk-pending"] || !asked["uk-said"] {
		t.Errorf("asked for %v, want the held sources only", asked)
	}
	md := string(r.Markdown())
	var said, quiet string
	for line := range strings.SplitSeq(md, "\n") {
		switch {
		case strings.HasPrefix(line, "| `uk-said`"):
			said = line
		case strings.HasPrefix(line, "| `uk-quiet`"):
			quiet = line
		}
	}
	if !strings.HasSuffix(said, "[Said](https://www.gov.uk/said) · usage preferences: Content-Usage train-ai=n |") {
		t.Errorf("uk-said's row: %q", said)
	}
	if strings.Contains(quiet, "usage") {
		t.Errorf("uk-quiet's row: %q", quiet)
	}
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `"usage":{"content_usage":{"train-ai":"n"},"statements":[{"field":"Content-Usage","from":"header","value":"train-ai=n"}]}`; strings.Count(string(js), want) != 1 {
		t.Errorf("coverage.json does not hold %s once:\n%s", want, js)
	}
}
