package agentcard_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/agentcard"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// The examples of draft-meunier-webbotauth-registry-04: the card of its
// section "Signature Agent Card" and the one its "CIMD-Based Discovery"
// returns.
const (
	draftCard = `{
  "client_id": "https://example.com/bot",
  "client_name": "Example Bot",
  "client_uri": "https://example.com/bot/about.html",
  "logo_uri": "https://example.com/logo.png",
  "contacts": ["mailto:bot-support@example.com"],
  "jwks_uri": "https://example.com/.well-known/http-message-signatures-directory",
  "web_bot_auth": {
    "expected-user-agent": "Mozilla/5.0 ExampleBot",
    "rfc9309-product-token": "ExampleBot",
    "rfc9309-compliance": false,
    "trigger": "fetcher",
    "purpose": "search",
    "targeted-content": "Cat pictures",
    "rate-control": "429",
    "rate-expectation": "avg=10rps;max=100rps",
    "known-urls": ["/", "/robots.txt", "*.png"],
    "ips_uri": "https://example.com/ips.json"
  }
}`
	draftCIMD = `{
  "client_id": "https://example.com/bot",
  "client_name": "Example Bot",
  "jwks_uri": "https://example.com/.well-known/http-message-signatures-directory",
  "web_bot_auth": {
    "trigger": "fetcher",
    "purpose": "search"
  }
}`
)

// TestDraftExamples: the draft's own cards parse, every parameter lands
// in a field (none is dropped as unknown), and written back they are the
// same JSON, names and types alike.
func TestDraftExamples(t *testing.T) {
	for name, doc := range map[string]string{"card": draftCard, "cimd": draftCIMD} {
		c, err := agentcard.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: written back as\n%s\nwant the draft's\n%s", name, out, doc)
		}
	}
	c, _ := agentcard.Parse([]byte(draftCard))
	if w := c.WebBotAuth; w == nil || w.RobotsCompliance == nil || *w.RobotsCompliance || w.ProductToken != "ExampleBot" ||
		len(w.KnownURLs) != 3 || w.RateExpectation != "avg=10rps;max=100rps" || w.IPsURI != "https://example.com/ips.json" {
		t.Errorf("web_bot_auth read as %+v", w)
	}
}

// TestParseRefuses: each departure from the draft's types and rules is
// refused, naming the parameter and its line.
func TestParseRefuses(t *testing.T) {
	// -03 listed directives in rfc9309-compliance; -04 makes it a boolean.
	draft03 := strings.Replace(draftCard, `"rfc9309-compliance": false`, `"rfc9309-compliance": ["User-Agent", "Disallow"]`, 1)
	for _, c := range []struct{ name, doc, want string }{
		{"compliance as -03's array", draft03, "line 11: web_bot_auth.rfc9309-compliance is an array; draft-meunier-webbotauth-registry-04 makes it a boolean"},
		{"both key forms", strings.Replace(draftCard, `"web_bot_auth"`, `"jwks": {"keys": []}, "web_bot_auth"`, 1), "jwks and jwks_uri are both set"},
		{"http jwks_uri", strings.Replace(draftCard, `"https://example.com/.well-known`, `"http://example.com/.well-known`, 1), "line 7: jwks_uri \"http://example.com/.well-known/http-message-signatures-directory\" is not an https URL"},
		{"unknown trigger", strings.Replace(draftCard, `"fetcher"`, `"scraper"`, 1), `line 12: web_bot_auth.trigger is "scraper"`},
		{"contacts a string", strings.Replace(draftCard, `["mailto:bot-support@example.com"]`, `"mailto:bot-support@example.com"`, 1), "line 6: contacts is a string; draft-meunier-webbotauth-registry-04 makes it an array of strings"},
		{"known-urls with a number", strings.Replace(draftCard, `"*.png"]`, `404]`, 1), "web_bot_auth.known-urls item 3 is not a string"},
		{"empty", `{}`, "wants at least one parameter"},
		{"not JSON", "{\n  \"client_name\": \"x\",,\n}", "(line 2)"},
		{"jwks not a set", `{"jwks": {"kty": "OKP"}}`, "jwks is not a JWK Set"},
	} {
		_, err := agentcard.Parse([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
	// Unknown parameters, at either level, are ignored.
	if _, err := agentcard.Parse([]byte(`{"client_name": "x", "software_id": 3, "web_bot_auth": {"future-thing": [1]}}`)); err != nil {
		t.Errorf("unknown parameters: %v", err)
	}
}

func TestURLBeside(t *testing.T) {
	for dir, want := range map[string]string{
		"https://taxkernel.com/.well-known/http-message-signatures-directory": "https://taxkernel.com/.well-known/signature-agent-card.json",
		"http://127.0.0.1:8080/.well-known/http-message-signatures-directory": "http://127.0.0.1:8080/.well-known/signature-agent-card.json",
		"": "", "not a url": "",
	} {
		if got := agentcard.URLBeside(dir); got != want {
			t.Errorf("URLBeside(%q) = %q, want %q", dir, got, want)
		}
	}
}

func TestKeys(t *testing.T) {
	k1, _ := sign.GenerateKey()
	k2, _ := sign.GenerateKey()
	d := sign.Directory{Keys: []sign.JWK{sign.PrivateJWK(k1), sign.PrivateJWK(k2)}}
	d.Keys[1].Exp = 1767225600
	same := d
	c := agentcard.Card{JWKS: &same}
	if err := c.CheckKeys(); err != nil {
		t.Fatal(err)
	}
	if diff := c.SameKeys(d); diff != "" {
		t.Errorf("same keys: %s", diff)
	}
	// The rotated-out key's expiry differs: a verifier would trust it
	// for longer from the card than from the directory.
	other := sign.Directory{Keys: []sign.JWK{d.Keys[0], d.Keys[1]}}
	other.Keys[1].Exp = 0
	if diff := (agentcard.Card{JWKS: &other}).SameKeys(d); !strings.Contains(diff, "exp=1767225600, the card does not") {
		t.Errorf("diff %q", diff)
	}
	bad := sign.Directory{Keys: []sign.JWK{d.Keys[0]}}
	bad.Keys[0].Kid = "not-the-thumbprint"
	if err := (agentcard.Card{JWKS: &bad}).CheckKeys(); err == nil || !strings.Contains(err.Error(), "is not its thumbprint") {
		t.Errorf("wrong kid: %v", err)
	}
	if err := (agentcard.Card{}).CheckKeys(); err == nil {
		t.Error("no keys: accepted")
	}
}
