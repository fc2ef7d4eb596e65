package answer

import (
	"bytes"
	"net/url"
	"strings"
)

// A refresh that waits longer than this is a page reloading itself now
// and then (a news ticker, a session keep-alive), not a stub sending the
// reader on.
const maxStubDelay = 10

// urlCap bounds a URL read out of a page: no stub needs more.
const urlCap = 2048

// elsewhere finds a small page that sends the reader to another URL by a
// meta refresh or a script, which a browser follows and we do not.
func (c *check) elsewhere() (Verdict, bool) {
	if !c.markup || !c.small() {
		return Verdict{}, false
	}
	p := c.view()
	target := ""
	if p.refresh.ok && p.refresh.delay <= maxStubDelay {
		target = p.refresh.url
	}
	if target == "" {
		target = p.script
	}
	to := c.resolve(p, target)
	if to == nil || c.same(to) {
		return Verdict{}, false
	}
	// A page that always carried the stub (a held version that points the
	// same way) is the document as the source lists it.
	if pp := c.priorView(); pp != nil {
		for _, t := range []string{pp.refresh.url, pp.script} {
			if t != "" && sameURL(c.resolve(pp, t), to) {
				return Verdict{}, false
			}
		}
	}
	return Verdict{
		Kind:   Elsewhere,
		Target: to.String(),
		Words:  "the server points to " + c.shown(to),
	}, true
}

// resolve reads a target against the page's base and the answer's URL;
// nil when there is none or it is no web address.
func (c *check) resolve(p *view, target string) *url.URL {
	target = strings.TrimSpace(target)
	if target == "" || len(target) > urlCap || strings.HasPrefix(target, "#") {
		return nil
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil
	}
	base := c.a.URL
	if p.base != "" && len(p.base) <= urlCap {
		if b, err := url.Parse(strings.TrimSpace(p.base)); err == nil {
			if base != nil {
				b = base.ResolveReference(b)
			}
			if b.IsAbs() {
				base = b
			}
		}
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.IsAbs() && u.Scheme != "http" && u.Scheme != "https" {
		return nil // javascript:, data:, mailto:
	}
	u.Fragment, u.RawFragment = "", ""
	return u
}

// same reports whether u is the URL that was asked, http or https alike:
// a page refreshing itself, or upgrading itself, stays where it is.
func (c *check) same(u *url.URL) bool {
	if c.a.URL == nil {
		return false
	}
	return sameURL(c.a.URL, u)
}

func sameURL(a, b *url.URL) bool {
	if a == nil || b == nil {
		return false
	}
	pa, pb := a.EscapedPath(), b.EscapedPath()
	if pa == "" {
		pa = "/"
	}
	if pb == "" {
		pb = "/"
	}
	return authority(a) == authority(b) && pa == pb && a.RawQuery == b.RawQuery
}

// authority is host[:port] lower-cased, without the scheme's default port.
func authority(u *url.URL) string {
	h, p := strings.ToLower(u.Hostname()), u.Port()
	if p == "" || p == "80" || p == "443" {
		return h
	}
	return h + ":" + p
}

// shown is a target as a report shows it: its path when it stays on the
// host that answered, the whole URL when it leaves.
func (c *check) shown(u *url.URL) string {
	if c.a.URL != nil && u.IsAbs() && authority(u) == authority(c.a.URL) {
		return u.RequestURI()
	}
	return u.String()
}

// scriptTarget finds the first statement of a script that sends the page
// to a literal URL — location = "…", location.href = "…",
// location.replace("…"), location.assign("…") — where it runs as the
// page loads: at the script's top level or in a timer or load handler,
// not inside a function a link calls.
func scriptTarget(js []byte) string {
	if !bytes.Contains(js, []byte("location")) {
		return ""
	}
	loads := bytes.Contains(js, []byte("setTimeout")) || bytes.Contains(js, []byte("onload")) ||
		bytes.Contains(js, []byte("DOMContentLoaded")) || bytes.Contains(js, []byte("addEventListener(\"load\"")) ||
		bytes.Contains(js, []byte("addEventListener('load'"))
	from, d, counted := 0, 0, 0
	for {
		i := bytes.Index(js[from:], []byte("location"))
		if i < 0 {
			return ""
		}
		i += from
		from = i + len("location")
		d, counted = depth(d, js[counted:i]), i
		if !locationObject(js, i) {
			continue
		}
		if d > 0 && !loads {
			continue
		}
		if t, ok := assigned(js[from:]); ok {
			return t
		}
	}
}

// locationObject reports whether "location" at i is the page's location:
// bare, or a property of window, document, top, self or parent.
func locationObject(js []byte, i int) bool {
	if i == 0 {
		return true
	}
	prev := js[i-1]
	if isIdent(prev) {
		return false
	}
	if prev != '.' {
		return true
	}
	before := js[:i-1]
	for _, o := range []string{"window", "document", "top", "self", "parent"} {
		if bytes.HasSuffix(before, []byte(o)) {
			k := len(before) - len(o)
			if k == 0 || !isIdent(before[k-1]) && before[k-1] != '.' {
				return true
			}
		}
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// depth counts on from d the braces js opens and closes, strings and
// comments aside only roughly: it decides "top level", nothing more.
func depth(d int, js []byte) int {
	for _, c := range js {
		switch c {
		case '{':
			d++
		case '}':
			if d > 0 {
				d--
			}
		}
	}
	return d
}

// assigned reads what follows "location": "= lit", ".href = lit",
// ".replace(lit)" or ".assign(lit)", and reports the literal.
func assigned(rest []byte) (string, bool) {
	rest = trimJS(rest)
	call := false
	switch {
	case bytes.HasPrefix(rest, []byte(".href")):
		rest = trimJS(rest[len(".href"):])
	case bytes.HasPrefix(rest, []byte(".replace")):
		rest, call = trimJS(rest[len(".replace"):]), true
	case bytes.HasPrefix(rest, []byte(".assign")):
		rest, call = trimJS(rest[len(".assign"):]), true
	}
	if call {
		if len(rest) == 0 || rest[0] != '(' {
			return "", false
		}
	} else if len(rest) == 0 || rest[0] != '=' || len(rest) > 1 && rest[1] == '=' {
		return "", false
	}
	lit, after, ok := literal(trimJS(rest[1:]))
	if !ok {
		return "", false
	}
	after = trimJS(after)
	if call {
		return lit, len(after) > 0 && after[0] == ')'
	}
	// The literal must be the whole value: "/" + lang is not a URL.
	return lit, len(after) == 0 || bytes.IndexByte([]byte(";\n\r}),<"), after[0]) >= 0
}

func trimJS(b []byte) []byte { return bytes.TrimLeft(b, " \t") }

// literal reads a quoted string with no escapes but "\/" (as JSON writes
// slashes) and no template substitution.
func literal(b []byte) (string, []byte, bool) {
	if len(b) == 0 || b[0] != '"' && b[0] != '\'' && b[0] != '`' {
		return "", nil, false
	}
	q := b[0]
	var sb strings.Builder
	for i := 1; i < len(b) && i <= urlCap; i++ {
		switch c := b[i]; {
		case c == q:
			return sb.String(), b[i+1:], sb.Len() > 0
		case c == '\\':
			if i+1 < len(b) && b[i+1] == '/' {
				sb.WriteByte('/')
				i++
				continue
			}
			return "", nil, false
		case c == '\n' || c == '\r':
			return "", nil, false
		case c == '$' && q == '`' && i+1 < len(b) && b[i+1] == '{':
			return "", nil, false
		default:
			sb.WriteByte(c)
		}
	}
	return "", nil, false
}
