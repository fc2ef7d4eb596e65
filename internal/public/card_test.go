package public_test

import (
	"crypto/ed25519"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/agentcard"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

const cardURL = "https://bot.example/.well-known/signature-agent-card.json"

// testDirectory is a key directory mid-rotation: the current key and one
// rotated out, listed until it expires.
func testDirectory() sign.Directory {
	old := sign.PrivateJWK(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)))
	cur := sign.PrivateJWK(ed25519.NewKeyFromSeed([]byte(strings.Repeat("k", ed25519.SeedSize))))
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	d := sign.Rotate(sign.Directory{}, old, t0, 7*24*time.Hour)
	return sign.Rotate(d, cur, t0.Add(24*time.Hour), 7*24*time.Hour)
}

// TestAgentCardGolden: the card of the test manifests, as the draft
// reads it, with the directory's keys.
func TestAgentCardGolden(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	dir := testDirectory()
	data, err := public.AgentCard(set, cardURL, dir).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "agent-card.golden.json", data)
	c, err := agentcard.Parse(data)
	if err != nil {
		t.Fatalf("the draft's rules refuse our card: %v", err)
	}
	if err := c.CheckKeys(); err != nil {
		t.Error(err)
	}
	if diff := c.SameKeys(dir); diff != "" {
		t.Errorf("card and directory differ: %s", diff)
	}
	w := c.WebBotAuth
	if c.ClientID != cardURL || c.ClientName != "TaxKernelBot" || c.ClientURI != "https://taxkernel.com/bot" ||
		!slices.Equal(c.Contacts, []string{"mailto:contact@taxkernel.com"}) ||
		w.ProductToken != "TaxKernelBot" || w.RobotsCompliance == nil || !*w.RobotsCompliance || w.Trigger != "crawler" {
		t.Errorf("identity: %+v %+v", c, w)
	}
}

// TestAgentCardRates: the rate expectation is the gate's: the policy's
// gap as a rate and its cap, then each slower host with its own.
func TestAgentCardRates(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	got := public.RulesOf(set).RateExpectation()
	for _, want := range []string{
		"per host, one request at a time: 4s–6s apart (max=0.25rps), at most 150 per UTC day",
		"law.example.gov 10s–15s apart (max=0.1rps), at most 150 per UTC day",
		"www.example.gov 5s–8s apart (max=0.2rps), at most 120 per UTC day, only Mon-Fri 20:00-07:00, Sat-Sun (Europe/London)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rate expectation %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "other.example.gov") {
		t.Errorf("rate expectation %q lists a host that keeps the policy's rate", got)
	}
	// How an origin slows us: every signal the gate honours.
	card := public.AgentCard(set, cardURL, testDirectory())
	for _, signal := range []string{"Crawl-delay", "max-crawl-rate", "RateLimit-Policy", "RateLimit with nothing remaining", "Retry-After", "403"} {
		if !strings.Contains(card.WebBotAuth.RateControl, signal) {
			t.Errorf("the card's rate-control %q does not name %s", card.WebBotAuth.RateControl, signal)
		}
	}
}

// TestAgentCardKnownURLs: robots.txt and the listed URLs, but not one an
// exclusion covers: we never request it.
func TestAgentCardKnownURLs(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	set.Policy.Exclude = append(set.Policy.Exclude, policy.Exclusion{Host: "www.example.gov", Path: "/tables", Reason: "owner request"})
	got := public.KnownURLs(set)
	want := []string{"/robots.txt", "https://law.example.gov/act", "https://other.example.gov:8443/page", "https://www.example.gov/rates"}
	if !slices.Equal(got, want) {
		t.Errorf("known-urls %q, want %q", got, want)
	}
}

func TestAgentCardURL(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	r := public.RulesOf(set)
	if got := r.AgentCardURL(); got != "" {
		t.Errorf("unsigned: card URL %q", got)
	}
	r.SignDirectory = "https://taxkernel.com" + sign.WellKnownPath
	if got := r.AgentCardURL(); got != "https://taxkernel.com/.well-known/signature-agent-card.json" {
		t.Errorf("card URL %q", got)
	}
}

// TestVerifyBySignature: the rules page and the bot page say we have no
// fixed addresses and, when requests are signed, point to the key
// directory and the card to check us by instead.
func TestVerifyBySignature(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	const noIPs = "we have no fixed IP ranges and publish none"
	unsigned := public.RulesOf(set)
	md := string(unsigned.PolicyMarkdown())
	page, err := unsigned.IndexHTML(testReport(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"POLICY.md": md, "index.html": string(page)} {
		if !strings.Contains(doc, noIPs) || !strings.Contains(doc, "Requests are not signed yet") || strings.Contains(doc, "signature-agent-card") {
			t.Errorf("unsigned %s: %s", name, doc)
		}
	}

	set.Policy.SignDirectory = "https://taxkernel.com" + sign.WellKnownPath
	signed := public.RulesOf(set)
	md = string(signed.PolicyMarkdown())
	for _, want := range []string{
		noIPs,
		"Verify us by signature instead.",
		"names our key directory, `https://taxkernel.com/.well-known/http-message-signatures-directory`",
		"Our Signature Agent Card (draft-meunier-webbotauth-registry-04), `https://taxkernel.com/.well-known/signature-agent-card.json`, lists the same keys",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("signed POLICY.md lacks %q:\n%s", want, md)
		}
	}
	page, err = signed.IndexHTML(testReport(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		noIPs,
		`<a href="https://taxkernel.com/.well-known/http-message-signatures-directory"><code>https://taxkernel.com/.well-known/http-message-signatures-directory</code></a>`,
		`our Signature Agent Card (draft-meunier-webbotauth-registry-04), <a href="https://taxkernel.com/.well-known/signature-agent-card.json">`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("signed index.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "not signed yet") || strings.Contains(md, "not signed yet") {
		t.Error("signed pages say requests are not signed")
	}
}

// TestCardDrift: a card is current until the policy or the manifests
// change what it says; its keys are not its business.
func TestCardDrift(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	card := public.AgentCard(set, cardURL, testDirectory())
	if drift, err := public.CardDrift(set, card); err != nil || drift != "" {
		t.Fatalf("fresh card: drift %q, %v", drift, err)
	}
	rotated := testDirectory()
	rotated.Keys = rotated.Keys[:1]
	card.JWKS = &rotated
	if drift, _ := public.CardDrift(set, card); drift != "" {
		t.Errorf("other keys: drift %q", drift)
	}
	set.Policy.Exclude = append(set.Policy.Exclude, policy.Exclusion{Host: "www.example.gov", Reason: "owner request"})
	set.Policy.From = "abuse@example.org"
	drift, err := public.CardDrift(set, card)
	if want := "contacts, web_bot_auth.known-urls, web_bot_auth.rate-control, web_bot_auth.targeted-content"; err != nil || drift != want {
		t.Errorf("after an exclusion and a new From: drift %q, %v; want %q", drift, err, want)
	}
}
