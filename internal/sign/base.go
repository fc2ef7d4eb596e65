package sign

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Component is one covered component of a signature: a derived component
// ("@authority", "@method", …) or a lower-case field name, with an optional
// key parameter that selects one member of a Dictionary field.
type Component struct {
	Name string
	Key  string // the key parameter; empty for the whole field
}

// Params are a signature's parameters. Zero values are left out; they are
// written in the order created, expires, nonce, alg, keyid, tag (RFC 9421
// lets the signer choose it, and the verifier uses the order it received).
type Params struct {
	Created, Expires int64
	Nonce, Alg       string
	KeyID, Tag       string
}

var paramOrder = []string{"created", "expires", "nonce", "alg", "keyid", "tag"}

// innerList renders the covered components and parameters as the Inner List
// that is both the Signature-Input member and the "@signature-params" line.
func innerList(components []Component, p Params) httpsfv.InnerList {
	il := httpsfv.InnerList{Params: httpsfv.NewParams()}
	for _, c := range components {
		il.Items = append(il.Items, componentItem(c))
	}
	for _, name := range paramOrder {
		switch name {
		case "created":
			if p.Created != 0 {
				il.Params.Add(name, p.Created)
			}
		case "expires":
			if p.Expires != 0 {
				il.Params.Add(name, p.Expires)
			}
		case "nonce":
			if p.Nonce != "" {
				il.Params.Add(name, p.Nonce)
			}
		case "alg":
			if p.Alg != "" {
				il.Params.Add(name, p.Alg)
			}
		case "keyid":
			if p.KeyID != "" {
				il.Params.Add(name, p.KeyID)
			}
		case "tag":
			if p.Tag != "" {
				il.Params.Add(name, p.Tag)
			}
		}
	}
	return il
}

// baseOf returns the signature base of r for the covered components and
// the inner list of parameters already built (RFC 9421 section 2.5), and
// the serialized parameters line that goes into Signature-Input.
func baseOf(r *http.Request, components []Component, il httpsfv.InnerList) (base, sigParams string, err error) {
	sigParams, err = httpsfv.Marshal(il)
	if err != nil {
		return "", "", fmt.Errorf("sign: serialize signature parameters: %w", err)
	}
	base, err = baseWith(r, components, sigParams)
	return base, sigParams, err
}

// baseWith builds the base with an already serialized "@signature-params"
// value (a verifier uses the one it received).
func baseWith(r *http.Request, components []Component, sigParams string) (string, error) {
	var b strings.Builder
	seen := map[Component]bool{}
	for _, c := range components {
		if seen[c] {
			return "", fmt.Errorf("sign: component %q covered twice", c.Name)
		}
		seen[c] = true
		id, err := httpsfv.Marshal(componentItem(c))
		if err != nil {
			return "", fmt.Errorf("sign: component %q: %w", c.Name, err)
		}
		v, err := componentValue(r, c)
		if err != nil {
			return "", err
		}
		b.WriteString(id)
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(sigParams)
	return b.String(), nil
}

func componentItem(c Component) httpsfv.Item {
	it := httpsfv.NewItem(c.Name)
	if c.Key != "" {
		it.Params.Add("key", c.Key)
	}
	return it
}

// errMissing means a covered field is absent from the message.
var errMissing = errors.New("not in the message")

// componentValue is the value of one component (RFC 9421 sections 2.1, 2.2).
func componentValue(r *http.Request, c Component) (string, error) {
	if strings.HasPrefix(c.Name, "@") {
		if c.Key != "" {
			return "", fmt.Errorf("sign: derived component %q takes no key parameter", c.Name)
		}
		return derived(r, c.Name)
	}
	if c.Name != strings.ToLower(c.Name) {
		return "", fmt.Errorf("sign: field name %q must be lower case", c.Name)
	}
	vals := fieldValues(r, c.Name)
	if vals == nil {
		return "", fmt.Errorf("sign: covered field %q: %w", c.Name, errMissing)
	}
	if c.Key == "" {
		for i, v := range vals {
			vals[i] = strings.Trim(v, " \t")
		}
		return strings.Join(vals, ", "), nil
	}
	d, err := httpsfv.UnmarshalDictionary(vals)
	if err != nil {
		return "", fmt.Errorf("sign: field %q is not a Dictionary: %w", c.Name, err)
	}
	m, ok := d.Get(c.Key)
	if !ok {
		return "", fmt.Errorf("sign: field %q has no member %q: %w", c.Name, c.Key, errMissing)
	}
	v, err := httpsfv.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("sign: field %q member %q: %w", c.Name, c.Key, err)
	}
	return v, nil
}

// fieldValues returns the field's values; Host is read from r.Host as Go
// keeps it out of r.Header.
func fieldValues(r *http.Request, name string) []string {
	if name == "host" {
		if h := authority(r); h != "" {
			return []string{h}
		}
		return nil
	}
	vals := r.Header.Values(name)
	if len(vals) == 0 {
		return nil
	}
	return append([]string(nil), vals...)
}

func derived(r *http.Request, name string) (string, error) {
	switch name {
	case "@method":
		return r.Method, nil
	case "@authority":
		a := authority(r)
		if a == "" {
			return "", fmt.Errorf("sign: request has no host for @authority")
		}
		return a, nil
	case "@scheme":
		return scheme(r), nil
	case "@path":
		p := r.URL.EscapedPath()
		if p == "" {
			p = "/"
		}
		return p, nil
	case "@query":
		return "?" + r.URL.RawQuery, nil
	case "@target-uri":
		return scheme(r) + "://" + authority(r) + r.URL.RequestURI(), nil
	case "@request-target":
		return r.URL.RequestURI(), nil
	}
	return "", fmt.Errorf("sign: derived component %q is not supported", name)
}

func scheme(r *http.Request) string {
	if r.URL.Scheme != "" {
		return strings.ToLower(r.URL.Scheme)
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// authority is the request's host[:port], lower-cased, without the scheme's
// default port, as a client sends it in Host and a server receives it.
func authority(r *http.Request) string {
	h := r.Host
	if h == "" {
		h = r.URL.Host
	}
	h = strings.ToLower(h)
	switch s := scheme(r); {
	case s == "http" && strings.HasSuffix(h, ":80"):
		h = strings.TrimSuffix(h, ":80")
	case s == "https" && strings.HasSuffix(h, ":443"):
		h = strings.TrimSuffix(h, ":443")
	}
	return h
}
