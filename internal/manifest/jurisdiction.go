package manifest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

var (
	manifestKeys = []string{"jurisdiction", "name", "timezone", "hosts", "sources"}
	hostKeys     = []string{"delay", "daily_cap", "off_peak", "timezone", "robots_override"}
	overrideKeys = []string{"permission", "delay"}
	sourceKeys   = []string{"id", "url", "kind", "title", "recheck", "encodes", "gaps", "accept", "view", "legal_id", "edition"}
	kinds        = []Kind{RatesPage, TaxTable, WithholdingSchedule, Legislation, Gazette}
	idSyntax     = regexp.MustCompile(`^[a-z0-9-]+$`)
)

// hostSpec is one entry of a manifest's hosts: with the lines of what it
// sets; a zero line means the key is absent.
type hostSpec struct {
	name      string
	line      int
	delay     policy.Delay
	delayLine int
	cap       int
	capLine   int
	// windows are read in loc: the entry's timezone, or the manifest's.
	windows      []policy.Window
	loc          *time.Location
	windowsLine  int
	override     *policy.RobotsOverride
	overrideLine int
}

// source is a Source with the lines that cross-manifest checks point at.
type source struct {
	Source
	urlLine int
}

// parsed is one jurisdiction manifest as read.
type parsed struct {
	Manifest
	sources []source
	hosts   []hostSpec
}

// parseManifest checks one jurisdiction file on its own and against the
// policy. stem is the file name without ".yaml".
func parseManifest(f *file, root *yaml.Node, stem string, pol policy.Policy) parsed {
	m := parsed{Manifest: Manifest{File: f.path}}
	if root == nil {
		f.errorf(0, "empty manifest; it needs jurisdiction, name, timezone and sources")
		return m
	}
	fs, ok := f.mapping(root, "manifest", manifestKeys)
	if !ok {
		return m
	}
	f.require(root, fs, "manifest", "jurisdiction", "name", "timezone", "sources")
	if e, ok := fs["jurisdiction"]; ok {
		if j, ok := f.str(e); ok {
			switch {
			case !idSyntax.MatchString(j):
				f.errorf(e.val.Line, "jurisdiction %q may only use a-z, 0-9 and -", j)
			case j != stem:
				f.errorf(e.val.Line, "jurisdiction %q differs from the file name %s.yaml; rename the file to %s.yaml or set jurisdiction: %s", j, stem, j, stem)
			default:
				m.Jurisdiction = j
			}
		}
	}
	if e, ok := fs["name"]; ok {
		m.Name, _ = f.str(e)
	}
	m.Location = time.UTC
	if e, ok := fs["timezone"]; ok {
		if loc, ok := f.timezone(e); ok {
			m.Timezone, m.Location = loc.String(), loc
		}
	}
	if e, ok := fs["hosts"]; ok {
		m.hosts = f.hosts(e, m.Location, pol)
	}
	if e, ok := fs["sources"]; ok {
		m.sources = f.sources(e, m.Jurisdiction)
		if len(m.sources) > 0 {
			m.Sources = make([]Source, 0, len(m.sources))
		}
		for _, s := range m.sources {
			m.Sources = append(m.Sources, s.Source)
		}
	}
	return m
}

func (f *file) timezone(e entry) (*time.Location, bool) {
	name, ok := f.str(e)
	if !ok {
		return nil, false
	}
	// "Local" would make validation depend on the machine it runs on.
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		f.errorf(e.val.Line, "timezone %q is not an IANA time zone; use a name like Europe/London or UTC", name)
		return nil, false
	}
	return loc, true
}

func (f *file) hosts(e entry, defaultLoc *time.Location, pol policy.Policy) []hostSpec {
	if e.val.Kind != yaml.MappingNode {
		f.errorf(e.val.Line, "hosts must be a mapping of host[:port] to its settings")
		return nil
	}
	var out []hostSpec
	seen := map[string]int{}
	for i := 0; i+1 < len(e.val.Content); i += 2 {
		k, v := e.val.Content[i], e.val.Content[i+1]
		name := strings.ToLower(k.Value)
		if k.Kind != yaml.ScalarNode || !validHostKey(name) {
			f.errorf(k.Line, "hosts key %q is not a host; write host or host:port without scheme or path, e.g. www.gov.uk or localhost:8080", k.Value)
			continue
		}
		if first, dup := seen[name]; dup {
			f.errorf(k.Line, "host %s is already set at line %d; keep one entry", name, first)
			continue
		}
		seen[name] = k.Line
		out = append(out, f.host(name, k.Line, v, defaultLoc, pol))
	}
	return out
}

// host reads one hosts: entry, keeping only the settings that are valid.
// Settings may only make the host slower than the policy: a faster one is an
// error, not something to clamp quietly.
func (f *file) host(name string, line int, n *yaml.Node, defaultLoc *time.Location, pol policy.Policy) hostSpec {
	what := "host " + name
	h := hostSpec{name: name, line: line, loc: defaultLoc}
	fs, ok := f.mapping(n, what, hostKeys)
	if !ok {
		return h
	}
	effective := pol.Delay // what robots_override is compared with
	if e, ok := fs["delay"]; ok {
		d, ok := f.delay(e, what)
		switch {
		case !ok:
		case d.Min < pol.Delay.Min:
			f.errorf(e.val.Line, "%s delay min %s is faster than the policy's %s; a host may only be slower: use at least %s", what, fmtDuration(d.Min), fmtDuration(pol.Delay.Min), fmtDuration(pol.Delay.Min))
		case d.Max < pol.Delay.Max:
			f.errorf(e.val.Line, "%s delay max %s is faster than the policy's %s; a host may only be slower: use at least %s", what, fmtDuration(d.Max), fmtDuration(pol.Delay.Max), fmtDuration(pol.Delay.Max))
		default:
			h.delay, h.delayLine, effective = d, e.key.Line, d
		}
	}
	if e, ok := fs["daily_cap"]; ok {
		n, ok := f.count(e)
		switch {
		case !ok:
		case n > pol.DailyCap:
			f.errorf(e.val.Line, "%s daily_cap %d is higher than the policy's %d; a host may only have a lower cap", what, n, pol.DailyCap)
		default:
			h.cap, h.capLine = n, e.key.Line
		}
	}
	if e, ok := fs["timezone"]; ok {
		if loc, ok := f.timezone(e); ok {
			h.loc = loc
		}
	}
	if e, ok := fs["off_peak"]; ok {
		if ws := f.windows(e); len(ws) > 0 {
			h.windows, h.windowsLine = ws, e.key.Line
		}
	}
	if e, ok := fs["robots_override"]; ok {
		if o, ok := f.override(e, what, effective); ok {
			h.override, h.overrideLine = o, e.key.Line
		}
	}
	return h
}

func (f *file) windows(e entry) []policy.Window {
	if e.val.Kind != yaml.SequenceNode {
		f.errorf(e.val.Line, "off_peak must be a list of windows, e.g. [\"Mon-Fri 20:00-07:00\", \"Sat-Sun\"]")
		return nil
	}
	var out []policy.Window
	for _, item := range e.val.Content {
		s, ok := f.str(entry{e.key, item})
		if !ok {
			continue
		}
		w, err := policy.ParseWindow(s)
		if err != nil {
			f.errorf(item.Line, "%v", err)
			continue
		}
		out = append(out, w)
	}
	return out
}

// override reads robots_override; its delay defaults to the host's and may
// not be faster than it.
func (f *file) override(e entry, what string, hostDelay policy.Delay) (*policy.RobotsOverride, bool) {
	fs, ok := f.mapping(e.val, what+" robots_override", overrideKeys)
	if !ok {
		return nil, false
	}
	if _, ok := fs["permission"]; !ok {
		f.errorf(e.val.Line, "%s robots_override has no permission; quote the site owner's written permission (who, when, reference), or remove the override", what)
		return nil, false
	}
	perm, ok := f.str(fs["permission"])
	if !ok {
		return nil, false
	}
	if problem := permissionProblem(perm); problem != "" {
		f.errorf(fs["permission"].val.Line, "%s robots_override %s", what, problem)
		return nil, false
	}
	o := &policy.RobotsOverride{Permission: perm, Delay: hostDelay}
	if de, ok := fs["delay"]; ok {
		d, ok := f.delay(de, what+" robots_override")
		if !ok {
			return nil, false
		}
		if d.Min < hostDelay.Min || d.Max < hostDelay.Max {
			f.errorf(de.val.Line, "%s robots_override delay %s is faster than the host's delay %s; an override may only be slower", what, fmtDelay(d), fmtDelay(hostDelay))
			return nil, false
		}
		o.Delay = d
	}
	return o, true
}

func (f *file) sources(e entry, jurisdiction string) []source {
	if e.val.Kind != yaml.SequenceNode || len(e.val.Content) == 0 {
		f.errorf(e.val.Line, "sources must be a list with at least one source ({id, url, kind, title})")
		return nil
	}
	out := make([]source, 0, len(e.val.Content))
	for _, item := range e.val.Content {
		out = append(out, f.source(item, jurisdiction))
	}
	return out
}

// source reads one source, keeping what is valid: a source with an error
// still takes part in the checks across manifests (duplicate ids and URLs).
func (f *file) source(n *yaml.Node, jurisdiction string) source {
	s := source{Source: Source{
		Jurisdiction: jurisdiction,
		File:         f.path,
		Line:         n.Line,
		Recheck:      DefaultRecheck,
	}}
	fs, ok := f.mapping(n, "source", sourceKeys)
	if !ok {
		return s
	}
	f.require(n, fs, "source", "id", "url", "kind", "title")
	if e, ok := fs["id"]; ok {
		s.Line = e.key.Line
		if id, ok := f.str(e); ok {
			if idSyntax.MatchString(id) {
				s.ID = id
				f.idPrefix(id, jurisdiction, e.val.Line)
			} else {
				f.errorf(e.val.Line, "source id %q may only use a-z, 0-9 and -, e.g. uk-income-tax-rates", id)
			}
		}
	}
	if e, ok := fs["url"]; ok {
		s.urlLine = e.val.Line
		if raw, ok := f.str(e); ok {
			f.sourceURL(&s, raw, e.val.Line)
		}
	}
	if e, ok := fs["kind"]; ok {
		if k, ok := f.str(e); ok {
			if slices.Contains(kinds, Kind(k)) {
				s.Kind = Kind(k)
			} else {
				f.errorf(e.val.Line, "unknown kind %q; use one of %s", k, strings.Join(kindNames(), ", "))
			}
		}
	}
	if s.Parsed != nil && s.Kind != "" {
		if why := kindForm(s.Kind, s.Parsed); why != "" {
			f.warnf(s.urlLine, "url %s %s", s.URL, why)
		}
	}
	if e, ok := fs["title"]; ok {
		s.Title, _ = f.str(e)
	}
	if e, ok := fs["recheck"]; ok {
		if e.val.Kind == yaml.ScalarNode && strings.TrimSpace(e.val.Value) == "never" {
			s.Recheck, s.Never = 0, true
			f.recheckNever(s, e.val.Line)
		} else if d, ok := f.duration(e, "recheck"); ok {
			s.Recheck = d // 0s: due at every run
		}
	}
	if e, ok := fs["encodes"]; ok {
		s.Encodes, _ = f.strList(e)
	}
	if e, ok := fs["gaps"]; ok {
		s.Gaps, _ = f.strList(e)
	}
	if e, ok := fs["accept"]; ok {
		s.Accept, _ = f.strList(e)
		for _, sum := range s.Accept {
			if !sha256Hex.MatchString(sum) {
				f.errorf(e.val.Line, "accept: %q is not a sha256 (64 lower-case hex digits); copy it from snapshots/index.json or the coverage report", sum)
			}
		}
	}
	if e, ok := fs["view"]; ok {
		s.View, _ = f.view(e)
	}
	f.legalFields(&s, fs)
	return s
}

// sha256Hex is how an accepted answer is named: as the index names it.
var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// sourceURL checks and normalises a source's URL into s.
func (f *file) sourceURL(s *source, raw string, line int) {
	u, err := normalize(raw)
	if err != nil {
		f.errorf(line, "%v", err)
		return
	}
	s.URL, s.Parsed, s.Host = u.String(), u, HostOf(u)
	// Private hosts are test and demo servers, where plain http is normal.
	if u.Scheme == "http" && !policy.IsPrivateHost(s.Host) {
		f.warnf(line, "url %s is plain http://; use https:// if the site offers it", u)
	}
	if why := retiredForm(u); why != "" {
		f.warnf(line, "url %s %s", u, why)
	}
	if what := applicationPage(u); what != "" {
		f.warnf(line, "url %s looks like an application page (%s), not a document: the bot would keep the application's page, whatever it shows; list the document's own address (its PDF, or the page that holds its text)", u, what)
	}
}

func kindNames() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

func fmtWindows(ws []policy.Window, loc *time.Location) string {
	lits := make([]string, len(ws))
	for i, w := range ws {
		lits[i] = fmt.Sprintf("%q", w.Literal)
	}
	return fmt.Sprintf("[%s] in %s", strings.Join(lits, ", "), loc)
}
