package sign

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// KeyEnv is the environment variable (an Actions secret in CI) that holds
// the signing key.
const KeyEnv = "TAXKERNELBOT_SIGNING_KEY"

// ParseKey reads an Ed25519 private key written as PKCS#8 PEM
// ("-----BEGIN PRIVATE KEY-----", what `keys generate` prints and
// `openssl genpkey -algorithm ed25519` writes) or as the raw 32-byte seed in
// base64, base64url or hex.
func ParseKey(s string) (ed25519.PrivateKey, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("sign: empty key")
	}
	if strings.HasPrefix(s, "-----BEGIN") {
		block, _ := pem.Decode([]byte(s))
		if block == nil {
			return nil, errors.New("sign: key looks like PEM but does not decode; paste the whole block, BEGIN and END lines included")
		}
		if block.Type != "PRIVATE KEY" {
			return nil, fmt.Errorf("sign: PEM block is %q; want an unencrypted PKCS#8 \"PRIVATE KEY\" (convert with openssl pkcs8 -topk8 -nocrypt)", block.Type)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("sign: PKCS#8 key: %w", err)
		}
		ek, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("sign: PKCS#8 key is a %T; only Ed25519 keys are used", k)
		}
		return ek, nil
	}
	seed, err := decodeSeed(s)
	if err != nil {
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

func decodeSeed(s string) ([]byte, error) {
	if len(s) == 2*ed25519.SeedSize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != ed25519.SeedSize {
				return nil, fmt.Errorf("sign: raw key is %d bytes; an Ed25519 seed is %d (or give a PKCS#8 PEM)", len(b), ed25519.SeedSize)
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("sign: key is neither PKCS#8 PEM nor a %d-byte seed in base64 or hex", ed25519.SeedSize)
}

// GenerateKey returns a new key from the system's randomness.
func GenerateKey() (ed25519.PrivateKey, error) {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sign: generate key: %w", err)
	}
	return k, nil
}

// MarshalKey renders k as PKCS#8 PEM, the form ParseKey reads.
func MarshalKey(k ed25519.PrivateKey) (string, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return "", fmt.Errorf("sign: encode key: %w", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), nil
}

// JWK is a public Ed25519 key as a JSON Web Key (RFC 8037), as listed in the
// key directory. Nbf and Exp (Unix seconds) bound when the directory vouches
// for it; Exp is set when a key is rotated out.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid,omitempty"`
	Use string `json:"use,omitempty"`
	Nbf int64  `json:"nbf,omitempty"`
	Exp int64  `json:"exp,omitempty"`
}

// PublicJWK returns pub as a JWK whose kid is its thumbprint.
func PublicJWK(pub ed25519.PublicKey) JWK {
	j := JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub)}
	j.Kid = j.Thumbprint()
	return j
}

// PrivateJWK returns the public half of k as a JWK (the private part is
// never written out as JSON).
func PrivateJWK(k ed25519.PrivateKey) JWK { return PublicJWK(k.Public().(ed25519.PublicKey)) }

// Thumbprint is the RFC 7638 JWK thumbprint (SHA-256, base64url): the
// members crv, kty, x in that order, no whitespace. It is the keyid of
// every signature.
func (j JWK) Thumbprint() string {
	canon, _ := json.Marshal(struct {
		Crv string `json:"crv"`
		Kty string `json:"kty"`
		X   string `json:"x"`
	}{j.Crv, j.Kty, j.X})
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// PublicKey decodes the key of an Ed25519 JWK.
func (j JWK) PublicKey() (ed25519.PublicKey, error) {
	if j.Kty != "OKP" || j.Crv != "Ed25519" {
		return nil, fmt.Errorf("sign: JWK %q is %s/%s, not OKP/Ed25519", j.Kid, j.Kty, j.Crv)
	}
	b, err := base64.RawURLEncoding.DecodeString(j.X)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("sign: JWK %q: x is not a base64url %d-byte key", j.Kid, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}
