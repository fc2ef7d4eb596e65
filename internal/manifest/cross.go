package manifest

import (
	"fmt"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// crossCheck holds the checks that look at all manifests together.
type crossCheck struct {
	pol   policyFile
	diags *Diagnostics
	// base, when set, is the pull request's base: a duplicate is reported
	// on the source it adds, not on the one already there.
	base *Base
}

// order returns the two sources of a duplicate as (where to report, the
// other): the later one, unless only the earlier one is new.
func (x crossCheck) order(first, later source) (source, source) {
	if x.base != nil && x.base.Added(first.Source) && !x.base.Added(later.Source) {
		return first, later
	}
	return later, first
}

func (x crossCheck) errorf(file string, line int, format string, args ...any) {
	*x.diags = append(*x.diags, Diagnostic{File: file, Line: line, Severity: Error, Message: fmt.Sprintf(format, args...)})
}

func (x crossCheck) warnf(file string, line int, format string, args ...any) {
	*x.diags = append(*x.diags, Diagnostic{File: file, Line: line, Severity: Warning, Message: fmt.Sprintf(format, args...)})
}

// sources finds duplicate ids and URLs across all manifests, and hosts that
// the private-network setting does not fit.
func (x crossCheck) sources(ms []parsed) {
	n := 0
	for _, m := range ms {
		n += len(m.sources)
	}
	// Pointers, not copies: a source is a large struct, and a manifest
	// set can hold a hundred thousand.
	ids := make(map[string]*source, n)
	urls := make(map[string]*source, n)
	var public int
	var firstPublic *source
	for _, m := range ms {
		for i := range m.sources {
			s := &m.sources[i]
			if s.ID != "" {
				if first, dup := ids[s.ID]; dup {
					here, other := x.order(*first, *s)
					x.errorf(here.File, here.Line, "source id %q is already used at %s; ids are unique across all manifests: choose another", s.ID, at(other.File, other.Line))
				} else {
					ids[s.ID] = s
				}
			}
			if s.URL == "" {
				continue
			}
			same := sameURL(s.URL)
			if first, dup := urls[same]; dup {
				here, other := x.order(*first, *s)
				x.errorf(here.File, here.urlLine, "url %s is already listed as %q at %s; list each document once", here.URL, other.ID, at(other.File, other.urlLine))
			} else {
				urls[same] = s
			}
			switch private := policy.IsPrivateHost(s.Host); {
			case private && !x.pol.AllowPrivateNetworks:
				// A warning, not an error: the dial-time guard is what refuses
				// it, and a run must show that refusal in the report.
				x.warnf(s.File, s.urlLine, "url %s names a private address (%s), which the fetcher refuses to connect to; list a public URL (private hosts are for tests and the demo, with allow_private_networks: true)", s.URL, s.Host)
			case !private:
				if public++; firstPublic == nil {
					firstPublic = s
				}
			}
		}
	}
	if x.pol.AllowPrivateNetworks && public > 0 {
		s := firstPublic
		x.errorf(x.pol.path, x.pol.allowLine, "allow_private_networks: true is for tests and the demo only, but %d source(s) name public hosts (first: %s at %s, host %s); set it to false", public, s.ID, at(s.File, s.urlLine), s.Host)
	}
}

// unusedHosts warns about hosts: entries that no source of their own file
// names: usually a typo, or a port that the URL leaves out.
func (x crossCheck) unusedHosts(ms []parsed) {
	for _, m := range ms {
		used := map[string]bool{}
		for _, s := range m.sources {
			used[s.Host] = true
		}
		for _, h := range m.hosts {
			if !used[h.name] {
				x.warnf(m.File, h.line, "hosts entry %s is not the host of any source in this file; fix the name (host[:port], port only when not 80/443) or remove the entry", h.name)
			}
		}
	}
}

// mergedHost is one host's settings across all manifests, each with where
// it was first set.
type mergedHost struct {
	delay         *policy.Delay
	delayFirst    firstSet
	cap           int
	capFirst      firstSet
	windows       []policy.Window
	loc           *time.Location
	windowsFirst  firstSet
	override      *policy.RobotsOverride
	overrideFirst firstSet
}

// firstSet is where a host setting was first set (in file-name order), as
// written there, and whether the pull request under validation added it.
type firstSet struct {
	file  string
	line  int
	value string
	added bool
}

func (f firstSet) at() string { return at(f.file, f.line) }

// mergeHosts combines the hosts: entries of all manifests. When two set a
// value differently the strictest wins (slower delay, lower cap; for
// off-peak windows, the first file's) and a warning says which value is
// used: on the later entry, or, against a base, on the entry the pull
// request added when the later one was already there.
func (x crossCheck) mergeHosts(ms []parsed) map[string]*mergedHost {
	out := map[string]*mergedHost{}
	for _, m := range ms {
		for _, h := range m.hosts {
			mh := out[h.name]
			if mh == nil {
				mh = &mergedHost{}
				out[h.name] = mh
			}
			x.merge(mh, h, m.File)
		}
	}
	return out
}

// set records where h sets setting in file.
func (x crossCheck) set(h hostSpec, setting, file string, line int) firstSet {
	v, _ := hostValue(h, setting)
	return firstSet{file: file, line: line, value: v, added: x.hostAdded(h, setting, file)}
}

// hostAdded reports whether the pull request under validation adds or
// changes setting of h in file; false without a base.
func (x crossCheck) hostAdded(h hostSpec, setting, file string) bool {
	if x.base == nil {
		return false
	}
	v, _ := hostValue(h, setting)
	return x.base.HostAdded(file, h.name, setting, v)
}

// onFirst reports whether a disagreement is reported on the first entry:
// only when the pull request added it and not the later one.
func (x crossCheck) onFirst(first firstSet, h hostSpec, setting, file string) bool {
	return first.added && !x.hostAdded(h, setting, file)
}

func (x crossCheck) merge(mh *mergedHost, h hostSpec, file string) {
	if h.delayLine > 0 {
		switch {
		case mh.delay == nil:
			d := h.delay
			mh.delay, mh.delayFirst = &d, x.set(h, "delay", file, h.delayLine)
		case *mh.delay != h.delay:
			strict := policy.Delay{Min: max(mh.delay.Min, h.delay.Min), Max: max(mh.delay.Max, h.delay.Max)}
			if first := mh.delayFirst; x.onFirst(first, h, "delay", file) {
				x.warnf(first.file, first.line, "host %s delay %s differs from %s set at %s; the strictest wins: %s is used", h.name, first.value, fmtDelay(h.delay), at(file, h.delayLine), fmtDelay(strict))
			} else {
				x.warnf(file, h.delayLine, "host %s delay %s differs from %s set at %s; the strictest wins: %s is used", h.name, fmtDelay(h.delay), fmtDelay(*mh.delay), first.at(), fmtDelay(strict))
			}
			*mh.delay = strict
		}
	}
	if h.capLine > 0 {
		switch {
		case mh.cap == 0:
			mh.cap, mh.capFirst = h.cap, x.set(h, "daily_cap", file, h.capLine)
		case mh.cap != h.cap:
			strict := min(mh.cap, h.cap)
			if first := mh.capFirst; x.onFirst(first, h, "daily_cap", file) {
				x.warnf(first.file, first.line, "host %s daily_cap %s differs from %d set at %s; the strictest wins: %d is used", h.name, first.value, h.cap, at(file, h.capLine), strict)
			} else {
				x.warnf(file, h.capLine, "host %s daily_cap %d differs from %d set at %s; the strictest wins: %d is used", h.name, h.cap, mh.cap, first.at(), strict)
			}
			mh.cap = strict
		}
	}
	if h.windowsLine > 0 {
		switch {
		case mh.windows == nil:
			mh.windows, mh.loc, mh.windowsFirst = h.windows, h.loc, x.set(h, "off_peak", file, h.windowsLine)
		case fmtWindows(mh.windows, mh.loc) != fmtWindows(h.windows, h.loc):
			if first := mh.windowsFirst; x.onFirst(first, h, "off_peak", file) {
				x.warnf(first.file, first.line, "host %s off_peak %s differs from %s set at %s; the first in file-name order is used, this one: make them agree", h.name, first.value, fmtWindows(h.windows, h.loc), at(file, h.windowsLine))
			} else {
				x.warnf(file, h.windowsLine, "host %s off_peak %s differs from %s set at %s; the first is used: make them agree", h.name, fmtWindows(h.windows, h.loc), fmtWindows(mh.windows, mh.loc), first.at())
			}
		}
	}
	if h.overrideLine > 0 {
		switch {
		case mh.override == nil:
			o := *h.override
			mh.override, mh.overrideFirst = &o, x.set(h, "robots_override", file, h.overrideLine)
		case *mh.override != *h.override:
			mh.override.Delay = policy.Delay{Min: max(mh.override.Delay.Min, h.override.Delay.Min), Max: max(mh.override.Delay.Max, h.override.Delay.Max)}
			if first := mh.overrideFirst; x.onFirst(first, h, "robots_override", file) {
				x.warnf(first.file, first.line, "host %s robots_override differs from the one set at %s; the strictest wins: this one's permission %q is kept and the delay %s is used", h.name, at(file, h.overrideLine), mh.override.Permission, fmtDelay(mh.override.Delay))
			} else {
				x.warnf(file, h.overrideLine, "host %s robots_override differs from the one set at %s; the strictest wins: its permission %q is kept and the delay %s is used", h.name, first.at(), mh.override.Permission, fmtDelay(mh.override.Delay))
			}
		}
	}
}

// applyTo writes the merged settings over h, which holds the policy's.
func (mh *mergedHost) applyTo(h *policy.Host) {
	if mh.delay != nil {
		h.Delay = *mh.delay
	}
	if mh.cap > 0 {
		h.DailyCap = mh.cap
	}
	if len(mh.windows) > 0 {
		h.OffPeak, h.Location = mh.windows, mh.loc
	}
	if mh.override != nil {
		o := *mh.override
		h.Override = &o
	}
}
