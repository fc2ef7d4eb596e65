package public

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/robotsdecision"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// WeeksShown is how many complete weeks of request counts hosts.md shows.
const WeeksShown = report.WeeksShown

// CountFunc returns the dispatches to host per UTC day from since to
// until ("YYYY-MM-DD", both included): ledger.Ledger.CountDispatches, or
// the same read from the cache branch.
type CountFunc func(host, since, until string) (map[string]int, error)

// Observe records in rep what the state and the ledgers say of each host
// the manifests name, as of now: the last complete week (rep.Week), and
// per host the meaning of its kept robots.txt and its requests in each of
// the WeeksShown weeks to it (rep.Hosts). The pages are then rendered from
// rep alone, so the committed report is enough to render them again.
func Observe(rep *report.Report, set *manifest.Set, st *state.State, count CountFunc, now time.Time) error {
	weeks := report.CompleteWeeks(now, WeeksShown)
	since, until := weeks[0].From, weeks[len(weeks)-1].To
	robots := RobotsStates(set, st)
	pace := map[string][]report.PaceHint{}
	for host, hints := range HostHints(set, st) {
		for _, h := range hints {
			pace[host] = append(pace[host], report.PaceHint{Signal: h.Source, Value: h.Text, Seconds: h.Gap.Seconds()})
		}
	}
	var hosts []report.HostSeen
	for _, h := range RulesOf(set).Hosts {
		name := h.Host.Name
		// One count per host over all the weeks, then shared out by day.
		days, err := count(name, since, until)
		if err != nil {
			return fmt.Errorf("count the requests to %s: %w", name, err)
		}
		seen := report.HostSeen{Host: name, Robots: robots[name], Pace: pace[name]}
		if len(days) > 0 {
			seen.Requests = make([]int, len(weeks))
			seen.Daily = make([]int, 7*len(weeks))
			first, _ := time.Parse(time.DateOnly, since)
			for day, n := range days {
				for i, w := range weeks {
					if w.From <= day && day <= w.To {
						seen.Requests[i] += n
					}
				}
				if d, err := time.Parse(time.DateOnly, day); err == nil {
					if i := int(d.Sub(first).Hours() / 24); i >= 0 && i < len(seen.Daily) {
						seen.Daily[i] += n
					}
				}
			}
		}
		if seen.Robots != "" || len(seen.Pace) > 0 || slices.ContainsFunc(seen.Requests, func(n int) bool { return n != 0 }) {
			hosts = append(hosts, seen)
		}
	}
	slices.SortFunc(hosts, func(a, b report.HostSeen) int { return strings.Compare(a.Host, b.Host) })
	rep.Week, rep.Hosts = weeks[len(weeks)-1].Label, hosts
	return nil
}

// Pages renders every public page, as the reports directory holds them:
// POLICY.md, hosts.md, index.html and .well-known/security.txt, from the
// manifests and rep (which Observe filled, or which was read back from
// the repository). The weeks counted and the step security.txt's Expires
// is in follow rep's week; now stands in only for a report that names
// none.
func Pages(set *manifest.Set, rep *report.Report, now time.Time) ([]File, error) {
	asOf, err := rep.AsOf(now)
	if err != nil {
		return nil, err
	}
	rules := RulesOf(set)
	robots := map[string]string{}
	weeks := make([]Week, 0, WeeksShown)
	for _, w := range report.CompleteWeeks(asOf, WeeksShown) {
		weeks = append(weeks, Week{Label: w.Label, From: w.From, To: w.To, Requests: map[string]int{}})
	}
	hints := map[string][]gate.Hint{}
	for _, h := range rep.Hosts {
		robots[h.Host] = h.Robots
		for _, p := range h.Pace {
			gap := time.Duration(math.Round(p.Seconds * float64(time.Second)))
			hints[h.Host] = append(hints[h.Host], gate.Hint{Source: p.Signal, Gap: gap, Text: p.Value})
		}
		for i, n := range h.Requests {
			if i < len(weeks) {
				weeks[i].Requests[h.Host] = n
			}
		}
	}
	index, err := rules.IndexHTML(rep)
	if err != nil {
		return nil, fmt.Errorf("render index.html: %w", err)
	}
	return []File{
		{Name: "POLICY.md", Data: rules.PolicyMarkdown()},
		{Name: "hosts.md", Data: rules.HostsMarkdown(Hosts{Robots: robots, Weeks: weeks, Hints: hints})},
		{Name: "index.html", Data: index},
		{Name: SecurityTxt, Data: rules.SecurityTxtFile(asOf)},
	}, nil
}

// HostHints reads, per host, the site's asks for a slower pace that a run
// honours: the Crawl-delay and max-crawl-rate of the kept robots.txt copy
// for our product token, and the last RateLimit-Policy the host sent.
func HostHints(set *manifest.Set, st *state.State) map[string][]gate.Hint {
	out := map[string][]gate.Hint{}
	token := set.Policy.ProductToken()
	for _, src := range set.Sources {
		if _, done := out[src.Host]; done {
			continue
		}
		var hints []gate.Hint
		if kept, ok := st.Robots(robots.Key(src.Parsed)); ok {
			rules := robotsdecision.Rules(kept)
			if d := rules.CrawlDelay(token); d > 0 {
				hints = append(hints, gate.CrawlDelayHint(d))
			}
			if d, text := rules.MaxCrawlRate(token); d > 0 {
				hints = append(hints, gate.Hint{Source: gate.FromMaxCrawlRate, Gap: d, Text: text})
			}
		}
		if field := st.Host(src.Host).RateLimitPolicy; field != "" {
			if d, ok := gate.ParseRateLimitPolicy(field); ok {
				hints = append(hints, gate.Hint{Source: gate.FromRateLimitPolicy, Gap: d, Text: field})
			}
		}
		out[src.Host] = hints
	}
	return out
}

// RobotsStates says, per host, what its kept robots.txt means, without the
// date it was read (the page stays quiet), and how many of the host's
// sources it blocks.
func RobotsStates(set *manifest.Set, st *state.State) map[string]string {
	out := map[string]string{}
	blocked := map[string]int{}
	for _, src := range set.Sources {
		if st.Source(src.ID).Status == state.BlockedRobots {
			blocked[src.Host]++
		}
		if _, done := out[src.Host]; done {
			continue
		}
		kept, ok := st.Robots(robots.Key(src.Parsed))
		if !ok {
			continue
		}
		switch kept.Outcome {
		case state.RobotsParsed:
			out[src.Host] = "read, obeyed"
		case state.RobotsMissing:
			out[src.Host] = fmt.Sprintf("none (HTTP %d): everything allowed", kept.HTTPStatus)
		case state.RobotsUnreadable:
			out[src.Host] = "unavailable at the last try: nothing else requested"
		default:
			out[src.Host] = string(kept.Outcome)
		}
	}
	for h, n := range blocked {
		if out[h] == "" {
			out[h] = "read, obeyed"
		}
		out[h] += fmt.Sprintf("; %d source(s) disallowed", n)
	}
	return out
}
