package report

import (
	"encoding/json"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/audit"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// Where the reports are in the repository: the directory the bot commits
// them to, and the machine-readable report in it, which publishing
// compares with the base branch's.
const (
	Dir      = "reports"
	JSONName = "coverage.json"
	JSONPath = Dir + "/" + JSONName
)

// Entry is one source's line in the report.
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
	// Noisy is set for a source without a declared view that blinks: new
	// bytes at each of its last fetches, the same text.
	Noisy *Noisy `json:"noisy,omitempty"`

	// FRBR places the held bytes in FRBR's levels, when the manifest
	// knows the work (legal_id) or the expression (edition).
	FRBR *manifest.FRBR `json:"frbr,omitempty"`
	// Usage is what the publisher said about the use of the bytes held
	// (see AddUsage); nil when nothing was said.
	Usage *usage.Prefs `json:"usage,omitempty"`
	// Audit is what the source's first fetch found against what its
	// entry promised (package audit): kept, so that a reviewer can read
	// any time what a source turned out to be on its first day.
	Audit *audit.Audit `json:"first_fetch,omitempty"`
}

// Noisy is when a source started blinking and the view suggested for its
// manifest entry.
type Noisy struct {
	Since string `json:"since"`
	// Drop and Ignore are the suggested view's CSS selectors and line
	// expressions; Matched says the suggestion makes the fetches seen read
	// alike.
	Drop    []string `json:"drop,omitempty"`
	Ignore  []string `json:"ignore,omitempty"`
	Matched bool     `json:"matched,omitempty"`
}

// Report is the whole coverage report: {"week": …, "hosts": [...],
// "sources": [...]} in JSON.
type Report struct {
	// Week is the last complete ISO week the hosts' requests are counted
	// to ("2026-W48"); the pages are rendered as of the Monday after it
	// (AsOf). Empty in a report no run has observed yet.
	Week string `json:"week,omitempty"`
	// Hosts is what the state and the ledgers say of each host the
	// pages name, sorted by host: with the sources, the report is all the
	// pages show that the manifests do not say.
	// Manifests is the fingerprint of the manifests the report was
	// rendered for (manifest.Set.Fingerprint): `report --check` holds the
	// pages to these manifests only, since a contributor's change to them
	// is rendered where the pages are published, not by the contributor.
	Manifests string     `json:"manifests,omitempty"`
	Hosts     []HostSeen `json:"hosts,omitempty"`
	Sources   []Entry    `json:"sources"`
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
	r := &Report{Manifests: set.Fingerprint(), Sources: make([]Entry, 0, len(srcs))}
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
		e.FRBR = src.FRBR(s.ContentType, string(s.SHA256))
		e.Audit = s.Audit
		if e.Status == "" {
			e.Status = state.Pending
		}
		// A declared view says the source was looked at: no suggestion.
		if n := s.Noisy; n != nil && src.View.IsZero() {
			e.Noisy = &Noisy{Since: n.Since, Drop: slices.Clone(n.Drop), Ignore: slices.Clone(n.Ignore), Matched: n.Matched}
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

// AddUsage sets each held source's Usage to what of says was said about
// the use of its bytes when they were captured (store.Index.Usage), and
// returns r. An entry of says nothing of keeps its Usage: one Keep took
// from the committed report says what that report said.
func (r *Report) AddUsage(of func(id, sha256 string) *usage.Prefs) *Report {
	for i := range r.Sources {
		if e := &r.Sources[i]; e.SHA256 != "" {
			if p := of(e.ID, e.SHA256); p != nil {
				e.Usage = p
			}
		}
	}
	return r
}

// Keep gives a source rep has no word on (pending) the entry onMain (the
// committed report, nil for none) records for the same URL: a lost or
// younger state is no reason to say a checked document was never
// checked. What the manifests say of the source (its jurisdiction, kind,
// title, what it encodes and its gaps) stays rep's.
func Keep(rep, onMain *Report) *Report {
	if onMain == nil {
		return rep
	}
	known := make(map[string]Entry, len(onMain.Sources))
	for _, m := range onMain.Sources {
		known[m.ID] = m
	}
	for i, e := range rep.Sources {
		m, ok := known[e.ID]
		if e.Status != state.Pending || !ok || m.Status == state.Pending || m.URL != e.URL {
			continue
		}
		m.Jurisdiction, m.Kind, m.Title, m.Encodes, m.Gaps = e.Jurisdiction, e.Kind, e.Title, e.Encodes, e.Gaps
		rep.Sources[i] = m
	}
	return rep
}

// JSON renders the report as indented JSON with a final newline.
func (r *Report) JSON() ([]byte, error) {
	// One source per line: a change to a source is a one-line diff a
	// reviewer reads at a glance, and the file stays small at scale
	// (indentation of every field made it 57 MB at 100,000 sources).
	// Each entry as an Encoder with SetEscapeHTML(false) writes it, so that
	// '&' in query strings stays readable.
	w := newJSONWriter()
	w.b = make([]byte, 0, 64+len(r.Sources)*512) // about an entry's length: one growth at most
	w.b = append(w.b, "{\n"...)
	if r.Week != "" {
		w.b = append(w.b, "  \"week\": "...)
		w.quote(r.Week)
		w.b = append(w.b, ",\n"...)
	}
	if r.Manifests != "" {
		w.b = append(w.b, "  \"manifests\": "...)
		w.quote(r.Manifests)
		w.b = append(w.b, ",\n"...)
	}
	if len(r.Hosts) > 0 {
		w.b = append(w.b, "  \"hosts\": ["...)
		for i := range r.Hosts {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, "\n    "...)
			w.host(&r.Hosts[i])
		}
		w.b = append(w.b, "\n  ],\n"...)
	}
	w.b = append(w.b, "  \"sources\": ["...)
	for i := range r.Sources {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, "\n    "...)
		if err := w.entry(&r.Sources[i]); err != nil {
			return nil, err
		}
	}
	if len(r.Sources) > 0 {
		w.b = append(w.b, "\n  "...)
	}
	return append(w.b, "]\n}\n"...), nil
}

// Write writes dir/coverage.json and the Markdown files (MarkdownFiles:
// dir/coverage.md, and dir/coverage/<jurisdiction>.md when the report is
// large) atomically, each only when its bytes changed, removes the
// per-jurisdiction files a smaller report no longer has, and reports
// whether anything was written.
func (r *Report) Write(dir string) (changed bool, err error) {
	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		return false, err
	}
	defer d.Close()
	return r.WriteIn(d)
}

// WriteIn is Write into a directory already open.
func (r *Report) WriteIn(d *atomicfile.Dir) (changed bool, err error) {
	js, err := r.JSON()
	if err != nil {
		return false, err
	}
	type file struct {
		name string
		data []byte
	}
	files := []file{{JSONName, js}}
	md := r.MarkdownFiles()
	names := slices.Sorted(maps.Keys(md))
	for _, n := range names {
		files = append(files, file{n, md[n]})
	}
	if old, _ := fs.Glob(d.FS(), SplitDir+"/*.md"); len(old) > 0 {
		for _, p := range old {
			if _, keep := md[p]; !keep {
				if err := d.Remove(p); err != nil {
					return changed, err
				}
				changed = true
			}
		}
	}
	for _, f := range files {
		wrote, err := d.WriteFileIfChanged(f.name, f.data, 0o644)
		if err != nil {
			return changed, err
		}
		changed = changed || wrote
	}
	return changed, nil
}

// Parse reads a coverage.json rendered by JSON (from a branch, say).
func Parse(data []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
