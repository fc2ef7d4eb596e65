package report

import (
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// Entry is one source's line in the report (SPEC §6 field names).
type Entry struct {
	Jurisdiction string       `json:"jurisdiction"`
	ID           string       `json:"id"`
	URL          string       `json:"url"`
	Kind         string       `json:"kind"`
	Title        string       `json:"title"`
	Status       state.Status `json:"status"`
	Since        string       `json:"since,omitempty"`
	HTTPStatus   int          `json:"http_status,omitempty"`
	SHA256       string       `json:"sha256,omitempty"`
	Size         int64        `json:"size,omitempty"`
	ContentType  string       `json:"content_type,omitempty"`
	FinalURL     string       `json:"final_url,omitempty"`
	Detail       string       `json:"detail,omitempty"`
	Encodes      []string     `json:"encodes,omitempty"`
	Gaps         []string     `json:"gaps,omitempty"`
}

// Report is the whole coverage report: {"sources": [...]} in JSON.
type Report struct {
	Sources []Entry `json:"sources"`
}

// Build makes the report of every source in set (sorted by jurisdiction
// then id) from its state. A source with no state is pending.
func Build(set *manifest.Set, st *state.State) *Report {
	panic("TODO")
}

// JSON renders the report as indented JSON with a final newline.
func (r *Report) JSON() ([]byte, error) {
	panic("TODO")
}

// Markdown renders the report for GitHub: a summary table per
// jurisdiction (counts per status), then gaps and failures (everything not
// fresh or pending, plus declared encoding gaps, plus sources whose final
// URL differs from the manifest with a suggestion to update it), then one
// row per source.
func (r *Report) Markdown() []byte {
	panic("TODO")
}

// Write writes dir/coverage.json and dir/coverage.md atomically, each only
// when its bytes changed, and reports whether anything was written.
func (r *Report) Write(dir string) (changed bool, err error) {
	panic("TODO")
}

// Load reads a coverage.json written by Write.
func Load(path string) (*Report, error) {
	panic("TODO")
}
