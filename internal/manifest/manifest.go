package manifest

import (
	"net/url"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/policy"
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
	// Recheck is the time after a good check before the source is due again.
	// Zero means `never`: once its bytes are held the source is not re-fetched.
	Recheck time.Duration
	Encodes []string
	Gaps    []string
	File    string // manifest path, for messages
	Line    int    // line of the source's `id:`
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
	panic("TODO")
}

// NormalizeURL returns the canonical form used to compare URLs: scheme and
// host lower-cased, default port dropped, empty path made "/", fragment
// refused. It rejects non-http(s) schemes, user-info and fragments.
func NormalizeURL(raw string) (string, error) {
	panic("TODO")
}

// HostOf returns the authority of u as used for every per-host rule:
// lower-case host, plus ":port" when the port is not the scheme's default.
func HostOf(u *url.URL) string {
	panic("TODO")
}
