package sign

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/dunglas/httpsfv"
)

// The Web Bot Auth profile's fixed values.
const (
	Tag       = "web-bot-auth"
	Alg       = "ed25519"
	Label     = "sig1" // signature label, and the Signature-Agent member it covers
	NonceSize = 64     // bytes of randomness per request, base64 in the nonce parameter
	// DefaultValidity is how long a signature stays valid after it is made:
	// long enough for a slow first byte, short enough that a captured
	// request cannot be replayed later.
	DefaultValidity = time.Minute
)

// Options configure a Signer.
type Options struct {
	// Directory is the URL of the key directory
	// (https://…/.well-known/http-message-signatures-directory) named in
	// the Signature-Agent header. Empty: no Signature-Agent is sent and
	// the signature covers @authority only.
	Directory string
	Validity  time.Duration    // default DefaultValidity
	Now       func() time.Time // default time.Now
	Rand      io.Reader        // nonce source; default crypto/rand
}

// Signer signs requests with one key. It is safe for concurrent use.
type Signer struct {
	key   ed25519.PrivateKey
	keyID string
	agent string // serialized Signature-Agent Dictionary, "" when none
	opts  Options
}

// New returns a Signer for key.
func New(key ed25519.PrivateKey, opts Options) (*Signer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("sign: key is %d bytes, want an Ed25519 private key", len(key))
	}
	if opts.Validity <= 0 {
		opts.Validity = DefaultValidity
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	s := &Signer{key: key, opts: opts, keyID: PublicJWK(key.Public().(ed25519.PublicKey)).Kid}
	if opts.Directory != "" {
		u, err := url.Parse(opts.Directory)
		if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
			return nil, fmt.Errorf("sign: key directory %q is not an absolute http(s) URL; write e.g. https://example.com/.well-known/http-message-signatures-directory", opts.Directory)
		}
		d := httpsfv.NewDictionary()
		d.Add(Label, httpsfv.NewItem(opts.Directory))
		agent, err := httpsfv.Marshal(d)
		if err != nil {
			return nil, fmt.Errorf("sign: key directory %q cannot be a structured string: %w", opts.Directory, err)
		}
		s.agent = agent
	}
	return s, nil
}

// KeyID is the key's JWK thumbprint, the keyid of every signature.
func (s *Signer) KeyID() string { return s.keyID }

// Components are what each signature covers.
func (s *Signer) Components() []Component {
	if s.agent == "" {
		return []Component{{Name: "@authority"}}
	}
	return []Component{{Name: "@authority"}, {Name: "signature-agent", Key: Label}}
}

// Sign sets Signature-Agent (when a directory is configured),
// Signature-Input and Signature on r, replacing any earlier ones, so a
// request sent again is signed afresh.
func (s *Signer) Sign(r *http.Request) error {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Header.Del("Signature")
	r.Header.Del("Signature-Input")
	r.Header.Del("Signature-Agent")
	if s.agent != "" {
		r.Header.Set("Signature-Agent", s.agent)
	}
	nonce := make([]byte, NonceSize)
	if _, err := io.ReadFull(s.opts.Rand, nonce); err != nil {
		return fmt.Errorf("sign: nonce: %w", err)
	}
	now := s.opts.Now().Unix()
	p := Params{
		Created: now,
		Expires: now + int64(s.opts.Validity/time.Second),
		Nonce:   base64.StdEncoding.EncodeToString(nonce),
		Alg:     Alg,
		KeyID:   s.keyID,
		Tag:     Tag,
	}
	return SignWith(r, s.key, Label, s.Components(), p)
}

// SignWith signs r with key over components and p under label, and sets
// Signature-Input and Signature (RFC 9421 section 3.1). It is the bare
// RFC 9421 operation; Sign adds the Web Bot Auth profile.
func SignWith(r *http.Request, key ed25519.PrivateKey, label string, components []Component, p Params) error {
	il := innerList(components, p)
	base, _, err := baseOf(r, components, il)
	if err != nil {
		return fmt.Errorf("sign %s: %w", r.URL.Redacted(), err)
	}
	sig := ed25519.Sign(key, []byte(base))
	input := httpsfv.NewDictionary()
	input.Add(label, il)
	in, err := httpsfv.Marshal(input)
	if err != nil {
		return fmt.Errorf("sign %s: Signature-Input: %w", r.URL.Redacted(), err)
	}
	out := httpsfv.NewDictionary()
	out.Add(label, httpsfv.NewItem(sig))
	sv, err := httpsfv.Marshal(out)
	if err != nil {
		return fmt.Errorf("sign %s: Signature: %w", r.URL.Redacted(), err)
	}
	r.Header.Set("Signature-Input", in)
	r.Header.Set("Signature", sv)
	return nil
}
