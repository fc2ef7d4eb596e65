package gate

import (
	"strings"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// Where a host's pace can come from, besides the policy.
const (
	FromPolicy          = "policy"
	FromCrawlDelay      = "Crawl-delay"
	FromMaxCrawlRate    = "max-crawl-rate"
	FromRateLimitPolicy = "RateLimit-Policy"
)

// Hint is a site's own ask for a slower pace: the gap it wants between
// requests, which signal asked (FromCrawlDelay, FromMaxCrawlRate,
// FromRateLimitPolicy) and the value as the site wrote it.
type Hint struct {
	Source string
	Gap    time.Duration
	Text   string
}

// Pace is the spacing a host's requests get: the policy's delay range,
// raised to the slowest hint. It is never faster than the policy.
type Pace struct {
	Min, Max time.Duration
	// Source is FromPolicy, or the Source of the hint that raised Min;
	// Text is that hint's value.
	Source, Text string
}

// PaceOf returns the pace of a host with delay d under hints.
func PaceOf(d policy.Delay, hints ...Hint) Pace {
	p := Pace{Min: d.Min, Max: d.Max, Source: FromPolicy}
	var slowest Hint
	for _, h := range hints {
		if h.Gap > slowest.Gap {
			slowest = h
		}
	}
	if slowest.Gap > p.Min {
		p.Min, p.Max = slowest.Gap, max(p.Max, slowest.Gap)
		p.Source, p.Text = slowest.Source, slowest.Text
	}
	return p
}

// ParseRateLimitPolicy reads a RateLimit-Policy field
// (draft-ietf-httpapi-ratelimit-headers-10 section 3: a List of Strings
// with a quota q and a window w in seconds) as the gap between requests
// its slowest policy counted in requests allows: w/q. Policies counted in
// other units (content-bytes, concurrent-requests), or without a window or
// a positive quota, say nothing about a gap. ok is false when the field is
// malformed (the draft asks that it then be ignored) or no policy gives a
// gap.
func ParseRateLimitPolicy(v string) (time.Duration, bool) {
	l, err := httpsfv.UnmarshalList([]string{v})
	if err != nil {
		return 0, false
	}
	var gap time.Duration
	for _, m := range l {
		it, ok := m.(httpsfv.Item)
		if !ok {
			return 0, false
		}
		if _, ok := it.Value.(string); !ok {
			return 0, false
		}
		q, qok := intParam(it.Params, "q")
		w, wok := intParam(it.Params, "w")
		if !qok {
			return 0, false // q is required
		}
		if u, ok := it.Params.Get("qu"); ok && u != "requests" {
			continue
		}
		if !wok || q <= 0 || w <= 0 {
			continue
		}
		secs := min(w, int64(MaxRetryAfter/time.Second))
		gap = max(gap, time.Duration(secs)*time.Second/time.Duration(q))
	}
	return gap, gap > 0
}

// ParseRateLimit reads a RateLimit field (draft-ietf-httpapi-ratelimit-
// headers-10 section 4: a List of Strings naming policies, each with the
// remaining quota r and the seconds t until more is made available) and
// says how long to wait when a policy has nothing remaining: the longest t
// of those with r=0, or, for one without t, the window w that policyField
// (the host's RateLimit-Policy) gives the policy of that name. ok is false
// when quota remains, when no wait is known, or when the field is
// malformed. The wait is at most MaxRetryAfter.
func ParseRateLimit(v, policyField string) (time.Duration, bool) {
	if strings.TrimSpace(v) == "" {
		return 0, false
	}
	l, err := httpsfv.UnmarshalList([]string{v})
	if err != nil {
		return 0, false
	}
	var wait time.Duration
	exhausted := false
	for _, m := range l {
		it, ok := m.(httpsfv.Item)
		if !ok {
			return 0, false
		}
		name, ok := it.Value.(string)
		r, rok := intParam(it.Params, "r")
		if !ok || !rok {
			return 0, false // malformed: ignored as a whole
		}
		if r > 0 {
			continue
		}
		t, ok := intParam(it.Params, "t")
		if !ok {
			t, ok = policyWindow(policyField, name)
		}
		if ok {
			exhausted = true
			wait = max(wait, time.Duration(min(t, int64(MaxRetryAfter/time.Second)))*time.Second)
		}
	}
	return wait, exhausted
}

// policyWindow is the window w of the policy named name in a
// RateLimit-Policy field.
func policyWindow(field, name string) (int64, bool) {
	if field == "" {
		return 0, false
	}
	l, err := httpsfv.UnmarshalList([]string{field})
	if err != nil {
		return 0, false
	}
	for _, m := range l {
		if it, ok := m.(httpsfv.Item); ok && it.Value == name {
			return intParam(it.Params, "w")
		}
	}
	return 0, false
}

// intParam is a non-negative Integer parameter.
func intParam(p *httpsfv.Params, name string) (int64, bool) {
	v, ok := p.Get(name)
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	return n, ok && n >= 0
}
