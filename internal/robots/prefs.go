package robots

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jimsmart/grobotstxt"

	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// prefRule is one Content-Usage or Content-Signal line of a group
// (draft-ietf-aipref-attach-05 section 3; Cloudflare's Content-Signal
// line, read the same way).
type prefRule struct {
	field   string // usage.ContentUsage or usage.ContentSignal
	path    string // as written, "" when absent
	pattern string // path escaped as grobotstxt escapes Allow patterns
	value   string
	line    int
}

// newPrefRule splits a rule value into its optional path and its
// statement: a value starting with "/" has a path, which ends at the first
// space or tab (attach-05 section 3.2).
func newPrefRule(line int, action, value string) prefRule {
	field := usage.ContentUsage
	if strings.EqualFold(action, usage.ContentSignal) {
		field = usage.ContentSignal
	}
	pr := prefRule{field: field, value: value, line: line}
	if strings.HasPrefix(value, "/") {
		path, rest := value, ""
		if i := strings.IndexAny(value, " \t"); i >= 0 {
			path, rest = value[:i], value[i+1:]
		}
		pr.path, pr.pattern, pr.value = path, escapePattern(path), strings.TrimSpace(rest)
	}
	return pr
}

// matchLen is the rule's priority for target t, as for Allow and Disallow:
// the pattern's length when it matches, -1 otherwise. A rule without a
// path applies to every path, with the lowest priority.
func (pr *prefRule) matchLen(t string) int {
	if pr.pattern == "" {
		return 0
	}
	if grobotstxt.Matches(t, pr.pattern) {
		return len(pr.pattern)
	}
	return -1
}

// Preferences returns the Content-Usage and Content-Signal statements that
// the groups applying to agent attach to u (draft-ietf-aipref-attach-05
// section 3.1): per field, the rules whose path matches longest, all of
// them when several tie (usage.Combine then keeps the most restrictive).
// A URL the rules disallow has no preferences; neither has a host without a
// parsed robots.txt.
func (r *Rules) Preferences(agent string, u *url.URL) []usage.Statement {
	if r.kind() != parsed || !r.Allowed(agent, u) {
		return nil
	}
	t := target(u)
	var out []usage.Statement
	for _, field := range []string{usage.ContentUsage, usage.ContentSignal} {
		best := -1
		var won []*prefRule
		for _, g := range r.applying(productToken(agent)) {
			for i := range g.prefs {
				pr := &g.prefs[i]
				if pr.field != field {
					continue
				}
				switch n := pr.matchLen(t); {
				case n > best:
					best, won = n, []*prefRule{pr}
				case n == best && n >= 0:
					won = append(won, pr)
				}
			}
		}
		for _, pr := range won {
			out = append(out, usage.Statement{Field: pr.field, From: "robots.txt line " + strconv.Itoa(pr.line), Path: pr.path, Value: pr.value})
		}
	}
	return out
}

// escapePattern escapes a path as grobotstxt escapes Allow and Disallow
// patterns: percent-escapes upper-cased, bytes outside ASCII
// percent-encoded.
func escapePattern(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]):
			b.WriteString(strings.ToUpper(p[i : i+3]))
			i += 2
		case c >= 0x80:
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c), 16)))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// MaxCrawlRate returns the gap between requests that the max-crawl-rate
// of the group applying to agent asks for (draft-meunier-signature-agent-rep:
// "max-crawl-rate: 10/m" is ten requests a minute, a gap of 6 s), with the
// line's value as written; 0 and "" when there is none. Groups are read as
// for CrawlDelay, and of several the slowest rate wins.
func (r *Rules) MaxCrawlRate(agent string) (time.Duration, string) {
	if r.kind() != parsed {
		return 0, ""
	}
	var d time.Duration
	var text string
	for _, g := range pick(r.delays, productToken(agent)) {
		if g.rate > d {
			d, text = g.rate, g.rateText
		}
	}
	return d, text
}

// rateUnits are max-crawl-rate's time units.
var rateUnits = map[string]time.Duration{
	"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour,
}

// ParseMaxCrawlRate reads a max-crawl-rate value, "N" or "N/unit" with
// unit one of s, m, h, d, w (spaces allowed around the "/"), as the gap
// between requests it asks for. A bare number is per second, as the draft
// first defined it. A rate of zero asks for nothing and is read as the
// longest gap a Crawl-delay may ask for, one request a day; so is a gap
// longer than that. ok is false for anything else.
func ParseMaxCrawlRate(v string) (time.Duration, bool) {
	num, unit, slash := strings.Cut(v, "/")
	num, unit = strings.TrimSpace(num), strings.ToLower(strings.TrimSpace(unit))
	per := time.Second
	if slash {
		var ok bool
		if per, ok = rateUnits[unit]; !ok {
			return 0, false
		}
	}
	if num == "" || strings.Trim(num, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	switch {
	case err != nil:
		return 0, false // overflow: a rate too fast to matter anyway
	case n == 0:
		return maxCrawlDelay, true
	}
	return min(per/time.Duration(min(n, uint64(per))), maxCrawlDelay), true
}
