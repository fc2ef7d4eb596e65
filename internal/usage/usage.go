package usage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dunglas/httpsfv"
)

// The fields a statement can come from.
const (
	ContentUsage  = "Content-Usage"
	ContentSignal = "Content-Signal"
)

// Statement is one statement of preference, as the publisher wrote it.
type Statement struct {
	// Field is ContentUsage or ContentSignal.
	Field string `json:"field"`
	// From says where it was read: "header", or "robots.txt line N".
	From string `json:"from"`
	// Path is the robots.txt rule's path, "" when the rule has none (it
	// then applies to every path of its group) or for a header.
	Path string `json:"path,omitempty"`
	// Value is the statement itself, as written.
	Value string `json:"value"`
	// Invalid says why the value could not be read, if it could not: its
	// preferences are then unknown (draft-ietf-aipref-vocab, section 6.5).
	Invalid string `json:"invalid,omitempty"`
}

// Prefs are the preferences in force for one capture: per key, the most
// restrictive value any statement gave it, and the statements themselves.
type Prefs struct {
	// Usage maps Content-Usage labels (train-ai, search, and any other) to
	// "y" or "n", or to the member as written (RFC 9651 serialisation) when
	// it is neither: a value the vocabulary leaves unknown is kept.
	Usage map[string]string `json:"content_usage,omitempty"`
	// Signal maps Content-Signal keys (search, ai-input, ai-train, and any
	// other) to "yes" or "no", or to the value as written.
	Signal     map[string]string `json:"content_signal,omitempty"`
	Statements []Statement       `json:"statements"`
}

// Combine reads each statement and combines them. It returns nil when there
// is none: a capture with no statement has no preferences to keep, which
// is not the same as preferences that are all unknown. Statements whose
// value cannot be read are kept with Invalid set.
func Combine(stmts []Statement) *Prefs {
	if len(stmts) == 0 {
		return nil
	}
	p := &Prefs{Statements: make([]Statement, 0, len(stmts))}
	for _, s := range stmts {
		var kv []pair
		var err error
		switch s.Field {
		case ContentUsage:
			kv, err = parseUsage(s.Value)
		case ContentSignal:
			kv, err = parseSignal(s.Value)
		default:
			err = fmt.Errorf("unknown field %q", s.Field)
		}
		if err != nil {
			s.Invalid = err.Error()
		}
		p.Statements = append(p.Statements, s)
		for _, e := range kv {
			if s.Field == ContentUsage {
				p.Usage = merge(p.Usage, e)
			} else {
				p.Signal = merge(p.Signal, e)
			}
		}
	}
	return p
}

type pair struct{ key, value string }

// rank orders values by restriction: a refusal over a permission over
// anything else. The two vocabularies spell them differently.
func rank(v string) int {
	switch v {
	case "n", "no":
		return 2
	case "y", "yes":
		return 1
	}
	return 0
}

// merge adds e to m under the most-restrictive rule; of two values of
// equal rank, the first one read stays.
func merge(m map[string]string, e pair) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	if old, ok := m[e.key]; !ok || rank(e.value) > rank(old) {
		m[e.key] = e.value
	}
	return m
}

// parseUsage reads a Content-Usage value as draft-ietf-aipref-vocab's
// processing algorithm does: an RFC 9651 dictionary (the last of repeated
// keys counts), a member whose value is the Token y or n being a
// permission or refusal whatever its parameters. Any other member is kept
// as written; a value that is no dictionary has no preferences at all.
func parseUsage(v string) ([]pair, error) {
	d, err := httpsfv.UnmarshalDictionary([]string{v})
	if err != nil {
		return nil, fmt.Errorf("not a Structured Field dictionary (RFC 9651): %v", err)
	}
	var out []pair
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		if it, ok := m.(httpsfv.Item); ok {
			if t, ok := it.Value.(httpsfv.Token); ok && (t == "y" || t == "n") {
				out = append(out, pair{k, string(t)})
				continue
			}
		}
		s, err := httpsfv.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("member %q: %v", k, err)
		}
		out = append(out, pair{k, s})
	}
	return out, nil
}

// parseSignal reads a Content-Signal value: comma-separated key=value
// pairs. It is read more leniently than a dictionary, as the line is
// written by hand in robots.txt files ("search = yes"): keys are
// lower-cased, yes and no are recognised in any case, and anything else is
// kept as written.
func parseSignal(v string) ([]pair, error) {
	var out []pair
	for part := range strings.SplitSeq(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, val, ok := strings.Cut(part, "=")
		k, val = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(val)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", part)
		}
		if l := strings.ToLower(val); l == "yes" || l == "no" {
			val = l
		}
		out = append(out, pair{k, val})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no key=value pair")
	}
	return out, nil
}

// String says the preferences in one line, keys sorted:
// "Content-Usage train-ai=n; Content-Signal ai-train=no, search=yes", or
// "none" for nil (no statement applied).
func (p *Prefs) String() string {
	if p == nil {
		return "none"
	}
	var parts []string
	for _, f := range []struct {
		name string
		m    map[string]string
	}{{ContentUsage, p.Usage}, {ContentSignal, p.Signal}} {
		if len(f.m) == 0 {
			continue
		}
		keys := make([]string, 0, len(f.m))
		for k := range f.m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		kv := make([]string, len(keys))
		for i, k := range keys {
			kv[i] = k + "=" + f.m[k]
		}
		parts = append(parts, f.name+" "+strings.Join(kv, ", "))
	}
	if len(parts) == 0 {
		return "unknown (no statement could be read)"
	}
	return strings.Join(parts, "; ")
}

// Clone returns a copy of p that shares nothing with it.
func (p *Prefs) Clone() *Prefs {
	if p == nil {
		return nil
	}
	return &Prefs{Usage: maps.Clone(p.Usage), Signal: maps.Clone(p.Signal), Statements: slices.Clone(p.Statements)}
}
