package policy

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Built-in values, used for any key policy.yaml leaves out.
const (
	DefaultUserAgent     = "TaxKernelBot/1.0 (+https://taxkernel.com/bot)"
	DefaultFrom          = "contact@taxkernel.com"
	DefaultDailyCap      = 200
	DefaultBackoffMax    = 30 * time.Minute
	DefaultPauseAfter403 = 3
	DefaultRobotsTTL     = 24 * time.Hour
	DefaultTimeout       = 60 * time.Second
	DefaultMaxBody       = 50 << 20
	// MaxBodyLimit is the largest max_body allowed: GitHub refuses a file of
	// 100 MB (10^8 bytes) or more, so the bytes of a larger document could
	// never be committed.
	MaxBodyLimit = 95 << 20
	// DefaultIssueAfter is how long a source stays failing before
	// publishing opens an issue about it.
	DefaultIssueAfter = 3 * 24 * time.Hour
)

// Floors that hold for every public host whatever the configuration says.
const (
	// MinDelayFloor is the shortest gap between two dispatches to one host.
	MinDelayFloor = time.Second
	// MaxBackoff is the longest backoff a failure can cause.
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
	// SignDirectory is the URL of the bot's public key directory, named in
	// the Signature-Agent header of signed requests; empty: requests that
	// are signed carry no Signature-Agent.
	SignDirectory string
	// IssueAfter is how long a source must have been failing before
	// publishing opens a GitHub issue for it.
	IssueAfter time.Duration
	// Stores are where the archive's bytes are kept beyond the run: none
	// means the run's own directory only.
	Stores []Store
}

// Store is a bucket the archive's bytes are kept in (stores: in
// policy.yaml). Its keys are not in the file: AccessKeyEnv and
// SecretKeyEnv name the environment variables that hold them, set from
// the repository's secrets.
type Store struct {
	Kind     string // StoreS3, the only kind so far
	Endpoint string // https://<account>.r2.cloudflarestorage.com
	Bucket   string
	Prefix   string // "" or ending in "/"
	Region   string // "auto" for R2; empty: asked of the server
	Role     string // RolePrimary or RoleMirror

	AccessKeyEnv, SecretKeyEnv string
}

// Store kinds and roles.
const (
	StoreS3 = "s3"
	// RolePrimary is the store the bytes are read from; a mirror holds a
	// second copy of them.
	RolePrimary = "primary"
	RoleMirror  = "mirror"
)

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
		IssueAfter:    DefaultIssueAfter,
	}
}

// ProductToken is the robots.txt product token of the User-Agent: the part
// before the first "/" or space ("TaxKernelBot").
func (p Policy) ProductToken() string {
	ua := strings.TrimSpace(p.UserAgent)
	if i := strings.IndexAny(ua, "/ \t"); i >= 0 {
		ua = ua[:i]
	}
	return ua
}

// Excluded reports whether u falls under an exclusion (host match, path
// prefix match) and which.
//
// An exclusion without a port covers every port of the host: an owner who
// asks us to stop means the machine, and erring toward not fetching is the
// polite reading. The prefix is matched against both the decoded and the
// escaped path so that neither spelling of a path can slip past it.
func (p Policy) Excluded(u *url.URL) (Exclusion, bool) {
	authority := Authority(u)
	hostname := strings.ToLower(u.Hostname())
	path, escaped := u.Path, u.EscapedPath()
	if path == "" {
		path, escaped = "/", "/"
	}
	for _, e := range p.Exclude {
		eh := strings.ToLower(e.Host)
		if eh != authority && eh != hostname && trimBrackets(eh) != hostname {
			continue
		}
		if strings.HasPrefix(path, e.Path) || strings.HasPrefix(escaped, e.Path) {
			return e, true
		}
	}
	return Exclusion{}, false
}

// Authority is u's host as every per-host rule sees it: the
// lower-case host, ":port" only when the port is not the scheme's default,
// IPv6 in brackets. It lives here, in the leaf package, so that exclusions,
// manifests and the pipeline share one definition (manifest.HostOf is it).
func Authority(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" || (strings.EqualFold(u.Scheme, "http") && port == "80") || (strings.EqualFold(u.Scheme, "https") && port == "443") {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

func trimBrackets(h string) string {
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
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
	return p.ApplyFloors(Host{
		Name:     name,
		Delay:    p.Delay,
		DailyCap: p.DailyCap,
		Location: time.UTC,
	})
}

// ApplyFloors makes h obey the floors no configuration lifts: Delay never faster than
// the policy's delay, Delay.Min at least MinDelayFloor (unless private
// networks are allowed and name is a private or loopback host), Delay.Max
// at least Delay.Min, DailyCap at most p.DailyCap (a DailyCap of zero or
// less means "not set" and takes p.DailyCap), and, with an override, the
// slower of the two delays. A nil Location becomes UTC.
func (p Policy) ApplyFloors(h Host) Host {
	h.Delay.Min = max(h.Delay.Min, p.Delay.Min)
	h.Delay.Max = max(h.Delay.Max, p.Delay.Max)
	if h.Override != nil {
		// Copy, so that the caller's override is not changed behind its back.
		o := *h.Override
		h.Override = &o
		h.Delay.Min = max(h.Delay.Min, o.Delay.Min)
		h.Delay.Max = max(h.Delay.Max, o.Delay.Max)
	}
	if !(p.AllowPrivateNetworks && IsPrivateHost(h.Name)) {
		h.Delay.Min = max(h.Delay.Min, MinDelayFloor)
	}
	h.Delay.Max = max(h.Delay.Max, h.Delay.Min)
	if h.DailyCap <= 0 || h.DailyCap > p.DailyCap {
		h.DailyCap = p.DailyCap
	}
	if h.Location == nil {
		h.Location = time.UTC
	}
	return h
}

// IsPrivateHost reports whether host (host[:port]) names the local machine
// or a private network literally: "localhost", or an IP literal that is
// loopback, private, link-local or otherwise special-purpose. Names that
// need DNS are never private here; the dial-time guard handles those.
func IsPrivateHost(host string) bool {
	h := strings.ToLower(host)
	if strings.HasPrefix(h, "[") {
		end := strings.Index(h, "]")
		if end < 0 {
			return false
		}
		h = h[1:end]
	} else if strings.Count(h, ":") == 1 {
		h = h[:strings.Index(h, ":")]
	}
	if h == "localhost" || h == "localhost." {
		return true
	}
	addr, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	return SpecialAddr(addr)
}

// special are the address ranges no public host can be reached at:
// loopback, private, link-local, multicast, and the IANA special-purpose
// ranges (RFC 6890 and its updates), plus the IPv6 forms that embed an
// arbitrary IPv4 address (NAT64, 6to4) and so could reach any of them.
var special = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // CGNAT shared space
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local (cloud metadata lives here)
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // TEST-NET-1
		"192.168.0.0/16",  // private
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // TEST-NET-2
		"203.0.113.0/24",  // TEST-NET-3
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, and 255.255.255.255 broadcast
		"::/96",           // unspecified, loopback, deprecated IPv4-compatible
		"64:ff9b::/96",    // NAT64: would reach any IPv4 address, private ones too
		"64:ff9b:1::/48",  // local-use NAT64
		"100::/64",        // discard-only
		"2001:db8::/32",   // documentation
		"2002::/16",       // 6to4: embeds an arbitrary IPv4 address
		"fc00::/7",        // unique local
		"fe80::/10",       // link-local
		"fec0::/10",       // site-local (deprecated)
		"ff00::/8",        // multicast
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

// SpecialAddr reports whether a is an address no public host has: the one
// list both the private-host checks here and the fetcher's dial-time guard
// use. An invalid address counts as special.
func SpecialAddr(a netip.Addr) bool {
	if !a.IsValid() {
		return true
	}
	// A zoned address never matches a prefix, and ::ffff:10.0.0.1 is
	// 10.0.0.1 on the wire.
	a = a.WithZone("").Unmap()
	for _, p := range special {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// OffPeakNow reports whether t falls inside one of h's off-peak windows
// (true when h has none). The windows are read in h.Location; nil is UTC.
func (h Host) OffPeakNow(t time.Time) bool {
	if len(h.OffPeak) == 0 {
		return true
	}
	loc := h.Location
	if loc == nil {
		loc = time.UTC
	}
	local := t.In(loc)
	for _, w := range h.OffPeak {
		if w.Contains(local) {
			return true
		}
	}
	return false
}

// IdentityRepository is the repository whose bot the built-in identity
// (DefaultUserAgent and DefaultFrom) names: the address operators write to.
const IdentityRepository = "taxkernel/taxkernelbot"

// The variables that give one run an identity of its own without an edit
// of policy.yaml: a person trying the bot on real sites from their own
// machine.
const (
	UserAgentEnv = "TAXKERNELBOT_USER_AGENT"
	FromEnv      = "TAXKERNELBOT_FROM"
)

// SpeaksAsTheBot reports whether p sends the built-in identity: our page in
// the User-Agent or our mailbox in From.
func (p Policy) SpeaksAsTheBot() bool {
	return strings.EqualFold(p.From, DefaultFrom) || strings.Contains(strings.ToLower(p.UserAgent), "taxkernel.com")
}

// OwnWorkflow reports whether getenv describes the bot's own fetch
// workflow: GitHub Actions running .github/workflows/fetch.yml from the
// main branch of IdentityRepository. The variables are GitHub's own.
func OwnWorkflow(getenv func(string) string) bool {
	own := strings.ToLower(IdentityRepository)
	return getenv("GITHUB_ACTIONS") == "true" &&
		strings.EqualFold(getenv("GITHUB_REPOSITORY"), IdentityRepository) &&
		strings.HasPrefix(strings.ToLower(getenv("GITHUB_WORKFLOW_REF")), own+"/.github/workflows/fetch.yml@refs/heads/main")
}

// WithIdentityFrom returns p with the User-Agent and From that getenv's
// UserAgentEnv and FromEnv name, where set, or an error saying what is
// wrong with them.
func (p Policy) WithIdentityFrom(getenv func(string) string) (Policy, error) {
	if ua := strings.TrimSpace(getenv(UserAgentEnv)); ua != "" {
		if !printable(ua) || !strings.Contains(ua, "/") {
			return p, fmt.Errorf("%s=%q: give a product token, a version and a page, e.g. \"MyTaxBot/1.0 (+https://example.org/bot)\"", UserAgentEnv, ua)
		}
		p.UserAgent = ua
	}
	if from := strings.TrimSpace(getenv(FromEnv)); from != "" {
		if !printable(from) || !strings.Contains(from, "@") {
			return p, fmt.Errorf("%s=%q: give a mailbox site operators can write to, e.g. you@example.org", FromEnv, from)
		}
		p.From = from
	}
	return p, nil
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// Voice returns an error when requests sent under p, from where getenv
// describes, would speak as TaxKernelBot anywhere but in the bot's own
// fetch workflow: operators are told that a request claiming to be us and
// not in our public ledgers is not us, so no clone, copy or local run may
// send one. Policies for loopback tests and the demo (AllowPrivateNetworks)
// send nowhere else and pass.
func (p Policy) Voice(getenv func(string) string) error {
	if p.AllowPrivateNetworks || !p.SpeaksAsTheBot() || OwnWorkflow(getenv) {
		return nil
	}
	return fmt.Errorf("this run would send its requests as TaxKernelBot (user_agent %q, from %q), which only the bot's own fetch workflow in %s does: "+
		"set user_agent and from in manifests/policy.yaml to your own bot's name, page and contact, or for one run set %s and %s; "+
		"to try it without sending anything, run `taxkernelbot demo` or `taxkernelbot run --dry-run`",
		p.UserAgent, p.From, IdentityRepository, UserAgentEnv, FromEnv)
}

// BorrowedIdentity returns an error when repo ("owner/name", as
// GITHUB_REPOSITORY gives it) is a copy of IdentityRepository whose policy
// still names our contact: a copy must never fetch under our identity,
// or operators would write to us about requests we did not send. An empty
// repo (not in Actions), the repository itself, and a policy for loopback
// tests (AllowPrivateNetworks) pass.
func (p Policy) BorrowedIdentity(repo string) error {
	if repo == "" || strings.EqualFold(repo, IdentityRepository) || p.AllowPrivateNetworks {
		return nil
	}
	if p.From != DefaultFrom && !strings.Contains(p.UserAgent, "taxkernel.com") {
		return nil
	}
	return fmt.Errorf("this repository, %s, is a copy of %s, but manifests/policy.yaml still sends our identity (user_agent %q, from %q): "+
		"set user_agent to your own bot name and page and from to your own contact, so that site operators reach you, not us",
		repo, IdentityRepository, p.UserAgent, p.From)
}

// NextOffPeak returns the first minute at or after t inside one of h's
// off-peak windows (t itself when h has none), looking a week ahead;
// false when no window opens in that week.
func (h Host) NextOffPeak(t time.Time) (time.Time, bool) {
	if h.OffPeakNow(t) {
		return t, true
	}
	m := t.Truncate(time.Minute).Add(time.Minute)
	for end := t.Add(8 * 24 * time.Hour); m.Before(end); m = m.Add(time.Minute) {
		if h.OffPeakNow(m) {
			return m, true
		}
	}
	return time.Time{}, false
}

// FormatDuration writes d as people write it in a manifest and read it on
// a page: "2h", "30m", "1m30s", "250ms", never "2h0m0s".
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// FormatSize writes n bytes in the largest binary unit that divides it,
// as policy.yaml's max_body is written: "50 MiB", "512 KiB", "1000 bytes".
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
