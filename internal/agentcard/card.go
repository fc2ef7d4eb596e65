package agentcard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// Draft is the version of the registry draft the card follows.
const Draft = "draft-meunier-webbotauth-registry-04"

// The draft registers no well-known path and no media type for the card:
// a card is found through its client_id, the https URL it is served at,
// and the Client ID Metadata Document it extends is served as JSON. We
// serve ours beside the key directory, named as the draft's own example
// names a card's URL (.well-known/signature-agent-card) with ".json"
// added, so that a static host such as GitHub Pages, which picks the
// Content-Type by the extension, serves it as JSON.
const (
	MediaType = "application/json"
	FileName  = "signature-agent-card.json"
)

// URLBeside is the URL of the card served beside the key directory at
// directory: the same folder, named FileName. "" when directory is not an
// absolute URL.
func URLBeside(directory string) string {
	u, err := url.Parse(directory)
	if err != nil || u.Host == "" || directory == "" {
		return ""
	}
	return u.ResolveReference(&url.URL{Path: FileName}).String()
}

// Card is a Signature Agent Card. Every parameter is optional; the JSON
// names and order are the draft's.
type Card struct {
	ClientID   string          `json:"client_id,omitempty"`
	ClientName string          `json:"client_name,omitempty"`
	ClientURI  string          `json:"client_uri,omitempty"`
	LogoURI    string          `json:"logo_uri,omitempty"`
	Contacts   []string        `json:"contacts,omitempty"`
	JWKSURI    string          `json:"jwks_uri,omitempty"`
	JWKS       *sign.Directory `json:"jwks,omitempty"`
	WebBotAuth *WebBotAuth     `json:"web_bot_auth,omitempty"`
}

// WebBotAuth is the card's web_bot_auth object, the members the draft's
// "Web Bot Auth Metadata Parameters" registry starts with.
type WebBotAuth struct {
	ExpectedUserAgent Strings  `json:"expected-user-agent,omitempty"`
	ProductToken      string   `json:"rfc9309-product-token,omitempty"`
	RobotsCompliance  *bool    `json:"rfc9309-compliance,omitempty"`
	Trigger           string   `json:"trigger,omitempty"`
	Purpose           string   `json:"purpose,omitempty"`
	TargetedContent   string   `json:"targeted-content,omitempty"`
	RateControl       string   `json:"rate-control,omitempty"`
	RateExpectation   string   `json:"rate-expectation,omitempty"`
	KnownURLs         []string `json:"known-urls,omitempty"`
	IPsURI            string   `json:"ips_uri,omitempty"`
}

// The two values of trigger.
const (
	TriggerFetcher = "fetcher" // each request initiated by a user
	TriggerCrawler = "crawler" // autonomous
)

// Strings is "one or more" strings: written as a bare string when there is
// one (as the draft's example writes expected-user-agent), as an array
// otherwise; either is read.
type Strings []string

// MarshalJSON writes one string bare.
func (s Strings) MarshalJSON() ([]byte, error) {
	if len(s) == 1 {
		return json.Marshal(s[0])
	}
	return json.Marshal([]string(s))
}

// UnmarshalJSON reads a string or an array of strings.
func (s *Strings) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = Strings{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

// Marshal renders c as indented JSON with a final newline.
func (c Card) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // URLs with & and <> stay readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("agentcard: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// kind is a JSON value's type as the draft names it.
type kind int

const (
	kString kind = iota
	kStrings
	kStringOrStrings
	kBool
	kObject
)

func (k kind) String() string {
	return [...]string{"a string", "an array of strings", "a string or an array of strings", "a boolean (true or false)", "an object"}[k]
}

// member is what the draft says of one parameter: its type, and for
// URLs whether the scheme must be https.
type member struct {
	kind  kind
	https bool
}

var topMembers = map[string]member{
	"client_id":    {kString, true},
	"client_name":  {kind: kString},
	"client_uri":   {kind: kString},
	"logo_uri":     {kind: kString},
	"contacts":     {kind: kStrings},
	"jwks_uri":     {kString, true},
	"jwks":         {kind: kObject},
	"web_bot_auth": {kind: kObject},
}

var botMembers = map[string]member{
	"expected-user-agent":   {kind: kStringOrStrings},
	"rfc9309-product-token": {kind: kString},
	"rfc9309-compliance":    {kind: kBool},
	"trigger":               {kind: kString},
	"purpose":               {kind: kString},
	"targeted-content":      {kind: kString},
	"rate-control":          {kind: kString},
	"rate-expectation":      {kind: kString},
	"known-urls":            {kind: kStrings},
	"ips_uri":               {kString, true},
}

// Parse reads a card and checks it against the draft: each parameter of
// the type the draft gives it, the URLs that must be https so, trigger
// one of its two values, not both jwks and jwks_uri, and at least one
// parameter. Parameters it does not know are ignored, as the draft asks.
// An error names the parameter and its line.
func Parse(data []byte) (Card, error) {
	lines := memberLines(data)
	fail := func(path, format string, args ...any) error {
		where := ""
		if l := lines[path]; l > 0 {
			where = fmt.Sprintf("line %d: ", l)
		}
		return fmt.Errorf("agentcard: %s%s %s", where, path, fmt.Sprintf(format, args...))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Card{}, fmt.Errorf("agentcard: not a JSON object%s: %w", syntaxLine(data, err), err)
	}
	if top == nil {
		return Card{}, errors.New("agentcard: not a JSON object: the card is null")
	}
	if len(top) == 0 {
		return Card{}, errors.New("agentcard: the card is empty; " + Draft + " wants at least one parameter")
	}
	if err := check(top, topMembers, "", fail); err != nil {
		return Card{}, err
	}
	if _, ok := top["jwks"]; ok {
		if _, both := top["jwks_uri"]; both {
			return Card{}, fail("jwks", "and jwks_uri are both set; a card carries its keys inline (jwks) or names where they are (jwks_uri), never both")
		}
	}
	if raw, ok := top["web_bot_auth"]; ok {
		var bot map[string]json.RawMessage
		if err := json.Unmarshal(raw, &bot); err != nil {
			return Card{}, fail("web_bot_auth", "is not an object: %v", err)
		}
		if err := check(bot, botMembers, "web_bot_auth.", fail); err != nil {
			return Card{}, err
		}
		if raw, ok := bot["trigger"]; ok {
			var t string
			_ = json.Unmarshal(raw, &t)
			if t != TriggerFetcher && t != TriggerCrawler {
				return Card{}, fail("web_bot_auth.trigger", "is %q; the draft's values are %q (a user's request) and %q (autonomous)", t, TriggerFetcher, TriggerCrawler)
			}
		}
	}
	if raw, ok := top["jwks"]; ok {
		var set struct {
			Keys *[]json.RawMessage `json:"keys"`
		}
		if err := json.Unmarshal(raw, &set); err != nil || set.Keys == nil {
			return Card{}, fail("jwks", "is not a JWK Set: want {\"keys\": [...]} (RFC 7517, section 5)")
		}
		for i, k := range *set.Keys {
			var obj map[string]json.RawMessage
			if json.Unmarshal(k, &obj) != nil || obj == nil {
				return Card{}, fail("jwks", "key %d is not a JSON object", i+1)
			}
		}
	}
	var c Card
	if err := json.Unmarshal(data, &c); err != nil {
		return Card{}, fmt.Errorf("agentcard: %w", err)
	}
	return c, nil
}

// check checks the members of obj that spec knows.
func check(obj map[string]json.RawMessage, spec map[string]member, prefix string, fail func(path, format string, args ...any) error) error {
	for name, raw := range obj {
		m, known := spec[name]
		if !known {
			continue
		}
		path := prefix + name
		got := jsonKind(raw)
		ok := false
		switch m.kind {
		case kString:
			ok = got == "a string"
		case kBool:
			ok = got == "a boolean"
		case kObject:
			ok = got == "an object"
		case kStrings, kStringOrStrings:
			ok = got == "an array" || m.kind == kStringOrStrings && got == "a string"
			var many []any
			if got == "an array" && json.Unmarshal(raw, &many) == nil {
				for i, v := range many {
					if _, isString := v.(string); !isString {
						return fail(path, "item %d is not a string; want %s", i+1, m.kind)
					}
				}
			}
		}
		if !ok {
			return fail(path, "is %s; %s makes it %s", got, Draft, m.kind)
		}
		if m.https {
			var s string
			_ = json.Unmarshal(raw, &s)
			if u, err := url.Parse(s); err != nil || u.Scheme != "https" || u.Host == "" {
				return fail(path, "%q is not an https URL; the draft allows https only", s)
			}
		}
	}
	return nil
}

func jsonKind(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "empty"
	}
	switch s[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// memberLines maps the card's members, and web_bot_auth's as
// "web_bot_auth.NAME", to the line their name is on.
func memberLines(data []byte) map[string]int {
	out := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return out
	}
	_ = members(dec, data, "", out)
	return out
}

// members reads an object's members, up to its closing brace, noting the
// line of each name; it goes into web_bot_auth only.
func members(dec *json.Decoder, data []byte, prefix string, out map[string]int) error {
	for dec.More() {
		// The offset before a name may be at the comma or the whitespace
		// before it; the name is on the line of its opening quote.
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		at := start + int64(bytes.IndexByte(data[start:], '"'))
		out[prefix+name] = 1 + bytes.Count(data[:at], []byte{'\n'})
		tok, err = dec.Token()
		if err != nil {
			return err
		}
		switch {
		case tok == json.Delim('{') && prefix == "" && name == "web_bot_auth":
			err = members(dec, data, "web_bot_auth.", out)
		case tok == json.Delim('{') || tok == json.Delim('['):
			err = skip(dec, 1)
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.Token() // the closing brace
	return err
}

// skip reads tokens until depth open brackets are closed.
func skip(dec *json.Decoder, depth int) error {
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// syntaxLine says on which line a JSON syntax error is, "" when err is
// not one.
func syntaxLine(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return ""
	}
	off := min(int(se.Offset), len(data))
	return fmt.Sprintf(" (line %d)", 1+bytes.Count(data[:off], []byte{'\n'}))
}

// CheckKeys checks what a verifier needs of inline keys: each an Ed25519
// JWK whose kid, when set, is its RFC 7638 thumbprint (the keyid our
// signatures carry).
func (c Card) CheckKeys() error {
	if c.JWKS == nil || len(c.JWKS.Keys) == 0 {
		return errors.New("agentcard: the card lists no key (jwks is empty)")
	}
	for i, k := range c.JWKS.Keys {
		if _, err := k.PublicKey(); err != nil {
			return fmt.Errorf("agentcard: jwks key %d: %w", i+1, err)
		}
		if k.Kid != "" && k.Kid != k.Thumbprint() {
			return fmt.Errorf("agentcard: jwks key %d: kid %q is not its thumbprint %q", i+1, k.Kid, k.Thumbprint())
		}
	}
	return nil
}

// SameKeys says how the card's inline keys differ from the directory's
// (by kid, x, nbf and exp), "" when they are the same.
func (c Card) SameKeys(d sign.Directory) string {
	var mine []sign.JWK
	if c.JWKS != nil {
		mine = c.JWKS.Keys
	}
	key := func(k sign.JWK) string {
		return fmt.Sprintf("%s x=%s nbf=%d exp=%d", k.Thumbprint(), k.X, k.Nbf, k.Exp)
	}
	have := map[string]bool{}
	for _, k := range mine {
		have[key(k)] = true
	}
	var diff []string
	for _, k := range d.Keys {
		if !have[key(k)] {
			diff = append(diff, "the directory lists "+key(k)+", the card does not")
		}
		delete(have, key(k))
	}
	for _, k := range mine {
		if have[key(k)] {
			diff = append(diff, "the card lists "+key(k)+", the directory does not")
		}
	}
	return strings.Join(diff, "; ")
}
