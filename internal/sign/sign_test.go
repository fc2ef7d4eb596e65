package sign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dunglas/httpsfv"
)

type b26Vector struct {
	PrivateKeyPEM string `json:"private_key_pem"`
	PublicKeyPEM  string `json:"public_key_pem"`
	Request       struct {
		Method, Target, Host string
		Headers              [][2]string
		Body                 string
	}
	Label          string
	Components     []string
	Created        int64
	KeyID          string `json:"keyid"`
	SignatureBase  string `json:"signature_base"`
	SignatureInput string `json:"signature_input"`
	Signature      string
}

func loadB26(t *testing.T) (b26Vector, *http.Request) {
	t.Helper()
	data, err := os.ReadFile("testdata/rfc9421-b26.json")
	if err != nil {
		t.Fatal(err)
	}
	var v b26Vector
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(v.Request.Method, "http://"+v.Request.Host+v.Request.Target, strings.NewReader(v.Request.Body))
	for _, h := range v.Request.Headers {
		r.Header.Add(h[0], h[1])
	}
	return v, r
}

// TestRFC9421B26 reproduces the published Ed25519 signature of RFC 9421
// Appendix B.2.6 byte for byte: Ed25519 is deterministic, so any error in
// the signature base or the field serialization shows.
func TestRFC9421B26(t *testing.T) {
	v, r := loadB26(t)
	key, err := ParseKey(v.PrivateKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	var comps []Component
	for _, c := range v.Components {
		comps = append(comps, Component{Name: c})
	}
	p := Params{Created: v.Created, KeyID: v.KeyID}
	base, _, err := baseOf(r, comps, innerList(comps, p))
	if err != nil {
		t.Fatal(err)
	}
	if base != v.SignatureBase {
		t.Errorf("signature base:\n%s\nwant:\n%s", base, v.SignatureBase)
	}
	if err := SignWith(r, key, v.Label, comps, p); err != nil {
		t.Fatal(err)
	}
	if got := r.Header.Get("Signature-Input"); got != v.SignatureInput {
		t.Errorf("Signature-Input:\n%s\nwant\n%s", got, v.SignatureInput)
	}
	if got := r.Header.Get("Signature"); got != v.Signature {
		t.Errorf("Signature:\n%s\nwant\n%s", got, v.Signature)
	}

	// The published public key checks the published signature.
	block, _ := pem.Decode([]byte(v.PublicKeyPEM))
	pk, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sigs, err := httpsfv.UnmarshalDictionary([]string{v.Signature})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := sigs.Get(v.Label)
	if !ed25519.Verify(pk.(ed25519.PublicKey), []byte(v.SignatureBase), m.(httpsfv.Item).Value.([]byte)) {
		t.Error("published signature does not verify under the published key")
	}
}

// TestThumbprint checks RFC 7638 thumbprints against RFC 8037 Appendix A.3
// and the RFC 9421 test key's thumbprint used as keyid by Web Bot Auth
// examples.
func TestThumbprint(t *testing.T) {
	for x, want := range map[string]string{
		"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo": "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k", // RFC 8037 A.3
		"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs": "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U", // RFC 9421 B.1.4 key
	} {
		if got := (JWK{Kty: "OKP", Crv: "Ed25519", X: x}).Thumbprint(); got != want {
			t.Errorf("thumbprint of %s = %s, want %s", x, got, want)
		}
	}
}

func TestParseKeyForms(t *testing.T) {
	v, _ := loadB26(t)
	want, err := ParseKey(v.PrivateKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	seed := want.Seed()
	pemOut, err := MarshalKey(want)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"pem round trip": pemOut,
		"hex seed":       "9f8362f87a484a954e6e740c5b4c0e84229139a20aa8ab56ff66586f6a7d29c5",
		"base64 seed":    "n4Ni+HpISpVObnQMW0wOhCKROaIKqKtW/2ZYb2p9KcU=",
		"base64url seed": "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU",
		"with newline":   "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU\n",
	} {
		got, err := ParseKey(in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(got.Seed(), seed) {
			t.Errorf("%s: wrong key", name)
		}
	}
	for name, in := range map[string]string{
		"empty":      " ",
		"short":      "AAAA",
		"public pem": v.PublicKeyPEM,
		"junk":       "not a key at all!",
	} {
		if _, err := ParseKey(in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// fixedRand is a deterministic nonce source for tests.
type fixedRand byte

func (f fixedRand) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(f)
	}
	return len(p), nil
}

func testSigner(t *testing.T, dir string, now time.Time) *Signer {
	t.Helper()
	v, _ := loadB26(t)
	key, err := ParseKey(v.PrivateKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(key, Options{Directory: dir, Now: func() time.Time { return now }, Rand: fixedRand(7)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSignWebBotAuth pins the exact headers of the profile.
func TestSignWebBotAuth(t *testing.T) {
	now := time.Unix(1767225600, 0)
	s := testSigner(t, "https://bot.example/.well-known/http-message-signatures-directory", now)
	r := httptest.NewRequest("GET", "https://tax.example:8443/rates?y=2026", nil)
	r.Host = "" // as a client request built by http.NewRequest
	if err := s.Sign(r); err != nil {
		t.Fatal(err)
	}
	nonce := strings.Repeat("BwcH", NonceSize/3) + "Bw=="
	wantInput := `sig1=("@authority" "signature-agent";key="sig1");created=1767225600;expires=1767225660;nonce="` + nonce + `";alg="ed25519";keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="web-bot-auth"`
	if got := r.Header.Get("Signature-Input"); got != wantInput {
		t.Errorf("Signature-Input:\n%s\nwant\n%s", got, wantInput)
	}
	if got, want := r.Header.Get("Signature-Agent"), `sig1="https://bot.example/.well-known/http-message-signatures-directory"`; got != want {
		t.Errorf("Signature-Agent = %s, want %s", got, want)
	}
	base, _, err := baseOf(r, s.Components(), innerList(s.Components(), Params{}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, "\"@authority\": tax.example:8443\n\"signature-agent\";key=\"sig1\": \"https://bot.example/.well-known/http-message-signatures-directory\"\n") {
		t.Errorf("base:\n%s", base)
	}
}

func TestVerifyRoundTrip(t *testing.T) {
	now := time.Unix(1767225600, 0)
	pub := func(s *Signer) func(string) (ed25519.PublicKey, bool) {
		return func(kid string) (ed25519.PublicKey, bool) {
			if kid != s.KeyID() {
				return nil, false
			}
			return s.key.Public().(ed25519.PublicKey), true
		}
	}
	for _, dir := range []string{"", "https://bot.example/.well-known/http-message-signatures-directory"} {
		s := testSigner(t, dir, now)
		sign := func() *http.Request {
			r := httptest.NewRequest("GET", "http://tax.example/a", nil)
			if err := s.Sign(r); err != nil {
				t.Fatal(err)
			}
			return r
		}
		got, err := Verify(sign(), pub(s), now.Add(30*time.Second))
		if err != nil {
			t.Fatalf("dir %q: %v", dir, err)
		}
		if got.KeyID != s.KeyID() || got.Agent != httpsfvString(dir) {
			t.Errorf("dir %q: verified %+v", dir, got)
		}
		for name, tc := range map[string]struct {
			mutate func(*http.Request)
			at     time.Time
		}{
			"expired":    {func(*http.Request) {}, now.Add(DefaultValidity)},
			"not yet":    {func(*http.Request) {}, now.Add(-time.Second)},
			"other host": {func(r *http.Request) { r.Host = "evil.example" }, now},
			// Without a directory nothing covers a Signature-Agent added
			// on the way; with one, a swapped directory breaks the match.
			"agent swapped": {func(r *http.Request) { r.Header.Set("Signature-Agent", `sig1="https://evil.example/d"`) }, now},
			"bad signature": {func(r *http.Request) { r.Header.Set("Signature", "sig1=:AAAA:") }, now},
			"unsigned":      {func(r *http.Request) { r.Header.Del("Signature-Input") }, now},
			"unknown key id": {func(r *http.Request) {
				r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), s.KeyID(), "other", 1))
			}, now},
		} {
			r := sign()
			tc.mutate(r)
			if _, err := Verify(r, pub(s), tc.at); err == nil {
				t.Errorf("dir %q: %s: verified", dir, name)
			}
		}
	}
}

func httpsfvString(s string) string {
	if s == "" {
		return ""
	}
	return `"` + s + `"`
}

func TestDirectoryRotation(t *testing.T) {
	t0 := time.Unix(1767225600, 0)
	k1, _ := ParseKey(strings.Repeat("11", 32))
	k2, _ := ParseKey(strings.Repeat("22", 32))
	j1, j2 := PublicJWK(k1.Public().(ed25519.PublicKey)), PublicJWK(k2.Public().(ed25519.PublicKey))

	d := Rotate(Directory{}, j1, t0, 7*24*time.Hour)
	if len(d.Keys) != 1 || d.Keys[0].Kid != j1.Kid || d.Keys[0].Nbf != t0.Unix() || d.Keys[0].Exp != 0 {
		t.Fatalf("first: %+v", d)
	}
	// Same key again later: nothing changes.
	again := Rotate(d, j1, t0.Add(time.Hour), 7*24*time.Hour)
	if a, b := mustMarshal(t, again), mustMarshal(t, d); !bytes.Equal(a, b) {
		t.Errorf("re-running changed the directory:\n%s\n%s", a, b)
	}
	// Rotation: k2 current, k1 kept with an expiry.
	t1 := t0.Add(24 * time.Hour)
	d = Rotate(d, j2, t1, 7*24*time.Hour)
	if len(d.Keys) != 2 || d.Keys[0].Kid != j2.Kid || d.Keys[1].Kid != j1.Kid || d.Keys[1].Exp != t1.Add(7*24*time.Hour).Unix() {
		t.Fatalf("rotated: %+v", d)
	}
	if _, ok := d.Lookup(j1.Kid, t1.Add(time.Hour)); !ok {
		t.Error("old key not usable during its grace period")
	}
	if _, ok := d.Lookup(j1.Kid, t1.Add(8*24*time.Hour)); ok {
		t.Error("old key usable after it expired")
	}
	// After the grace period, the old key is dropped.
	d = Rotate(d, j2, t1.Add(7*24*time.Hour), 7*24*time.Hour)
	if len(d.Keys) != 1 || d.Keys[0].Kid != j2.Kid {
		t.Fatalf("after expiry: %+v", d)
	}
	parsed, err := ParseDirectory(mustMarshal(t, d))
	if err != nil || len(parsed.Keys) != 1 || parsed.Keys[0] != d.Keys[0] {
		t.Fatalf("parse back: %+v %v", parsed, err)
	}
	if _, err := ParseDirectory([]byte(`{"keys":[{"kty":"RSA","n":"x","e":"AQAB"}]}`)); err == nil {
		t.Error("an RSA key was accepted")
	}
}

func mustMarshal(t *testing.T, d Directory) []byte {
	t.Helper()
	b, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
