package sign

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/dunglas/httpsfv"
)

// ErrUnsigned means the request carries no Web Bot Auth signature.
var ErrUnsigned = errors.New("no web-bot-auth signature")

// Verified describes a signature that checked out.
type Verified struct {
	Label, KeyID     string
	Created, Expires time.Time
	Agent            string // the Signature-Agent member covered, if any
}

// Verify checks r's Web Bot Auth signature as a site would: the signature
// labelled with tag "web-bot-auth" must use alg ed25519 (or none), cover
// @authority and, when a Signature-Agent is sent, that header; be within
// its created/expires window at now; and verify under the key that keys
// returns for its keyid.
func Verify(r *http.Request, keys func(keyid string) (ed25519.PublicKey, bool), now time.Time) (Verified, error) {
	inputs, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature-Input"))
	if err != nil {
		return Verified{}, fmt.Errorf("verify: Signature-Input: %w", err)
	}
	sigs, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature"))
	if err != nil {
		return Verified{}, fmt.Errorf("verify: Signature: %w", err)
	}
	for _, label := range inputs.Names() {
		m, _ := inputs.Get(label)
		il, ok := m.(httpsfv.InnerList)
		if !ok {
			return Verified{}, fmt.Errorf("verify: Signature-Input %s is not an inner list", label)
		}
		if tag, _ := il.Params.Get("tag"); tag != Tag {
			continue
		}
		sm, ok := sigs.Get(label)
		if !ok {
			return Verified{}, fmt.Errorf("verify: Signature has no member %s", label)
		}
		return verifyOne(r, label, il, sm, keys, now)
	}
	return Verified{}, ErrUnsigned
}

func verifyOne(r *http.Request, label string, il httpsfv.InnerList, sm httpsfv.Member, keys func(string) (ed25519.PublicKey, bool), now time.Time) (Verified, error) {
	v := Verified{Label: label}
	var comps []Component
	hasAuthority, agentKey := false, ""
	for _, it := range il.Items {
		name, ok := it.Value.(string)
		if !ok {
			return v, fmt.Errorf("verify: %s: component %v is not a string", label, it.Value)
		}
		c := Component{Name: name}
		if k, ok := it.Params.Get("key"); ok {
			if c.Key, ok = k.(string); !ok {
				return v, fmt.Errorf("verify: %s: key parameter of %q is not a string", label, name)
			}
		}
		for _, pn := range it.Params.Names() {
			if pn != "key" {
				return v, fmt.Errorf("verify: %s: component parameter %q of %q is not supported", label, pn, name)
			}
		}
		switch {
		case name == "@authority":
			hasAuthority = true
		case name == "signature-agent":
			agentKey = c.Key
		}
		comps = append(comps, c)
	}
	if !hasAuthority {
		return v, fmt.Errorf("verify: %s does not cover @authority", label)
	}
	if len(r.Header.Values("Signature-Agent")) > 0 && !covers(comps, "signature-agent") {
		return v, fmt.Errorf("verify: %s does not cover the Signature-Agent header it came with", label)
	}
	if alg, ok := il.Params.Get("alg"); ok && alg != Alg {
		return v, fmt.Errorf("verify: %s: alg %v is not ed25519", label, alg)
	}
	created, _ := il.Params.Get("created")
	expires, _ := il.Params.Get("expires")
	c, okC := created.(int64)
	e, okE := expires.(int64)
	if !okC || !okE {
		return v, fmt.Errorf("verify: %s needs integer created and expires", label)
	}
	v.Created, v.Expires = time.Unix(c, 0).UTC(), time.Unix(e, 0).UTC()
	if now.Before(v.Created) {
		return v, fmt.Errorf("verify: %s created %s, after now (%s)", label, v.Created, now.UTC())
	}
	if !now.Before(v.Expires) {
		return v, fmt.Errorf("verify: %s expired at %s", label, v.Expires)
	}
	kid, _ := il.Params.Get("keyid")
	v.KeyID, _ = kid.(string)
	pub, ok := keys(v.KeyID)
	if !ok {
		return v, fmt.Errorf("verify: %s: keyid %q is not in the key directory", label, v.KeyID)
	}
	it, ok := sm.(httpsfv.Item)
	sig, okB := it.Value.([]byte)
	if !ok || !okB {
		return v, fmt.Errorf("verify: Signature %s is not a byte sequence", label)
	}
	sigParams, err := httpsfv.Marshal(il)
	if err != nil {
		return v, fmt.Errorf("verify: %s: %w", label, err)
	}
	base, err := baseWith(r, comps, sigParams)
	if err != nil {
		return v, fmt.Errorf("verify: %w", err)
	}
	if !ed25519.Verify(pub, []byte(base), sig) {
		return v, fmt.Errorf("verify: %s: signature does not match the request (keyid %s)", label, v.KeyID)
	}
	if agentKey != "" {
		v.Agent, _ = componentValue(r, Component{Name: "signature-agent", Key: agentKey})
	}
	return v, nil
}

func covers(comps []Component, name string) bool {
	for _, c := range comps {
		if c.Name == name {
			return true
		}
	}
	return false
}
