package sign

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The key directory's media type and well-known path
// (draft-meunier-http-message-signatures-directory).
const (
	DirectoryMediaType = "application/http-message-signatures-directory+json"
	WellKnownPath      = "/.well-known/http-message-signatures-directory"
)

// Directory is the JSON Web Key Set served at WellKnownPath.
type Directory struct {
	Keys []JWK `json:"keys"`
}

// ParseDirectory reads a directory file; keys that are not Ed25519 are
// refused, so that a typo cannot silently unpublish a key.
func ParseDirectory(data []byte) (Directory, error) {
	var d Directory
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&d); err != nil {
		return Directory{}, fmt.Errorf("sign: key directory is not a JWKS: %w", err)
	}
	for _, k := range d.Keys {
		if _, err := k.PublicKey(); err != nil {
			return Directory{}, err
		}
	}
	return d, nil
}

// Marshal renders the directory as indented JSON with a final newline.
func (d Directory) Marshal() ([]byte, error) {
	if d.Keys == nil {
		d.Keys = []JWK{}
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sign: encode key directory: %w", err)
	}
	return append(b, '\n'), nil
}

// Rotate returns d with current listed and valid from now on (its nbf kept
// when already listed, any exp cleared), every other key still listed but
// given an exp of now+keep unless it already has one, and the keys whose
// exp has passed removed. Verifiers that cached the directory or hold
// requests signed just before a rotation can thus still check them.
// The current key comes first, then the others by kid.
func Rotate(d Directory, current JWK, now time.Time, keep time.Duration) Directory {
	cur := current
	cur.Kid = current.Thumbprint()
	cur.Nbf, cur.Exp = now.Unix(), 0
	var others []JWK
	for _, k := range d.Keys {
		k.Kid = k.Thumbprint()
		if k.Kid == cur.Kid {
			if k.Nbf != 0 {
				cur.Nbf = k.Nbf
			}
			continue
		}
		if k.Exp == 0 {
			k.Exp = now.Add(keep).Unix()
		}
		if k.Exp <= now.Unix() {
			continue
		}
		others = append(others, k)
	}
	slices.SortFunc(others, func(a, b JWK) int { return strings.Compare(a.Kid, b.Kid) })
	return Directory{Keys: append([]JWK{cur}, others...)}
}

// Lookup returns the key whose thumbprint is keyid, if listed and not
// expired at now.
func (d Directory) Lookup(keyid string, now time.Time) (ed25519.PublicKey, bool) {
	for _, k := range d.Keys {
		if k.Thumbprint() != keyid {
			continue
		}
		if k.Exp != 0 && now.Unix() >= k.Exp || k.Nbf != 0 && now.Unix() < k.Nbf {
			return nil, false
		}
		pub, err := k.PublicKey()
		return pub, err == nil
	}
	return nil, false
}
