package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/view"
)

// Kind is what a source is. Only the constants below are valid.
type Kind string

const (
	RatesPage           Kind = "rates-page"
	TaxTable            Kind = "tax-table"
	WithholdingSchedule Kind = "withholding-schedule"
	Legislation         Kind = "legislation"
	Gazette             Kind = "gazette"
)

// DefaultRecheck is how often a source is re-checked when it does not say.
const DefaultRecheck = 24 * time.Hour

// Source is one listed URL.
type Source struct {
	Jurisdiction string
	ID           string
	URL          string   // normalised (see NormalizeURL)
	Parsed       *url.URL // URL, parsed
	Host         string   // authority, see HostOf
	Kind         Kind
	Title        string
	// Recheck is the time after a check before the source is due again;
	// zero makes it due at every run.
	Recheck time.Duration
	// Never (recheck: never) marks bytes that do not change once published
	// (gazettes): once they are held the source is not requested again.
	Never   bool
	Encodes []string
	Gaps    []string
	// Accept lists the sha256 of answers a reviewer has accepted as the
	// document although they look like something else (a page really
	// replaced by a withdrawal notice, which reads like a page-not-found
	// page): they are recorded as versions, not as evidence.
	Accept []string
	// View is how the source's text is looked at to decide whether it
	// changed (elements to drop, lines to ignore); zero is the default
	// view.
	View view.Spec
	File string // manifest path, for messages
	Line int    // line of the source's `id:`

	// Legal is the law's own identifier of the document (legal_id), nil
	// when not given; Edition which edition the URL serves (edition, or
	// what the URL pins), nil when unknown.
	Legal   *LegalID
	Edition *Edition
}

// Manifest is one jurisdiction's file.
type Manifest struct {
	Jurisdiction string
	Name         string
	Timezone     string
	Location     *time.Location
	File         string
	Sources      []Source
}

// Set is everything a run needs from manifests/.
type Set struct {
	Policy    policy.Policy
	Manifests []Manifest // sorted by jurisdiction
	Sources   []Source   // all sources, sorted by jurisdiction then id
	// Hosts holds the effective settings of every host a source names,
	// merged across manifests (the strictest wins) and with floors applied.
	Hosts map[string]policy.Host
	// fingerprint is Fingerprint, computed once, when first asked for:
	// only a rendering of the pages needs it. Nil for a Set not read from
	// a directory.
	fingerprint func() string
}

// Host returns the effective settings of host, or the policy's defaults for a
// host that no source names (a redirect target, say).
func (s *Set) Host(host string) policy.Host {
	if h, ok := s.Hosts[host]; ok {
		return h
	}
	return s.Policy.HostFor(host)
}

// Source returns the source with id.
func (s *Set) Source(id string) (Source, bool) {
	for _, src := range s.Sources {
		if src.ID == id {
			return src, true
		}
	}
	return Source{}, false
}

// SourceByURL returns the source whose normalised URL is u.
func (s *Set) SourceByURL(u string) (Source, bool) {
	n, err := NormalizeURL(u)
	if err != nil {
		return Source{}, false
	}
	for _, src := range s.Sources {
		if src.URL == n {
			return src, true
		}
	}
	return Source{}, false
}

// Load reads dir/policy.yaml (optional) and every other dir/*.yaml. It never
// touches the network. It returns a usable Set only when no diagnostic is an
// error; warnings come with a Set.
func Load(dir string) (*Set, Diagnostics) {
	return load(dir, nil)
}

func load(dir string, base *Base) (*Set, Diagnostics) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, Diagnostics{{File: dir, Severity: Error, Message: fmt.Sprintf("cannot read the manifest directory: %v", err)}}
	}
	var inputs []input
	var diags Diagnostics
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			if !strings.HasPrefix(name, ".") {
				diags = append(diags, inSubfolder(dir, name)...)
			}
			continue
		}
		path := filepath.Join(dir, name)
		if strings.HasSuffix(name, ".yml") {
			diags = append(diags, Diagnostic{File: path, Severity: Error,
				Message: fmt.Sprintf("manifests end in .yaml; rename %s to %s.yaml", name, strings.TrimSuffix(name, ".yml"))})
			continue
		}
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			diags = append(diags, Diagnostic{File: path, Severity: Error, Message: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		if len(data) > MaxFileSize {
			diags = append(diags, Diagnostic{File: path, Severity: Error,
				Message: fmt.Sprintf("the manifest is %.1f MiB (%d bytes), over the %d MiB limit; a manifest lists sources by hand: remove what was pasted or generated into it", float64(len(data))/(1<<20), len(data), MaxFileSize>>20)})
			continue
		}
		inputs = append(inputs, input{path: path, data: data})
	}
	set, more := check(dir, inputs, base)
	diags = append(diags, more...)
	contents := map[string][]byte{}
	for _, in := range inputs {
		contents[in.path] = in.data
	}
	fillColumns(diags, contents)
	sortDiagnostics(diags)
	if diags.HasErrors() {
		return nil, diags
	}
	set.fingerprint = sync.OnceValue(func() string { return fingerprint(set) })
	return set, diags
}

// Fingerprint is the SHA-256, in hex, of what the manifests say (not of
// how they are written): what a rendering of the pages records, so that a
// check can tell pages left behind by a change to the manifests from pages
// edited by hand. "" for a Set not read from a directory.
func (s *Set) Fingerprint() string {
	if s.fingerprint == nil {
		return ""
	}
	return s.fingerprint()
}

// fingerprint hashes what the manifests say — the policy, each
// jurisdiction, each source and each host's effective settings — and not
// how they are written: a comment, a key order or a source moved within
// its file leaves it, so that such an edit asks no page to be rendered
// again. "" when the set cannot be encoded.
func fingerprint(set *Set) string {
	type manifestSays struct{ Jurisdiction, Name, Timezone string }
	type hostSays struct {
		policy.Host
		Zone string // Host.Location encodes as nothing
	}
	says := struct {
		Policy    policy.Policy
		Manifests []manifestSays
		Sources   []Source
		Hosts     map[string]hostSays
	}{Policy: set.Policy, Hosts: make(map[string]hostSays, len(set.Hosts))}
	for _, m := range set.Manifests {
		says.Manifests = append(says.Manifests, manifestSays{m.Jurisdiction, m.Name, m.Timezone})
	}
	for _, src := range set.Sources {
		src.Parsed, src.File, src.Line = nil, "", 0 // where it is written, not what it says
		says.Sources = append(says.Sources, src)
	}
	for name, h := range set.Hosts {
		says.Hosts[name] = hostSays{Host: h, Zone: h.Location.String()}
	}
	data, err := json.Marshal(says)
	if err != nil {
		return ""
	}
	// Zero values left out: a field a newer version adds, unset in every
	// manifest, says nothing new, and must not make pages rendered before
	// it look rendered for other manifests.
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return ""
	}
	if data, err = json.Marshal(withoutZeros(tree)); err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// withoutZeros drops from decoded JSON every null, false, 0, "" and empty
// array or object, at any depth (array elements stay where they are:
// their place means something). Object keys come out sorted.
func withoutZeros(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e = withoutZeros(e); isZero(e) {
				delete(v, k)
			} else {
				v[k] = e
			}
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = withoutZeros(e)
		}
		return v
	}
	return v
}

func isZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case float64:
		return v == 0
	case string:
		return v == ""
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// inSubfolder is the error for the subfolder name of dir: one for each
// manifest in it (or deeper), which is not read, named with where it
// belongs; one for the folder when it holds none.
func inSubfolder(dir, name string) Diagnostics {
	var diags Diagnostics
	filepath.WalkDir(filepath.Join(dir, name), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			return nil // what cannot be walked is named by the folder's error below
		}
		up := filepath.Join(dir, strings.TrimSuffix(d.Name(), ".yml"))
		if !strings.HasSuffix(up, ".yaml") {
			up += ".yaml"
		}
		diags = append(diags, Diagnostic{File: p, Severity: Error,
			Message: fmt.Sprintf("manifests are read from %s only, not from subfolders: this file is not read; move it up to %s", dir, up)})
		return nil
	})
	if len(diags) == 0 {
		diags = Diagnostics{{File: filepath.Join(dir, name), Severity: Error,
			Message: fmt.Sprintf("manifests are read from this directory only, not from subfolders; move the files of %s up into %s, one <jurisdiction>.yaml each", name, dir)}}
	}
	return diags
}

// input is one YAML file: its path (as shown in messages) and its bytes.
type input struct {
	path string
	data []byte
}

// check validates the files of one manifest directory. A file named
// policy.yaml is the policy; every other one is a jurisdiction. It is
// separate from Load so that the fuzz test needs no disk.
func check(dir string, inputs []input, base *Base) (*Set, Diagnostics) {
	var diags Diagnostics
	pol := policyFile{Policy: policy.Default()}
	var pending []input
	for _, in := range inputs {
		if filepath.Base(in.path) == "policy.yaml" {
			f := &file{path: in.path, diags: &diags}
			if root, ok := f.parse(in.data); ok {
				pol = parsePolicy(f, root)
			}
			continue
		}
		pending = append(pending, in)
	}
	if len(pending) == 0 {
		diags = append(diags, Diagnostic{File: dir, Severity: Error,
			Message: "no manifests here; add one <jurisdiction>.yaml per jurisdiction, named after its jurisdiction, e.g. uk.yaml"})
		return nil, diags
	}
	// File order decides which of two conflicting manifests is "first".
	sort.Slice(pending, func(i, j int) bool { return pending[i].path < pending[j].path })
	ms := parseEach(pending, pol.Policy, &diags)
	x := crossCheck{pol: pol, diags: &diags, base: base}
	x.loosening()
	x.sources(ms)
	x.unusedHosts(ms)
	hosts := x.mergeHosts(ms)
	x.weeklyBudget(ms, hosts)
	if diags.HasErrors() {
		return nil, diags
	}
	return build(pol.Policy, ms, hosts), diags
}

// parseEach parses and checks each jurisdiction file on its own, several
// at once: on a repository of many jurisdictions that is most of what
// validate and a run's start take. The manifests and their diagnostics
// come in the files' order, as if read one at a time.
func parseEach(files []input, pol policy.Policy, diags *Diagnostics) []parsed {
	type result struct {
		m     parsed
		ok    bool
		diags Diagnostics
	}
	results := make([]result, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	// No more at once than there are cores: each holds a file's YAML tree.
	for range min(len(files), runtime.GOMAXPROCS(0), runtime.NumCPU()) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				in, r := files[i], &results[i]
				f := &file{path: in.path, diags: &r.diags}
				if root, ok := f.parse(in.data); ok {
					r.m, r.ok = parseManifest(f, root, strings.TrimSuffix(filepath.Base(in.path), ".yaml"), pol), true
				}
			}
		})
	}
	wg.Wait()
	var ms []parsed
	for _, r := range results {
		*diags = append(*diags, r.diags...)
		if r.ok {
			ms = append(ms, r.m)
		}
	}
	return ms
}

func sortDiagnostics(ds Diagnostics) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].File != ds[j].File {
			return ds[i].File < ds[j].File
		}
		return ds[i].Line < ds[j].Line
	})
}

// build assembles the Set of manifests that passed every check.
func build(pol policy.Policy, ms []parsed, merged map[string]*mergedHost) *Set {
	set := &Set{Policy: pol, Hosts: map[string]policy.Host{}}
	n := 0
	for _, m := range ms {
		n += len(m.Manifest.Sources)
	}
	if n > 0 {
		set.Sources = make([]Source, 0, n)
	}
	for _, m := range ms {
		set.Manifests = append(set.Manifests, m.Manifest)
		set.Sources = append(set.Sources, m.Manifest.Sources...)
	}
	sort.Slice(set.Manifests, func(i, j int) bool { return set.Manifests[i].Jurisdiction < set.Manifests[j].Jurisdiction })
	sort.Slice(set.Sources, func(i, j int) bool {
		a, b := set.Sources[i], set.Sources[j]
		if a.Jurisdiction != b.Jurisdiction {
			return a.Jurisdiction < b.Jurisdiction
		}
		return a.ID < b.ID
	})
	for _, s := range set.Sources {
		if _, done := set.Hosts[s.Host]; done {
			continue
		}
		h := policy.Host{Name: s.Host, Delay: pol.Delay, DailyCap: pol.DailyCap, Location: time.UTC}
		if m := merged[s.Host]; m != nil {
			m.applyTo(&h)
		}
		set.Hosts[s.Host] = pol.ApplyFloors(h)
	}
	return set
}

// NormalizeURL returns the canonical form used to compare URLs: scheme and
// host lower-cased, default port dropped, empty path made "/", fragment
// refused. It rejects non-http(s) schemes, user-info and fragments.
func NormalizeURL(raw string) (string, error) {
	u, err := normalize(raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

func normalize(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("url %q does not parse (%w); write an absolute https:// URL", raw, unwrapURLError(err))
	case !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
		return nil, fmt.Errorf("url %q is not http(s); only https:// and http:// URLs can be fetched", raw)
	case u.Opaque != "" || u.Host == "":
		return nil, fmt.Errorf("url %q has no host; write it as https://host/path", raw)
	case u.User != nil:
		return nil, fmt.Errorf("url %q carries user-info (user@ or user:password@); the bot never authenticates: remove it", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, fmt.Errorf("url %q has a #fragment, which is never sent to the server; remove it", raw)
	case !validPort(u.Port()):
		return nil, fmt.Errorf("url %q has port %q; a port is 1 to 65535", raw, u.Port())
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = HostOf(u)
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	return u, nil
}

// unwrapURLError drops the "parse URL:" wrapping, which repeats the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// HostOf returns the authority of u as used for every per-host rule:
// lower-case host, plus ":port" when the port is not the scheme's default.
// It is policy.Authority, so exclusions and manifests agree.
func HostOf(u *url.URL) string {
	return policy.Authority(u)
}
