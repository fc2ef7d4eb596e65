package manifest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// Base is what the manifests of a base branch list: enough to tell which
// sources a pull request adds or changes.
type Base struct {
	byID map[string]string // id → URL (sameURL form)
	urls map[string]bool   // sameURL form
	// hosts holds each per-host setting as the base sets it, keyed by
	// hostKey (file name, host, setting), in the form hostValue writes.
	hosts map[string]string
}

// ReadBase reads the manifests of a base branch (file name → contents)
// leniently: a file with problems still lists what it can, since the base
// is not what is being validated.
func ReadBase(files map[string][]byte) Base {
	b := Base{byID: map[string]string{}, urls: map[string]bool{}, hosts: map[string]string{}}
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
		for _, h := range m.hosts {
			for _, setting := range hostSettings {
				if v, ok := hostValue(h, setting); ok {
					b.hosts[hostKey(base, h.name, setting)] = v
				}
			}
		}
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

// HostAdded reports whether a manifest's hosts: entry sets setting of
// host to value where the base does not: the file (a path; its name is
// compared) does not set it there, or sets it to something else.
func (b Base) HostAdded(file, host, setting, value string) bool {
	v, ok := b.hosts[hostKey(filepath.Base(file), host, setting)]
	return !ok || v != value
}

// hostSettings are the settings of a hosts: entry that two manifests can
// set differently.
var hostSettings = []string{"delay", "daily_cap", "off_peak", "robots_override"}

func hostKey(file, host, setting string) string {
	return file + "\x00" + host + "\x00" + setting
}

// hostValue writes setting of h as messages show it, and whether h sets
// it.
func hostValue(h hostSpec, setting string) (string, bool) {
	switch {
	case setting == "delay" && h.delayLine > 0:
		return fmtDelay(h.delay), true
	case setting == "daily_cap" && h.capLine > 0:
		return strconv.Itoa(h.cap), true
	case setting == "off_peak" && h.windowsLine > 0:
		return fmtWindows(h.windows, h.loc), true
	case setting == "robots_override" && h.overrideLine > 0:
		return fmt.Sprintf("%q %s", h.override.Permission, fmtDelay(h.override.Delay)), true
	}
	return "", false
}

// LoadAgainst is Load for a pull request against base: a duplicate id or
// URL, and a host setting that two manifests set differently, are
// reported on the line the pull request added, whichever file sorts
// first. A nil base is Load.
func LoadAgainst(dir string, base *Base) (*Set, Diagnostics) {
	return load(dir, base)
}
