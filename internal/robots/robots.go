package robots

import (
	"net/url"
	"time"
)

// MaxBody is how much of a robots.txt is parsed (RFC 9309 asks for at least
// 500 KiB); anything past it is ignored.
const MaxBody = 512 << 10

// Rules is the decision basis for one host.
type Rules struct {
	// TODO: mode (parsed/allow-all/disallow-all), body, crawl delays by group
}

// Parse builds Rules from a 2xx robots.txt body (only the first MaxBody
// bytes count).
func Parse(body []byte) *Rules {
	panic("TODO")
}

// AllowAll is the Rules of a host without robots.txt (4xx except 429).
func AllowAll() *Rules {
	panic("TODO")
}

// DisallowAll is the Rules of a host whose robots.txt could not be read
// (429, 5xx, network error, timeout, more than 5 redirects).
func DisallowAll() *Rules {
	panic("TODO")
}

// Outcome classifies a robots.txt fetch by its final HTTP status (after
// following redirects) or its error. It returns the Rules to apply; fetchErr
// non-nil (network, timeout, too many redirects) means DisallowAll.
//
//	2xx → Parse(body); 4xx except 429 → AllowAll; 429, 5xx, other → DisallowAll
func Outcome(status int, body []byte, fetchErr error) *Rules {
	panic("TODO")
}

// Allowed reports whether the agent with product token agent may fetch u
// ("TaxKernelBot"). The group naming the agent wins over "*"; equal-length
// allow and disallow matches go to allow. /robots.txt is always allowed.
func (r *Rules) Allowed(agent string, u *url.URL) bool {
	panic("TODO")
}

// CrawlDelay returns the Crawl-delay of the group that applies to agent
// (the agent's own group if any, else "*"), or 0 when none is set.
// Fractional seconds are accepted; negative or unparsable values are 0;
// absurd values are clamped to one day.
func (r *Rules) CrawlDelay(agent string) time.Duration {
	panic("TODO")
}

// Explain describes the decision for u in one line, for `taxkernelbot
// robots URL`: which group applied and which rule matched (or why
// everything is allowed or disallowed).
func (r *Rules) Explain(agent string, u *url.URL) string {
	panic("TODO")
}

// Key returns the robots scope of u: "scheme://host[:port]" lower-cased,
// default port dropped.
func Key(u *url.URL) string {
	panic("TODO")
}

// URL returns the robots.txt URL for u's scope.
func URL(u *url.URL) string {
	panic("TODO")
}
