package usage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func header(v string) Statement { return Statement{Field: ContentUsage, From: "header", Value: v} }

// Each case is an example from the drafts, cited by section.
func TestContentUsageDraftExamples(t *testing.T) {
	for _, c := range []struct {
		name    string
		value   string
		want    map[string]string
		invalid bool
	}{
		// draft-ietf-aipref-attach-05 §1.2: the header example.
		{"attach 1.2 header", "train-ai=n", map[string]string{"train-ai": "n"}, false},
		// draft-ietf-aipref-vocab-07 §6: allow training, disallow search.
		{"vocab 6 format", "train-ai=y, search=n", map[string]string{"train-ai": "y", "search": "n"}, false},
		// §6.5.1: the last of repeated keys counts; a Boolean and a String
		// are not tokens, so both preferences are unknown — and kept.
		{"vocab 6.5.1 duplicates", `train-ai=y, train-ai, search=n, search="n"`, map[string]string{"train-ai": "?1", "search": `"n"`}, false},
		// §6.5.2: the parameters of the value not selected do not apply.
		{"vocab 6.5.2 parameters", "train-ai;allow=n, train-ai=y", map[string]string{"train-ai": "y"}, false},
		// §6.5.2: parameters on an unknown preference are kept with it.
		{"vocab 6.5.2 unknown with parameters", `train-ai;has;parameters="?"`, map[string]string{"train-ai": `?1;has;parameters="?"`}, false},
		// The draft writes that example with a trailing ";", which RFC 9651
		// refuses: the statement is kept, its preferences unknown.
		{"vocab 6.5.2 as printed", `train-ai;has;parameters="?";`, nil, true},
		// §6.5.1: upper-case keys fail the parse, so everything is unknown.
		{"vocab 6.5.1 upper case", "Train-AI=n", nil, true},
		// §6.4: an unknown label is kept, not dropped.
		{"vocab 6.4 unknown label", "train-ai=n, example-new=y", map[string]string{"train-ai": "n", "example-new": "y"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := Combine([]Statement{header(c.value)})
			if diff := cmp.Diff(c.want, p.Usage); diff != "" {
				t.Errorf("Usage (-want +got):\n%s", diff)
			}
			if got := p.Statements[0].Invalid != ""; got != c.invalid {
				t.Errorf("Invalid = %q, want invalid %v", p.Statements[0].Invalid, c.invalid)
			}
			if p.Statements[0].Value != c.value {
				t.Errorf("statement value %q, want %q as written", p.Statements[0].Value, c.value)
			}
		})
	}
}

// draft-ietf-aipref-vocab-07 §5.1: a refusal from any statement wins, then
// a permission, then unknown.
func TestCombineMostRestrictive(t *testing.T) {
	p := Combine([]Statement{
		{Field: ContentUsage, From: "robots.txt line 4", Value: "train-ai=y, search=y"},
		header("train-ai=n, search=maybe"),
		header("search=y, other=1"),
	})
	want := map[string]string{"train-ai": "n", "search": "y", "other": "1"}
	if diff := cmp.Diff(want, p.Usage); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
	if len(p.Statements) != 3 {
		t.Errorf("kept %d statements, want 3", len(p.Statements))
	}
}

// Cloudflare's Content Signals Policy: the managed robots.txt line, its
// yes and no, and the "use" key some files carry, kept although it is no
// signal this program knows.
func TestContentSignal(t *testing.T) {
	p := Combine([]Statement{
		{Field: ContentSignal, From: "robots.txt line 2", Value: "search=yes, ai-train=no, ai-input=no"},
		{Field: ContentSignal, From: "robots.txt line 3", Value: "Search = YES, ai-input=yes, use=reference"},
	})
	want := map[string]string{"search": "yes", "ai-train": "no", "ai-input": "no", "use": "reference"}
	if diff := cmp.Diff(want, p.Signal); diff != "" {
		t.Errorf("Signal (-want +got):\n%s", diff)
	}
	if p.Usage != nil {
		t.Errorf("Usage = %v, want none: Content-Signal keys are not Content-Usage labels", p.Usage)
	}
	bad := Combine([]Statement{{Field: ContentSignal, From: "robots.txt line 9", Value: "ai-train"}})
	if bad.Statements[0].Invalid == "" || bad.Signal != nil {
		t.Errorf("a line without key=value: %+v, want it kept as invalid with no signal", bad)
	}
}

func TestNoStatementIsNil(t *testing.T) {
	if p := Combine(nil); p != nil {
		t.Errorf("Combine(nil) = %+v, want nil", p)
	}
	var p *Prefs
	if p.String() != "none" {
		t.Errorf("nil String() = %q", p.String())
	}
}

func TestString(t *testing.T) {
	p := Combine([]Statement{
		header("train-ai=n, search=y"),
		{Field: ContentSignal, From: "robots.txt line 1", Value: "search=yes, ai-train=no"},
	})
	want := "Content-Usage search=y, train-ai=n; Content-Signal ai-train=no, search=yes"
	if got := p.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := Combine([]Statement{header("X=1")}).String(); !strings.HasPrefix(got, "unknown") {
		t.Errorf("String() of unreadable statements = %q", got)
	}
}
