package public

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/agentcard"
	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// Purpose is what the card says we do with what we fetch. The registry
// draft leaves the vocabulary open, and ours (keeping exact copies to cite
// and to follow their changes) is none of the AI preferences' categories.
const Purpose = "archive"

// AgentCardURL is where our Signature Agent Card is served: beside the key
// directory. "" when requests are not signed.
func (r Rules) AgentCardURL() string { return agentcard.URLBeside(r.SignDirectory) }

// AgentCard is TaxKernelBot's Signature Agent Card
// (draft-meunier-webbotauth-registry-04), served at cardURL: who we are
// and how to reach us (the policy's User-Agent and From), what we fetch
// (every URL the manifests list, robots.txt of their hosts) and how fast
// (each host's rules, as the gate enforces them), and keys, the key
// directory's, inline so that the card alone lets a verifier check us.
func AgentCard(set *manifest.Set, cardURL string, keys sign.Directory) agentcard.Card {
	r := RulesOf(set)
	yes := true
	c := agentcard.Card{
		ClientID:   cardURL,
		ClientName: r.ProductToken,
		Contacts:   []string{"mailto:" + r.From},
		JWKS:       &sign.Directory{Keys: slices.Clone(keys.Keys)},
		WebBotAuth: &agentcard.WebBotAuth{
			ExpectedUserAgent: agentcard.Strings{r.UserAgent},
			ProductToken:      r.ProductToken,
			RobotsCompliance:  &yes,
			// Nobody asks for a request: a schedule sends them all.
			Trigger:         agentcard.TriggerCrawler,
			Purpose:         Purpose,
			TargetedContent: targetedContent(set),
			RateControl:     r.rateControl(),
			RateExpectation: r.RateExpectation(),
			KnownURLs:       KnownURLs(set),
		},
	}
	if bot := r.BotURL(); bot != nil {
		c.ClientURI = bot.String()
	}
	return c
}

// KnownURLs are the URLs the bot requests: robots.txt of every host (a
// path, as the draft writes one for any host), then every URL the
// manifests list and no exclusion covers, sorted. Redirect hops are not
// predictable and are not listed.
func KnownURLs(set *manifest.Set) []string {
	var urls []string
	for _, s := range set.Sources {
		if _, excluded := set.Policy.Excluded(s.Parsed); excluded {
			continue
		}
		urls = append(urls, s.URL)
	}
	slices.Sort(urls)
	return append([]string{"/robots.txt"}, slices.Compact(urls)...)
}

// targetedContent says what the listed documents are.
func targetedContent(set *manifest.Set) string {
	kinds := map[string]bool{}
	hosts := map[string]bool{}
	n := 0
	for _, s := range set.Sources {
		if _, excluded := set.Policy.Excluded(s.Parsed); excluded {
			continue
		}
		kinds[string(s.Kind)], hosts[s.Host] = true, true
		n++
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	slices.Sort(names)
	return fmt.Sprintf("tax documents listed by hand, kept as exact copies for citation and to follow their changes: %d URLs on %d hosts (%s); nothing else is discovered or followed", n, len(hosts), strings.Join(names, ", "))
}

// rateControl says how an origin slows or stops us, with the figures the
// gate enforces.
func (r Rules) rateControl() string {
	return fmt.Sprintf("robots.txt (Disallow, and a Crawl-delay or max-crawl-rate slower than our gap) for %s or *; RateLimit-Policy slower than our gap, and RateLimit with nothing remaining, which holds the host until its reset; 429 or 503 with Retry-After (honoured up to %s), and backoff on 429, 5xx and timeouts; %d consecutive 403 responses pause the host until the next UTC day; mail to %s excludes a host or a path",
		r.ProductToken, fmtDuration(r.MaxRetryAfter), r.Default.PauseAfter403, r.From)
}

// RateExpectation is the most we ask of a host: the policy's gap and daily
// cap, then each host whose own rules are slower.
func (r Rules) RateExpectation() string {
	var b strings.Builder
	b.WriteString("per host, one request at a time: ")
	b.WriteString(hostRate(r.Default))
	var slower []string
	for _, h := range r.Hosts {
		if h.Host.Delay == r.Default.Host.Delay && h.Host.DailyCap == r.Default.Host.DailyCap && len(h.Host.OffPeak) == 0 {
			continue
		}
		slower = append(slower, h.Host.Name+" "+hostRate(h.Rules))
	}
	if len(slower) > 0 {
		b.WriteString("; slower: ")
		b.WriteString(strings.Join(slower, "; "))
	}
	return b.String()
}

// hostRate is one host's gap, as a rate too, its cap and its windows.
func hostRate(g gate.Rules) string {
	h := g.Host
	s := fmt.Sprintf("%s apart (max=%srps), at most %d per UTC day", fmtDelay(h.Delay), rps(h.Delay.Min), h.DailyCap)
	if len(h.OffPeak) > 0 {
		windows, loc := offPeak(h)
		s += ", only " + windows + " (" + loc + ")"
	}
	return s
}

// rps is one request per gap, in requests per second, two figures.
func rps(gap time.Duration) string {
	if gap <= 0 {
		return "1"
	}
	return strconv.FormatFloat(1/gap.Seconds(), 'g', 2, 64)
}

// verifyMarkdown is the rules page's word on how to tell us from someone
// sending our User-Agent: not by address (GitHub-hosted runners have
// none of their own), by signature, against the key directory and the
// card when requests are signed.
func (r Rules) verifyMarkdown() string {
	var b strings.Builder
	b.WriteString("- We run on GitHub-hosted runners (GitHub Actions), whose addresses come from GitHub's shared and changing ranges: we have no fixed IP ranges and publish none, so neither an IP list nor reverse DNS can tell you that a request is ours.\n")
	if r.SignDirectory == "" {
		b.WriteString("- Requests are not signed yet: the User-Agent and From headers name us, and every request we send is written to our public ledgers before it leaves (`taxkernelbot ledger HOST`): a request that is not there is not us.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "- Verify us by signature instead. Every request is signed (HTTP Message Signatures, RFC 9421, with the Web Bot Auth profile: Ed25519, tag `web-bot-auth`). Its `Signature-Agent` header names our key directory, %s; a request that claims to be us and does not verify against a key listed there is not us. docs/operators.md, in this repository, shows how to check one by hand.\n", markdown.Code(r.SignDirectory))
	fmt.Fprintf(&b, "- Our Signature Agent Card (%s), %s, lists the same keys with our name, contact, purpose, the rate each host can expect and every URL we request, for tools that read it.\n", agentcard.Draft, markdown.Code(r.AgentCardURL()))
	return b.String()
}

// CardDrift says which parameters of a published card differ from the
// card AgentCard writes now for set, at the card's own URL and with its
// own keys (the keys are the directory's business): "" when it is
// current. A card says what we fetch and how fast, so a change to the
// policy or the manifests leaves it behind until `keys card` runs again.
func CardDrift(set *manifest.Set, published agentcard.Card) (string, error) {
	var keys sign.Directory
	if published.JWKS != nil {
		keys = *published.JWKS
	}
	fresh := AgentCard(set, published.ClientID, keys)
	flat := func(c agentcard.Card) (map[string]string, error) {
		data, err := c.Marshal()
		if err != nil {
			return nil, err
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		out := map[string]string{}
		for name, raw := range doc {
			var bot map[string]json.RawMessage
			if name == "web_bot_auth" && json.Unmarshal(raw, &bot) == nil {
				for m, v := range bot {
					out[name+"."+m] = string(v)
				}
				continue
			}
			out[name] = string(raw)
		}
		return out, nil
	}
	was, err := flat(published)
	if err != nil {
		return "", err
	}
	now, err := flat(fresh)
	if err != nil {
		return "", err
	}
	var differ []string
	for name, v := range now {
		if was[name] != v {
			differ = append(differ, name)
		}
	}
	for name := range was {
		if _, ok := now[name]; !ok {
			differ = append(differ, name)
		}
	}
	slices.Sort(differ)
	return strings.Join(differ, ", "), nil
}
