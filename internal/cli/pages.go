package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// weeksShown is how many complete weeks of request counts hosts.md shows.
const weeksShown = 4

// policyPage is reports/POLICY.md for set.
func policyPage(set *manifest.Set) public.File {
	return public.File{Name: "POLICY.md", Data: public.RulesOf(set).PolicyMarkdown()}
}

// pageInputs is what the public pages are made from.
type pageInputs struct {
	set *manifest.Set
	st  *state.State
	rep *report.Report
	// count returns the dispatches to host per UTC day from since to until;
	// the local ledgers' CountDispatches.
	count func(host, since, until string) (map[string]int, error)
	now   time.Time
}

// publicPages renders the pages operators read: the rules, the hosts and
// the public page.
func publicPages(in pageInputs) ([]public.File, error) {
	rules := public.RulesOf(in.set)
	weeks := public.CompleteWeeks(in.now, weeksShown)
	for i := range weeks {
		weeks[i].Requests = map[string]int{}
		for _, h := range rules.Hosts {
			days, err := in.count(h.Host.Name, weeks[i].From, weeks[i].To)
			if err != nil {
				return nil, fmt.Errorf("count the requests to %s: %w", h.Host.Name, err)
			}
			for _, n := range days {
				weeks[i].Requests[h.Host.Name] += n
			}
		}
	}
	hosts := public.Hosts{Robots: robotsStates(in.set, in.st), Weeks: weeks}
	index, err := rules.IndexHTML(in.rep)
	if err != nil {
		return nil, fmt.Errorf("render index.html: %w", err)
	}
	return []public.File{
		{Name: "POLICY.md", Data: rules.PolicyMarkdown()},
		{Name: "hosts.md", Data: rules.HostsMarkdown(hosts)},
		{Name: "index.html", Data: index},
	}, nil
}

// robotsStates says, per host, what its kept robots.txt means, without the
// date it was read (the page stays quiet), and how many of the host's
// sources it blocks.
func robotsStates(set *manifest.Set, st *state.State) map[string]string {
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

// writePublicPages regenerates the public pages under reportsDir, each
// only when it changed, so they change in the bot's pull request exactly
// when what they show does.
func writePublicPages(reportsDir, ledgerDir string, set *manifest.Set, st *state.State, rep *report.Report, now time.Time) error {
	count := func(string, string, string) (map[string]int, error) { return nil, nil }
	if _, err := os.Stat(ledgerDir); err == nil { // no ledgers yet: no requests, and nothing to create
		l, err := ledger.Open(ledgerDir)
		if err != nil {
			return err
		}
		defer l.Close()
		count = l.CountDispatches
	}
	files, err := publicPages(pageInputs{set: set, st: st, rep: rep, count: count, now: now})
	if err != nil {
		return err
	}
	_, err = public.Write(reportsDir, files...)
	return err
}
