package manifest

import (
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

var policyKeys = []string{
	"user_agent", "from", "delay", "daily_cap", "backoff_max", "pause_after_403",
	"robots_ttl", "timeout", "max_body", "exclude", "allow_private_networks",
	"sign", "issue_after", "stores",
	"reasons",
}

// policyFile is policy.yaml read, with the lines later checks point at.
type policyFile struct {
	policy.Policy
	path      string
	allowLine int // line of allow_private_networks, 0 when absent
	// keyLines has the line of each key present; reasons (and their
	// lines) say why a key loosens the built-in values.
	keyLines    map[string]int
	reasons     map[string]string
	reasonLines map[string]int
}

// parsePolicy reads policy.yaml. A key that is missing or wrong keeps its
// built-in value, so that the manifests can still be checked against a
// sensible policy.
func parsePolicy(f *file, root *yaml.Node) policyFile {
	pf := policyFile{Policy: policy.Default(), path: f.path}
	if root == nil {
		return pf
	}
	fs, ok := f.mapping(root, "policy", policyKeys)
	if !ok {
		return pf
	}
	pf.keyLines = map[string]int{}
	for k, e := range fs {
		pf.keyLines[k] = e.key.Line
	}
	if e, ok := fs["reasons"]; ok {
		pf.reasons, pf.reasonLines = f.reasonsOf(e)
	}
	p := &pf.Policy
	if e, ok := fs["user_agent"]; ok {
		if s, ok := f.str(e); ok {
			p.UserAgent = s
		}
	}
	if e, ok := fs["from"]; ok {
		if s, ok := f.str(e); ok {
			if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
				f.errorf(e.val.Line, "from %q is not a plain e-mail address; write one a site operator can reach, e.g. contact@example.com", s)
			} else {
				p.From = s
			}
		}
	}
	if e, ok := fs["delay"]; ok {
		if d, ok := f.delay(e, "policy"); ok {
			p.Delay = d
		}
	}
	if e, ok := fs["daily_cap"]; ok {
		if n, ok := f.count(e); ok {
			p.DailyCap = n
		}
	}
	if e, ok := fs["backoff_max"]; ok {
		if d, ok := f.positiveDuration(e); ok {
			if d > policy.MaxBackoff {
				f.warnf(e.val.Line, "backoff_max %s is above the %s ceiling of every backoff; %s is used", fmtDuration(d), fmtDuration(policy.MaxBackoff), fmtDuration(policy.MaxBackoff))
				d = policy.MaxBackoff
			}
			p.BackoffMax = d
		}
	}
	if e, ok := fs["pause_after_403"]; ok {
		if n, ok := f.count(e); ok {
			p.PauseAfter403 = n
		}
	}
	if e, ok := fs["robots_ttl"]; ok {
		if d, ok := f.positiveDuration(e); ok {
			// RFC 9309 §2.4: a cached robots.txt should not be used for
			// more than 24 hours.
			if d > 24*time.Hour {
				f.errorf(e.val.Line, "robots_ttl %s is longer than the 24h RFC 9309 allows a robots.txt to be cached; use 24h or less", fmtDuration(d))
			} else {
				p.RobotsTTL = d
			}
		}
	}
	if e, ok := fs["timeout"]; ok {
		if d, ok := f.positiveDuration(e); ok {
			p.Timeout = d
		}
	}
	if e, ok := fs["max_body"]; ok {
		if s, ok := f.str(e); ok {
			n, err := policy.ParseSize(s)
			switch {
			case err != nil:
				f.errorf(e.val.Line, "max_body: %v", err)
			case n <= 0:
				f.errorf(e.val.Line, "max_body must be more than zero bytes, e.g. 50MiB")
			case n > policy.MaxBodyLimit:
				f.errorf(e.val.Line, "max_body %s is over %s: GitHub refuses a file of 100 MB or more, so a larger document could never be committed; keep it at %s or less",
					policy.FormatSize(n), policy.FormatSize(policy.MaxBodyLimit), policy.FormatSize(policy.MaxBodyLimit))
			default:
				p.MaxBody = n
			}
		}
	}
	if e, ok := fs["exclude"]; ok {
		p.Exclude = f.exclusions(e)
	}
	if e, ok := fs["allow_private_networks"]; ok {
		if b, ok := f.boolean(e); ok {
			p.AllowPrivateNetworks = b
			pf.allowLine = e.key.Line
		}
	}
	if e, ok := fs["sign"]; ok {
		p.SignDirectory = f.signDirectory(e, p.AllowPrivateNetworks)
	}
	if e, ok := fs["issue_after"]; ok {
		if d, ok := f.positiveDuration(e); ok {
			p.IssueAfter = d
		}
	}
	if e, ok := fs["stores"]; ok {
		p.Stores = f.stores(e, p.AllowPrivateNetworks)
	}
	if e, ok := fs["delay"]; ok && p.Delay.Min < policy.MinDelayFloor && !p.AllowPrivateNetworks {
		// The floor is applied whatever is written (policy.ApplyFloors), so
		// this only tells the writer the value has no effect.
		f.warnf(e.val.Line, "delay min %s is below the %s floor for public hosts and is raised to it; use at least %s", fmtDuration(p.Delay.Min), fmtDuration(policy.MinDelayFloor), fmtDuration(policy.MinDelayFloor))
	}
	return pf
}

// signDirectory reads sign: {directory: URL}, the key directory that signed
// requests name in their Signature-Agent header. It must be https, except
// on loopback when private networks are allowed (the demo).
func (f *file) signDirectory(e entry, allowPrivate bool) string {
	fs, ok := f.mapping(e.val, "sign", []string{"directory"})
	if !ok || !f.require(e.val, fs, "sign", "directory") {
		return ""
	}
	s, ok := f.str(fs["directory"])
	if !ok {
		return ""
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || u.User != nil || u.Fragment != "":
		f.errorf(fs["directory"].val.Line, "sign directory %q is not an absolute URL; write e.g. https://taxkernel.com/.well-known/http-message-signatures-directory", s)
		return ""
	case u.Scheme != "https" && !(u.Scheme == "http" && allowPrivate && policy.IsPrivateHost(u.Host)):
		f.errorf(fs["directory"].val.Line, "sign directory %q must be https: a verifier fetches our public keys from it", s)
		return ""
	case u.Path != "/.well-known/http-message-signatures-directory":
		f.warnf(fs["directory"].val.Line, "sign directory %q is not at /.well-known/http-message-signatures-directory, where verifiers look for it", s)
	}
	return s
}

func (f *file) exclusions(e entry) []policy.Exclusion {
	if e.val.Kind != yaml.SequenceNode {
		f.errorf(e.val.Line, "exclude must be a list of {host, path, reason}")
		return nil
	}
	var out []policy.Exclusion
	for _, item := range e.val.Content {
		fs, ok := f.mapping(item, "exclude entry", []string{"host", "path", "reason"})
		if !ok || !f.require(item, fs, "exclude entry", "host", "reason") {
			continue
		}
		host, okHost := f.str(fs["host"])
		reason, okReason := f.str(fs["reason"])
		if !okHost || !okReason {
			continue
		}
		host = strings.ToLower(host)
		if !validHostKey(host) {
			f.errorf(fs["host"].val.Line, "exclude host %q is not a host; write host or host:port without scheme or path, e.g. www.example.gov", host)
			continue
		}
		x := policy.Exclusion{Host: host, Reason: reason}
		if pe, ok := fs["path"]; ok {
			path, ok := f.str(pe)
			if !ok {
				continue
			}
			if !strings.HasPrefix(path, "/") {
				f.errorf(pe.val.Line, "exclude path %q must start with /, e.g. /private/", path)
				continue
			}
			x.Path = path
		}
		out = append(out, x)
	}
	return out
}

// validHostKey reports whether s is exactly a host or host:port, as used by
// hosts: keys and exclusions.
func validHostKey(s string) bool {
	u, err := url.Parse("http://" + s)
	return s != "" && err == nil && u.Host == s && u.User == nil && u.Path == "" &&
		u.RawQuery == "" && u.Fragment == "" && !strings.ContainsAny(s, "?#/@") &&
		validPort(u.Port())
}

// validPort accepts no port or 1..65535; url.Parse only checks for digits.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}
