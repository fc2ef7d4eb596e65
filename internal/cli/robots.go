package cli

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/robotsdecision"
	"github.com/taxkernel/taxkernelbot/internal/state"
	usagepref "github.com/taxkernel/taxkernelbot/internal/usage"
)

type robotsOptions struct {
	paths
	URL   string
	Clock clock.Clock // what "now" the kept copy's age is taken at; default clock.Real
	JSON  bool        // print one robotsAnswer on stdout instead of the text
	IO    IO
}

func cmdRobots(ctx context.Context, io IO, args []string) error {
	opts := robotsOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("robots", "[flags] URL", io).withArgs()
	opts.register(fs, "manifests", "state")
	fs.BoolVar(&opts.JSON, "json", false, "print the decision as one JSON document (see below)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError("robots takes exactly one URL\n%s", fs.usageLine())
	}
	opts.URL = fs.Arg(0)
	return runRobots(ctx, opts)
}

// runRobots explains, from the kept copy only, what robots.txt says about a
// URL: the same decision a run would take, without a request.
func runRobots(_ context.Context, opts robotsOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError("%q is not an http(s) URL", opts.URL)
	}
	pol := policy.Default()
	var host policy.Host
	if set, diags := manifest.Load(opts.Manifests); !diags.HasErrors() {
		pol = set.Policy
		host = set.Host(manifest.HostOf(u))
	}
	st, err := state.Load(opts.State)
	if err != nil {
		return cannotRun("%w", err)
	}
	key := robots.Key(u)
	kept, ok := st.Robots(key)
	if !ok {
		return nothingYet("no robots.txt copy yet for %s in %s: a run fetches it before the first document of that host (taxkernelbot run --only SOURCE, for a source on it)", key, opts.State)
	}
	token := pol.ProductToken()
	dec := robotsdecision.Kept(kept, ok, opts.Clock.Now(), pol.RobotsTTL)
	rules := robotsdecision.Rules(kept)
	if opts.JSON {
		return writeJSON(opts.IO.Out, robotsJSON(u, token, kept, dec, rules, host))
	}
	w := opts.IO.Out
	// The rules quote the server's robots.txt: shown with control
	// characters escaped.
	fmt.Fprintf(w, "robots.txt: %s, fetched %s, HTTP %d, %s\n", terminal.Text(kept.URL), kept.FetchedAt.UTC().Format(time.RFC3339), kept.HTTPStatus, kept.Outcome)
	if !dec.Current {
		fmt.Fprintf(w, "note: %s; the next run fetches it again before any document of this host, and decides from that\n", dec.Stale)
	}
	fmt.Fprintf(w, "agent: %s\n", token)
	if kept.Outcome == state.RobotsParsed && kept.Body == nil {
		fmt.Fprintln(w, "disallowed until then: the copy cannot be read without its body")
	} else {
		fmt.Fprintln(w, terminal.Lines(rules.Explain(token, u)))
	}
	if d := rules.CrawlDelay(token); d > 0 {
		fmt.Fprintf(w, "crawl-delay: %s\n", d)
	}
	if d, text := rules.MaxCrawlRate(token); d > 0 {
		fmt.Fprintf(w, "max-crawl-rate: %s (a request every %s at most)\n", terminal.Text(text), d)
	}
	if p := usagepref.Combine(rules.Preferences(token, u)); p != nil {
		fmt.Fprintf(w, "usage preferences: %s\n", terminal.Text(p.String()))
	}
	if !rules.Allowed(token, u) && host.Override != nil && kept.Outcome == state.RobotsParsed {
		fmt.Fprintf(w, "robots_override for %s lifts this Disallow: %q\n", host.Name, host.Override.Permission)
	}
	return nil
}

// robotsJSON is the decision runRobots explains, as robotsAnswer.
func robotsJSON(u *url.URL, token string, kept state.Robots, dec robotsdecision.Decision, rules *robots.Rules, host policy.Host) robotsAnswer {
	v := rules.Verdict(token, u)
	a := robotsAnswer{
		URL: u.String(), Agent: token, Decision: "disallowed", Reason: v.Reason, Group: v.Group,
		CrawlDelaySeconds: rules.CrawlDelay(token).Seconds(),
		Usage:             usagepref.Combine(rules.Preferences(token, u)),
		Copy: robotsCopy{
			URL: kept.URL, Fetched: kept.FetchedAt.UTC().Format(time.RFC3339), HTTPStatus: kept.HTTPStatus,
			Outcome: string(kept.Outcome), Current: dec.Current, Stale: dec.Stale,
		},
	}
	_, a.MaxCrawlRate = rules.MaxCrawlRate(token)
	if v.Allowed {
		a.Decision = "allowed"
	}
	if kept.Outcome == state.RobotsParsed && kept.Body == nil {
		a.Reason = "disallowed until then: the copy cannot be read without its body"
	}
	if v.Rule != nil {
		a.Rule = &robotsRule{Directive: "Disallow", Pattern: v.Rule.Pattern, Line: v.Rule.Line}
		if v.Rule.Allow {
			a.Rule.Directive = "Allow"
		}
	}
	if !v.Allowed && host.Override != nil && kept.Outcome == state.RobotsParsed {
		a.Override = host.Override.Permission
	}
	return a
}
