package manifest

import (
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// Base is what the manifests of a base branch list: enough to tell which
// sources a pull request adds or changes.
type Base struct {
	byID map[string]string // id → URL (sameURL form)
	urls map[string]bool   // sameURL form
}

// ReadBase reads the manifests of a base branch (file name → contents)
// leniently: a file with problems still lists what it can, since the base
// is not what is being validated.
func ReadBase(files map[string][]byte) Base {
	b := Base{byID: map[string]string{}, urls: map[string]bool{}}
	for name, data := range files {
		base := filepath.Base(name)
		if !strings.HasSuffix(base, ".yaml") || base == "policy.yaml" {
			continue
		}
		var ignored Diagnostics
		f := &file{path: name, diags: &ignored}
		root, ok := f.parse(data)
		if !ok || root == nil {
			continue
		}
		m := parseManifest(f, root, strings.TrimSuffix(base, ".yaml"), policy.Default())
		for _, s := range m.sources {
			if s.URL == "" {
				continue
			}
			if s.ID != "" {
				b.byID[s.ID] = sameURL(s.URL)
			}
			b.urls[sameURL(s.URL)] = true
		}
	}
	return b
}

// Added reports whether s is new or changed against the base: its id is
// not there, or names another URL.
func (b Base) Added(s Source) bool {
	u, ok := b.byID[s.ID]
	return !ok || u != sameURL(s.URL)
}

// LoadAgainst is Load for a pull request against base: a duplicate id or
// URL is reported on the line the pull request added, whichever file
// sorts first. A nil base is Load.
func LoadAgainst(dir string, base *Base) (*Set, Diagnostics) {
	return load(dir, base)
}
