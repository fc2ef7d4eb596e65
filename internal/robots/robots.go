package robots

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jimsmart/grobotstxt"

	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// MaxBody is how much of a robots.txt is parsed (RFC 9309 asks for at least
// 500 KiB); anything past it is ignored.
const MaxBody = 512 << 10

// maxCrawlDelay bounds a Crawl-delay: a site asking for more than a day
// between requests is treated as asking for one request a day, not for a
// duration that overflows the scheduler.
const maxCrawlDelay = 24 * time.Hour

type mode int

const (
	// disallowAll is the zero value so that a Rules nobody filled in never
	// lets a request through.
	disallowAll mode = iota
	allowAll
	parsed
)

// Rules is the decision basis for one host. It is immutable once built and
// safe for concurrent use.
type Rules struct {
	mode   mode
	body   string   // the parsed prefix, matched by grobotstxt on every Allowed
	groups []*group // the same body as the matcher's groups, for Explain
	// delays is the same body grouped for Crawl-delay, where any record
	// other than a user-agent line ends a run of user-agent lines.
	delays []*group
}

// Parse builds Rules from a 2xx robots.txt body (only the first MaxBody
// bytes count).
func Parse(body []byte) *Rules {
	r := &Rules{mode: parsed, body: string(limit(body))}
	var h recorder
	grobotstxt.Parse(r.body, &h)
	r.groups, r.delays = h.groups, h.delays
	return r
}

// limit keeps the first MaxBody bytes, minus a last line that may have been
// cut: half of "Allow: /reports/2026" reads as "Allow: /", which would open
// the whole site. A body of exactly MaxBody bytes is treated as possibly
// truncated, since a fetcher reading at most MaxBody cannot tell.
func limit(body []byte) []byte {
	if len(body) < MaxBody {
		return body
	}
	whole := len(body) > MaxBody && isEOL(body[MaxBody])
	body = body[:MaxBody]
	if whole || isEOL(body[MaxBody-1]) {
		return body
	}
	return body[:bytes.LastIndexAny(body, "\r\n")+1]
}

func isEOL(c byte) bool { return c == '\n' || c == '\r' }

// AllowAll is the Rules of a host without robots.txt (4xx except 429).
func AllowAll() *Rules { return &Rules{mode: allowAll} }

// DisallowAll is the Rules of a host whose robots.txt could not be read
// (429, 5xx, network error, timeout, more than 5 redirects).
func DisallowAll() *Rules { return &Rules{mode: disallowAll} }

func (r *Rules) kind() mode {
	if r == nil {
		return disallowAll
	}
	return r.mode
}

// matchHost only gives grobotstxt an absolute URI to take apart: handed a
// bare path, it would read "//a/b" as host "a" and path "/b".
const matchHost = "http://robots.invalid"

// Allowed reports whether the agent with product token agent may fetch u
// ("TaxKernelBot"). The group naming the agent wins over "*"; equal-length
// allow and disallow matches go to allow. /robots.txt is always allowed.
//
// A full User-Agent ("TaxKernelBot/1.0 (+https://…)") is reduced to its
// product token first, as grobotstxt does with robots.txt's own lines.
func (r *Rules) Allowed(agent string, u *url.URL) bool {
	t := target(u)
	if t == "/robots.txt" {
		return true
	}
	switch r.kind() {
	case allowAll:
		return true
	case parsed:
		return grobotstxt.AgentAllowed(r.body, productToken(agent), matchHost+t)
	default:
		return false
	}
}

// target is what the rules are matched against: the path and query sent on
// the request line, escaped the way grobotstxt escapes patterns (upper-case
// hex, non-ASCII percent-encoded) so that "/caf%c3%a9" meets "Disallow:
// /café". Spaces, controls and '#' are encoded too, so that a hand-built URL
// cannot lose its tail to grobotstxt's own URL parsing.
func target(u *url.URL) string {
	t := u.EscapedPath()
	if !strings.HasPrefix(t, "/") {
		t = "/" + t
	}
	if u.RawQuery != "" {
		t += "?" + u.RawQuery
	}
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '%' && i+2 < len(t) && isHex(t[i+1]) && isHex(t[i+2]):
			b.WriteString(strings.ToUpper(t[i : i+3]))
			i += 2
		case c <= ' ' || c >= 0x7f || c == '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// CrawlDelay returns the Crawl-delay of the group that applies to agent
// (the agent's own group if any, else "*"), or 0 when none is set.
// Fractional seconds are accepted; negative or unparsable values are 0;
// absurd values are clamped to one day. Where several groups apply (RFC 9309
// merges groups naming the same agent), the longest delay wins.
//
// Groups are read as the parsers that honour Crawl-delay read them: a
// user-agent line that follows any other record (Crawl-delay, Sitemap, a
// rule) starts a new group. So in "User-agent: *", "Crawl-delay: 3", "",
// "User-agent: TaxKernelBot", "Allow: /", the 3 s is the "*" group's, not
// ours, although grobotstxt's matcher merges the two user-agent lines for
// Allow and Disallow (no rule separates them).
func (r *Rules) CrawlDelay(agent string) time.Duration {
	if r.kind() != parsed {
		return 0
	}
	var d time.Duration
	for _, g := range pick(r.delays, productToken(agent)) {
		d = max(d, g.delay)
	}
	return d
}

// applying returns the groups whose rules grobotstxt applies to agent: those
// naming it if there is any, else the "*" groups.
func (r *Rules) applying(agent string) []*group { return pick(r.groups, agent) }

// pick returns the groups of gs naming agent if there is any, else the "*"
// groups.
func pick(gs []*group, agent string) []*group {
	var ours, global []*group
	for _, g := range gs {
		switch {
		case g.names(agent):
			ours = append(ours, g)
		case g.global:
			global = append(global, g)
		}
	}
	if len(ours) > 0 {
		return ours
	}
	return global
}

// Explain describes the decision for u in one line, for `taxkernelbot
// robots URL`: which group applied and which rule matched (or why
// everything is allowed or disallowed).
func (r *Rules) Explain(agent string, u *url.URL) string {
	v := r.Verdict(agent, u)
	verdict := "disallowed"
	if v.Allowed {
		verdict = "allowed"
	}
	return verdict + ": " + v.Reason
}

// Verdict is the decision on one URL and the evidence for it.
type Verdict struct {
	Allowed bool
	// Reason says why, in the words Explain uses after the verdict.
	Reason string
	// Group is the name of the user-agent group that applied ("*" or the
	// agent's), "" when none did or the rules were not read from a file;
	// Rule is the line that decided, nil when no rule matched; Tie the
	// Disallow of the same length that lost to an Allow.
	Group     string
	Rule, Tie *Rule
}

// Rule is one Allow or Disallow line of a robots.txt.
type Rule struct {
	Allow   bool
	Pattern string // as grobotstxt escaped it
	Line    int    // 1-based
}

// Verdict decides u for agent, as Allowed does, and says why.
func (r *Rules) Verdict(agent string, u *url.URL) Verdict {
	v := Verdict{Allowed: r.Allowed(agent, u)}
	t := target(u)
	switch {
	case t == "/robots.txt":
		v.Reason = "robots.txt itself is always allowed"
	case r.kind() == allowAll:
		v.Reason = "no robots.txt (4xx), everything allowed"
	case r.kind() == disallowAll:
		v.Reason = "robots.txt unavailable (complete disallow)"
	default:
		d := r.decide(productToken(agent), t)
		v.Reason, v.Group = d.String(), d.group
		if d.rule != nil {
			v.Rule = &Rule{Allow: d.rule.allow, Pattern: d.rule.pattern, Line: d.rule.line}
		}
		if d.tie != nil {
			v.Tie = &Rule{Allow: d.tie.allow, Pattern: d.tie.pattern, Line: d.tie.line}
		}
	}
	return v
}

// decision is the evidence behind a verdict on a parsed robots.txt. It is
// computed apart from grobotstxt's matcher, by the same rules; FuzzParse
// holds the two to agreement.
type decision struct {
	allowed bool
	group   string // the applying group's name, "" when none applies
	target  string
	rule    *rule // the longest match that decided, nil when none did
	tie     *rule // the equal-length Disallow that lost to rule
}

func (d decision) String() string {
	switch {
	case d.group == "":
		return "no group applies, everything allowed"
	case d.rule == nil:
		return fmt.Sprintf("group %q — no rule matches %q", d.group, d.target)
	case d.tie != nil:
		return fmt.Sprintf("group %q — %s ties %s, ties go to allow", d.group, d.rule, d.tie)
	default:
		return fmt.Sprintf("group %q — longest match %s", d.group, d.rule)
	}
}

// decide mirrors grobotstxt's RobotsMatcher.Disallowed: in the applying
// groups the longest matching pattern wins, Allow on a tie; a match counts
// only when its pattern is non-empty.
func (r *Rules) decide(agent, t string) decision {
	d := decision{allowed: true, target: t}
	gs := r.applying(agent)
	if len(gs) == 0 {
		return d
	}
	d.group = "*"
	if gs[0].names(agent) {
		d.group = strings.ToLower(agent)
	}
	var allow, disallow *rule
	var allowLen, disallowLen int
	for _, g := range gs {
		for i := range g.rules {
			ru := &g.rules[i]
			n := ru.matchLen(t)
			// Strictly longer only: the first of equal matches is the one
			// grobotstxt reports.
			if ru.allow && n > allowLen {
				allow, allowLen = ru, n
			}
			if !ru.allow && n > disallowLen {
				disallow, disallowLen = ru, n
			}
		}
	}
	switch {
	case disallowLen > allowLen:
		d.allowed, d.rule = false, disallow
	case allowLen > 0:
		d.rule = allow
		if disallowLen == allowLen {
			d.tie = disallow
		}
	}
	return d
}

// rule is one Allow or Disallow line, its pattern as grobotstxt escaped it.
type rule struct {
	allow   bool
	pattern string
	line    int
}

func (ru *rule) String() string {
	key := "Disallow"
	if ru.allow {
		key = "Allow"
	}
	return fmt.Sprintf("%q (line %d)", key+": "+ru.pattern, ru.line)
}

// matchLen is the rule's priority for target t as grobotstxt's longest-match
// strategy counts it: the pattern's length when it matches, else -1.
func (ru *rule) matchLen(t string) int {
	if grobotstxt.Matches(t, ru.pattern) {
		return len(ru.pattern)
	}
	// grobotstxt reads "Allow: /d/index.html" as also allowing "/d/" itself.
	if i := strings.LastIndexByte(ru.pattern, '/'); ru.allow && i >= 0 && strings.HasPrefix(ru.pattern[i:], "/index.htm") {
		if p := ru.pattern[:i+1] + "$"; grobotstxt.Matches(t, p) {
			return len(p)
		}
	}
	return -1
}

// group is a run of user-agent lines and the lines that follow them up to
// the next user-agent line after a rule: what grobotstxt's matcher treats as
// one group.
type group struct {
	agents []string // product tokens, as grobotstxt extracts them
	global bool     // one of the lines was "*"
	rules  []rule
	delay  time.Duration // the longest valid Crawl-delay, 0 if none (delays only)
	// rate is the longest gap a valid max-crawl-rate asks for, rateText
	// that line's value (delays only).
	rate     time.Duration
	rateText string
	// prefs are the group's Content-Usage and Content-Signal rules (groups
	// only).
	prefs []prefRule
}

// add records one user-agent line's agent in g.
func (g *group) add(value string) {
	// As in the matcher: "*" alone, or followed by a space and anything, is
	// the global agent; the space test is unicode.IsSpace on a single byte.
	if len(value) > 0 && value[0] == '*' && (len(value) == 1 || unicode.IsSpace(rune(value[1]))) {
		g.global = true
		return
	}
	g.agents = append(g.agents, productToken(value))
}

func (g *group) names(agent string) bool {
	for _, a := range g.agents {
		if strings.EqualFold(a, agent) {
			return true
		}
	}
	return false
}

// recorder is a grobotstxt.ParseHandler that collects the groups twice.
// groups end where the matcher's do: at a user-agent line that follows an
// Allow or Disallow (Crawl-delay and Sitemap lines do not end the run of
// user-agent lines for the matcher). delays end at a user-agent line that
// follows any other record, as Crawl-delay's readers have it.
type recorder struct {
	groups    []*group
	separator bool // a rule line has closed the current group's agent list
	delays    []*group
	record    bool // a record other than user-agent has closed the delay group's agent list
}

var _ grobotstxt.ParseHandler = (*recorder)(nil)

func (h *recorder) HandleRobotsStart()        { *h = recorder{} }
func (h *recorder) HandleRobotsEnd()          {}
func (h *recorder) HandleSitemap(int, string) { h.record = true }

func (h *recorder) HandleUserAgent(_ int, value string) {
	if len(h.groups) == 0 || h.separator {
		h.groups = append(h.groups, &group{})
		h.separator = false
	}
	h.groups[len(h.groups)-1].add(value)
	if len(h.delays) == 0 || h.record {
		h.delays = append(h.delays, &group{})
		h.record = false
	}
	h.delays[len(h.delays)-1].add(value)
}

func (h *recorder) HandleAllow(line int, value string) {
	h.rule(rule{allow: true, pattern: value, line: line})
}

func (h *recorder) HandleDisallow(line int, value string) {
	h.rule(rule{pattern: value, line: line})
}

func (h *recorder) rule(ru rule) {
	if len(h.groups) == 0 {
		return // before any user-agent line: no group to belong to
	}
	h.separator, h.record = true, true
	g := h.groups[len(h.groups)-1]
	g.rules = append(g.rules, ru)
}

// HandleUnknownAction receives every line grobotstxt has no key for, with
// the key as written: Crawl-delay, max-crawl-rate, Content-Usage and
// Content-Signal among them.
//
// Content-Usage and Content-Signal rules belong to the matcher's groups,
// so that they apply to exactly the agents that group's Allow and Disallow
// apply to; like Crawl-delay, they do not end a run of user-agent lines for
// the matcher. max-crawl-rate is a group line read as Crawl-delay is.
func (h *recorder) HandleUnknownAction(line int, action, value string) {
	h.record = true
	switch {
	case strings.EqualFold(action, usage.ContentUsage), strings.EqualFold(action, usage.ContentSignal):
		if len(h.groups) == 0 {
			return // before any user-agent line: no group to belong to
		}
		g := h.groups[len(h.groups)-1]
		g.prefs = append(g.prefs, newPrefRule(line, action, value))
		return
	case len(h.delays) == 0:
		return
	}
	g := h.delays[len(h.delays)-1]
	switch {
	case strings.EqualFold(action, "crawl-delay"):
		if d, ok := parseDelay(value); ok {
			g.delay = max(g.delay, d)
		}
	case strings.EqualFold(action, "max-crawl-rate"):
		if d, ok := ParseMaxCrawlRate(value); ok && d > g.rate {
			g.rate, g.rateText = d, value
		}
	}
}

// parseDelay reads a Crawl-delay in seconds: digits with an optional
// fraction ("10", "2.5"). Signs, exponents, hex, "Inf" and the like are
// refused rather than guessed at.
func parseDelay(v string) (time.Duration, bool) {
	whole, frac, _ := strings.Cut(v, ".")
	if digits := whole + frac; digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	// With the syntax checked, the only possible error is overflow to +Inf.
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f > maxCrawlDelay.Seconds() {
		return maxCrawlDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}

// productToken is the leading run of token characters of a user agent,
// exactly as grobotstxt extracts it ("TaxKernelBot/1.0" → "TaxKernelBot").
// Its character set is grobotstxt's, not RFC 9110's: it lacks '!' and '&'.
func productToken(ua string) string {
	for i := 0; i < len(ua); i++ {
		c := ua[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("~#$%'*+-.^_`|", c) >= 0) {
			return ua[:i]
		}
	}
	return ua
}

// Key returns the robots scope of u: "scheme://host[:port]" lower-cased,
// default port dropped.
func Key(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6 literal
	}
	return scheme + "://" + host
}

// URL returns the robots.txt URL for u's scope.
func URL(u *url.URL) string { return Key(u) + "/robots.txt" }
