package view

import (
	"strings"
	"testing"
)

func TestChecks(t *testing.T) {
	for _, tt := range []struct {
		check func(string) error
		in    string
		want  string // "" for accepted
	}{
		{CheckSelector, "#cookie-banner, .last-updated", ""},
		{CheckSelector, "div[[", `drop selector "div[[" is not a CSS selector`},
		{CheckSelector, " ", "drop selector is empty"},
		{CheckIgnore, `^Page generated at .*`, ""},
		{CheckIgnore, "Page (generated", `ignore expression "Page (generated" is not a regular expression`},
		{CheckIgnore, ".*", `ignore expression ".*" matches an empty line`},
		{CheckIgnore, "", "ignore expression is empty"},
	} {
		err := tt.check(tt.in)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v, want it accepted", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestIsZero(t *testing.T) {
	if !(Spec{}).IsZero() || (Spec{Ignore: []string{"x"}}).IsZero() || (Spec{Drop: []string{"p"}}).IsZero() {
		t.Error("IsZero: only a Spec with neither Drop nor Ignore is the default view")
	}
}
