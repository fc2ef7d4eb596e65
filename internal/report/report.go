package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
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
	// Sort a copy: the set is shared with the rest of the pipeline.
	srcs := slices.Clone(set.Sources)
	slices.SortStableFunc(srcs, func(a, b manifest.Source) int {
		if c := strings.Compare(a.Jurisdiction, b.Jurisdiction); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	r := &Report{Sources: make([]Entry, 0, len(srcs))}
	for _, src := range srcs {
		s := st.Source(src.ID)
		e := Entry{
			Jurisdiction: src.Jurisdiction,
			ID:           src.ID,
			URL:          src.URL,
			Kind:         string(src.Kind),
			Title:        src.Title,
			Status:       s.Status,
			Since:        s.Since,
			HTTPStatus:   s.HTTPStatus,
			SHA256:       string(s.SHA256), // the report shows hashes as text
			Size:         s.Size,
			ContentType:  s.ContentType,
			Detail:       s.Detail,
			Encodes:      slices.Clone(src.Encodes),
			Gaps:         slices.Clone(src.Gaps),
		}
		if e.Status == "" {
			e.Status = state.Pending
		}
		// A final URL equal to the manifest's says nothing and would only
		// make reviewers look for a redirect that did not happen.
		if s.FinalURL != src.URL {
			e.FinalURL = s.FinalURL
		}
		r.Sources = append(r.Sources, e)
	}
	return r
}

// JSON renders the report as indented JSON with a final newline.
func (r *Report) JSON() ([]byte, error) {
	out := *r
	if out.Sources == nil {
		out.Sources = []Entry{} // "sources": [] rather than null
	}
	// An Encoder rather than MarshalIndent only to keep '&' in query
	// strings readable in the committed file's diffs; otherwise the same
	// bytes, final newline included.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes dir/coverage.json and dir/coverage.md atomically, each only
// when its bytes changed, and reports whether anything was written.
func (r *Report) Write(dir string) (changed bool, err error) {
	js, err := r.JSON()
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"coverage.json", js},
		{"coverage.md", r.Markdown()},
	} {
		path := filepath.Join(dir, f.name)
		// Rewriting identical bytes would still touch the mtime, which
		// tools watching the directory take for a change.
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.data) {
			continue
		}
		if err := atomicfile.WriteFile(path, f.data, 0o644); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// Load reads a coverage.json written by Write.
func Load(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *PathError: already names the file
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Parse reads a coverage.json rendered by JSON (from a branch, say).
func Parse(data []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
