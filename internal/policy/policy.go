package policy

import (
	"net/url"
	"time"
)

// Built-in values (SPEC §2), used for any key policy.yaml leaves out.
const (
	DefaultUserAgent     = "TaxKernelBot/1.0 (+https://taxkernel.com/bot)"
	DefaultFrom          = "contact@taxkernel.com"
	DefaultDailyCap      = 200
	DefaultBackoffMax    = 30 * time.Minute
	DefaultPauseAfter403 = 3
	DefaultRobotsTTL     = 24 * time.Hour
	DefaultTimeout       = 60 * time.Second
	DefaultMaxBody       = 50 << 20
)

// Floors that hold for every public host whatever the configuration says.
const (
	// MinDelayFloor is the shortest gap between two dispatches to one host.
	MinDelayFloor = time.Second
	// MaxBackoff is the longest backoff a failure can cause (SPEC §3.7).
	MaxBackoff = 30 * time.Minute
	// MaxRedirects is the number of hops followed for robots.txt and documents.
	MaxRedirects = 5
)

// Delay is the range a per-dispatch delay is drawn from, uniformly.
type Delay struct {
	Min, Max time.Duration
}

// DefaultDelay is the built-in spacing: 3–5 s between dispatches.
var DefaultDelay = Delay{Min: 3 * time.Second, Max: 5 * time.Second}

// Exclusion is an owner's request not to fetch a host, or a path prefix of it.
type Exclusion struct {
	Host   string // host[:port], lower case
	Path   string // path prefix; empty means the whole host
	Reason string
}

// Policy is manifests/policy.yaml with the built-in values filled in.
type Policy struct {
	UserAgent            string
	From                 string
	Delay                Delay
	DailyCap             int
	BackoffMax           time.Duration
	PauseAfter403        int
	RobotsTTL            time.Duration
	Timeout              time.Duration
	MaxBody              int64
	Exclude              []Exclusion
	AllowPrivateNetworks bool
}

// Default returns the built-in policy.
func Default() Policy {
	return Policy{
		UserAgent:     DefaultUserAgent,
		From:          DefaultFrom,
		Delay:         DefaultDelay,
		DailyCap:      DefaultDailyCap,
		BackoffMax:    DefaultBackoffMax,
		PauseAfter403: DefaultPauseAfter403,
		RobotsTTL:     DefaultRobotsTTL,
		Timeout:       DefaultTimeout,
		MaxBody:       DefaultMaxBody,
	}
}

// ProductToken is the robots.txt product token of the User-Agent: the part
// before the first "/" or space ("TaxKernelBot").
func (p Policy) ProductToken() string {
	panic("TODO")
}

// Excluded reports whether u falls under an exclusion (host match, path
// prefix match) and which.
func (p Policy) Excluded(u *url.URL) (Exclusion, bool) {
	panic("TODO")
}

// RobotsOverride lifts robots.txt Disallow rules for one host, and only with
// the site owner's written permission, recorded in every affected source.
type RobotsOverride struct {
	Permission string
	Delay      Delay
}

// Host is the effective setting of one host (host[:port]).
type Host struct {
	Name     string
	Delay    Delay
	DailyCap int
	// OffPeak windows, read in Location; none means any time.
	OffPeak  []Window
	Location *time.Location
	Override *RobotsOverride
}

// HostFor returns the effective settings of host name under p when no
// manifest says anything about it: policy delay and cap, no windows, UTC.
// The floors are applied.
func (p Policy) HostFor(name string) Host {
	panic("TODO")
}

// ApplyFloors makes h obey the floors of SPEC §3: Delay.Min at least
// MinDelayFloor (unless private networks are allowed and name is a private
// or loopback host), Delay.Max at least Delay.Min, DailyCap at most
// p.DailyCap, and, with an override, the slower of the two delays.
func (p Policy) ApplyFloors(h Host) Host {
	panic("TODO")
}

// IsPrivateHost reports whether host (host[:port]) names the local machine
// or a private network literally: "localhost", or an IP literal that is
// loopback, private, link-local or otherwise special-purpose. Names that
// need DNS are never private here; the dial-time guard handles those.
func IsPrivateHost(host string) bool {
	panic("TODO")
}

// OffPeakNow reports whether t falls inside one of h's off-peak windows
// (true when h has none).
func (h Host) OffPeakNow(t time.Time) bool {
	panic("TODO")
}
