package report

import (
	"fmt"
	"slices"
	"time"
)

// WeeksShown is how many complete weeks of request counts the reports
// keep for each host.
const WeeksShown = 4

// HostSeen is what the state and the ledgers say of one host, as the
// public pages show it: what its kept robots.txt means, and the requests
// dispatched to it in each of the weeks counted. Hosts nothing was ever
// seen of are left out.
type HostSeen struct {
	Host string `json:"host"`
	// Robots is what the kept robots.txt means ("read, obeyed", "none
	// (HTTP 404): everything allowed", …), without dates; empty when none
	// is kept.
	Robots string `json:"robots,omitempty"`
	// Requests holds the dispatches per week, oldest first, one for each
	// of the weeks ending with the report's Week.
	Requests []int `json:"requests,omitempty"`
	// Daily holds the dispatches per UTC day over the same weeks, oldest
	// first (7 a week): the host's page charts them.
	Daily []int `json:"daily,omitempty"`
	// Pace lists the site's own asks for a slower pace that the gate
	// honours when they are slower than the policy (Crawl-delay and
	// max-crawl-rate of the kept robots.txt, the last RateLimit-Policy
	// header); none when it asks for nothing.
	Pace []PaceHint `json:"pace,omitempty"`
}

// PaceHint is one of a site's asks for a slower pace.
type PaceHint struct {
	Signal  string  `json:"signal"`  // "Crawl-delay", "max-crawl-rate" or "RateLimit-Policy"
	Value   string  `json:"value"`   // as the site wrote it
	Seconds float64 `json:"seconds"` // the gap between requests it asks for
}

// Week is one ISO week, Monday to Sunday UTC.
type Week struct {
	Label    string // 2026-W48
	From, To string // YYYY-MM-DD, both included
}

// CompleteWeeks returns the n complete ISO weeks before the one that
// holds now, oldest first.
func CompleteWeeks(now time.Time, n int) []Week {
	d := now.UTC()
	d = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	monday := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	weeks := make([]Week, n)
	for i := range n {
		start := monday.AddDate(0, 0, -7*(n-i))
		y, w := start.ISOWeek()
		weeks[i] = Week{
			Label: fmt.Sprintf("%d-W%02d", y, w),
			From:  start.Format(time.DateOnly),
			To:    start.AddDate(0, 0, 6).Format(time.DateOnly),
		}
	}
	return weeks
}

// WeekLabel is the label of the last complete week before now: what a
// report rendered at now records as its Week.
func WeekLabel(now time.Time) string {
	return CompleteWeeks(now, 1)[0].Label
}

// AsOf is the moment a report's pages are rendered as of: the Monday
// after its last complete week, 00:00 UTC. The pages derived from a
// report (the weeks counted, security.txt's Expires) depend on it, not on
// the wall clock, so that rendering the committed report again gives the
// same bytes on any day. A report that names no week is rendered as of
// now.
func (r *Report) AsOf(now time.Time) (time.Time, error) {
	if r.Week == "" {
		return now, nil
	}
	var y, w int
	if _, err := fmt.Sscanf(r.Week, "%d-W%d", &y, &w); err != nil || w < 1 || w > 53 {
		return time.Time{}, fmt.Errorf("coverage report: week %q is not an ISO week like 2026-W48", r.Week)
	}
	// 4 January is always in week 1.
	jan4 := time.Date(y, time.January, 4, 0, 0, 0, 0, time.UTC)
	monday1 := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
	after := monday1.AddDate(0, 0, 7*w)
	if WeekLabel(after) != r.Week {
		return time.Time{}, fmt.Errorf("coverage report: week %q does not exist", r.Week)
	}
	return after, nil
}

// Seen returns what the report says of host: a zero HostSeen (with the
// name) when it says nothing.
func (r *Report) Seen(host string) HostSeen {
	i, ok := slices.BinarySearchFunc(r.Hosts, host, func(h HostSeen, name string) int {
		switch {
		case h.Host < name:
			return -1
		case h.Host > name:
			return 1
		}
		return 0
	})
	if !ok {
		return HostSeen{Host: host}
	}
	return r.Hosts[i]
}
