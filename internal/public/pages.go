package public

import (
	"fmt"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/robotsdecision"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// WeeksShown is how many complete weeks of request counts hosts.md shows.
const WeeksShown = 4

// CountFunc returns the dispatches to host per UTC day from since to
// until ("YYYY-MM-DD", both included): ledger.Ledger.CountDispatches, or
// the same read from the cache branch.
type CountFunc func(host, since, until string) (map[string]int, error)

// Pages renders every public page, as the reports directory holds them:
// POLICY.md, hosts.md, index.html and .well-known/security.txt. now picks
// the weeks counted and the step security.txt's Expires is in.
func Pages(set *manifest.Set, st *state.State, rep *report.Report, count CountFunc, now time.Time) ([]File, error) {
	rules := RulesOf(set)
	weeks := CompleteWeeks(now, WeeksShown)
	since, until := weeks[0].From, weeks[0].To
	for i := range weeks {
		weeks[i].Requests = map[string]int{}
		since, until = min(since, weeks[i].From), max(until, weeks[i].To)
	}
	for _, h := range rules.Hosts {
		// One count per host over all the weeks, then shared out by day.
		days, err := count(h.Host.Name, since, until)
		if err != nil {
			return nil, fmt.Errorf("count the requests to %s: %w", h.Host.Name, err)
		}
		for day, n := range days {
			for i := range weeks {
				if weeks[i].From <= day && day <= weeks[i].To {
					weeks[i].Requests[h.Host.Name] += n
				}
			}
		}
	}
	index, err := rules.IndexHTML(rep)
	if err != nil {
		return nil, fmt.Errorf("render index.html: %w", err)
	}
	return []File{
		{Name: "POLICY.md", Data: rules.PolicyMarkdown()},
		{Name: "hosts.md", Data: rules.HostsMarkdown(Hosts{Robots: RobotsStates(set, st), Weeks: weeks, Hints: HostHints(set, st)})},
		{Name: "index.html", Data: index},
		{Name: SecurityTxt, Data: rules.SecurityTxtFile(now)},
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
