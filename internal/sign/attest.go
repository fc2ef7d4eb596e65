package sign

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// An attestation is a JSON Web Signature (RFC 7515) in compact form, made
// with the request-signing key (alg EdDSA, RFC 8037) and naming it by
// its JWK thumbprint (kid), so that any JOSE library checks it against
// the key directory as published: the directory is a JWK Set whose kids
// are those thumbprints. Its payload is an in-toto Statement (v1), the
// shape supply-chain tools read: the subject is the URL and the digest of
// the bytes, the predicate what was observed.
const (
	StatementType   = "https://in-toto.io/Statement/v1"
	ServedPredicate = "https://taxkernel.com/attestations/served/v1"
	// PayloadType is the JWS cty of the payload.
	PayloadType = "application/vnd.in-toto+json"
	jwsAlg      = "EdDSA"
)

// Statement is an in-toto Statement v1 of what a URL served.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Served    `json:"predicate"`
}

// Subject names the bytes: the URL asked for, and their SHA-256.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Served is the predicate: URL served the bytes on every check from
// From to Until (UTC dates) — the first and last checks that found them,
// Checks in all — and no other bytes in between.
type Served struct {
	URL      string `json:"url"`
	FinalURL string `json:"final_url,omitempty"`
	// Claim says it in words.
	Claim       string `json:"claim"`
	From        string `json:"from"`
	Until       string `json:"until"`
	Checks      int    `json:"checks"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type,omitempty"`
	Source      string `json:"source"`
	Title       string `json:"title,omitempty"`
	// FRBR places the bytes in FRBR's levels, when the manifest knows
	// the work or the expression (a manifest.FRBR, kept as it was written).
	FRBR json.RawMessage `json:"frbr,omitempty"`
	// Issued is when the statement was signed (RFC 3339, UTC); the key
	// must have been listed as valid then.
	Issued string `json:"issued"`
}

// NewServedStatement is the statement that url served the bytes of sum
// as p says.
func NewServedStatement(sum string, p Served) Statement {
	if p.Claim == "" {
		p.Claim = fmt.Sprintf("%s served these bytes (sha256 %s) at every check from %s to %s", p.URL, sum, p.From, p.Until)
	}
	return Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: p.URL, Digest: map[string]string{"sha256": sum}}},
		PredicateType: ServedPredicate,
		Predicate:     p,
	}
}

// jwsHeader is the protected header of an attestation.
type jwsHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ,omitempty"`
	Cty string `json:"cty,omitempty"`
}

// Attest signs st with key: the JWS compact serialization, one line.
func Attest(key ed25519.PrivateKey, st Statement) (string, error) {
	if len(key) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("sign: key is %d bytes, want an Ed25519 private key", len(key))
	}
	h, err := json.Marshal(jwsHeader{Alg: jwsAlg, Kid: PrivateJWK(key).Kid, Typ: "JOSE", Cty: PayloadType})
	if err != nil {
		return "", err
	}
	p, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("sign: encode statement: %w", err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64(h) + "." + b64(p)
	return input + "." + b64(ed25519.Sign(key, []byte(input))), nil
}

// Attested is a checked attestation: its statement and the key that
// signed it.
type Attested struct {
	Statement Statement
	Key       JWK
}

// VerifyAttestation checks token against the keys of d: it must be a JWS
// in compact form signed with EdDSA by a key d lists (by thumbprint) and
// that was valid (nbf, exp) when the statement says it was issued, and
// its payload an in-toto Statement of what a URL served.
func VerifyAttestation(token string, d Directory) (Attested, error) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return Attested{}, errors.New("not a JWS in compact form (header.payload.signature)")
	}
	dec := base64.RawURLEncoding.DecodeString
	hb, err1 := dec(parts[0])
	pb, err2 := dec(parts[1])
	sig, err3 := dec(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return Attested{}, fmt.Errorf("not a JWS: a part is not base64url: %w", err)
	}
	var h jwsHeader
	if err := strictJSON(hb, &h); err != nil {
		return Attested{}, fmt.Errorf("JWS header: %w", err)
	}
	if h.Alg != jwsAlg {
		return Attested{}, fmt.Errorf("JWS alg is %q; attestations are signed with %s (Ed25519)", h.Alg, jwsAlg)
	}
	var key *JWK
	for _, k := range d.Keys {
		if k.Thumbprint() == h.Kid {
			key = &k
			break
		}
	}
	if key == nil {
		return Attested{}, fmt.Errorf("signed by key %s, which the key directory does not list", h.Kid)
	}
	pub, err := key.PublicKey()
	if err != nil {
		return Attested{}, err
	}
	if !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return Attested{}, fmt.Errorf("bad signature: the statement is not what key %s signed", h.Kid)
	}
	var st Statement
	if err := strictJSON(pb, &st); err != nil {
		return Attested{}, fmt.Errorf("payload: %w", err)
	}
	if st.Type != StatementType || st.PredicateType != ServedPredicate || len(st.Subject) != 1 || st.Subject[0].Digest["sha256"] == "" {
		return Attested{}, fmt.Errorf("payload is not a statement of what a URL served (_type %s, predicateType %s, one subject with a sha256)", StatementType, ServedPredicate)
	}
	issued, err := time.Parse(time.RFC3339, st.Predicate.Issued)
	if err != nil {
		return Attested{}, fmt.Errorf("payload: issued %q is not an RFC 3339 time", st.Predicate.Issued)
	}
	if key.Nbf != 0 && issued.Unix() < key.Nbf || key.Exp != 0 && issued.Unix() >= key.Exp {
		return Attested{}, fmt.Errorf("key %s was not valid when the statement says it was issued (%s): the directory lists it for %s", h.Kid, st.Predicate.Issued, validity(*key))
	}
	return Attested{Statement: st, Key: *key}, nil
}

func validity(k JWK) string {
	from, to := "from any time", " on"
	if k.Nbf != 0 {
		from = "from " + time.Unix(k.Nbf, 0).UTC().Format(time.RFC3339)
	}
	if k.Exp != 0 {
		to = " until " + time.Unix(k.Exp, 0).UTC().Format(time.RFC3339)
	}
	return from + to
}

// strictJSON decodes one JSON object into v, refusing unknown members and
// trailing data: a verifier shows only what it checked.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the object")
	}
	return nil
}
