package textview

import (
	"os"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/view"
)

func TestViewNormalize(t *testing.T) {
	raw, err := os.ReadFile("testdata/rates.html")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Compile(view.Spec{
		Drop:   []string{"#cookie-banner", "header nav"},
		Ignore: []string{`^Page generated at .*`},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := v.NormalizeDoc(t.Context(), Doc{Raw: raw, ContentType: "text/html"}, Limits{})
	for _, gone := range []string{"We use cookies", "Home > Tax", "Page generated"} {
		if strings.Contains(got.Text, gone) {
			t.Errorf("normalised text still holds %q:\n%s", gone, got.Text)
		}
	}
	// White space is collapsed (the <pre> too), content kept.
	for _, kept := range []string{"Basic rate | £12,571 to £50,270 | 20%\n", "Band Rate\nBasic 20%\n"} {
		if !strings.Contains(got.Text, kept) {
			t.Errorf("normalised text lacks %q:\n%s", kept, got.Text)
		}
	}
	// The default view keeps them.
	def := (*View)(nil).NormalizeDoc(t.Context(), Doc{Raw: raw, ContentType: "text/html"}, Limits{})
	if !strings.Contains(def.Text, "We use cookies") || !strings.Contains(def.Text, "Page generated at") {
		t.Errorf("default view:\n%s", def.Text)
	}
}

// TestDefaultViewIgnoresMachinery: two fetches of a page that differ only
// in what no reader sees (a CSRF token in <meta> and a hidden input, a
// build id in a script, a comment, a style) have the same default view.
func TestDefaultViewIgnoresMachinery(t *testing.T) {
	page := func(token, build string) []byte {
		return []byte(`<html><head><meta name="csrf-token" content="` + token + `"><style>/*` + build + `*/</style>
<script>var build="` + build + `"</script></head><body><!-- ` + build + ` --><form><input type="hidden" name="t" value="` + token + `"></form>
<p>Basic rate 20%</p></body></html>`)
	}
	a := (*View)(nil).NormalizeDoc(t.Context(), Doc{Raw: page("tok-1", "b1"), ContentType: "text/html"}, Limits{})
	b := (*View)(nil).NormalizeDoc(t.Context(), Doc{Raw: page("tok-2", "b2"), ContentType: "text/html"}, Limits{})
	if Hash(a.Text) != Hash(b.Text) || a.Text != "Basic rate 20%\n" {
		t.Errorf("default views differ: %q vs %q", a.Text, b.Text)
	}
}

func TestCompileRejects(t *testing.T) {
	tests := []struct {
		spec view.Spec
		want string
	}{
		{view.Spec{Drop: []string{"div[["}}, `drop selector "div[[" is not a CSS selector`},
		{view.Spec{Drop: []string{" "}}, "drop selector is empty"},
		{view.Spec{Ignore: []string{"Page (generated"}}, `ignore expression "Page (generated" is not a regular expression`},
		{view.Spec{Ignore: []string{".*"}}, `ignore expression ".*" matches an empty line`},
	}
	for _, tt := range tests {
		_, err := Compile(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want %q", tt.spec, err, tt.want)
		}
	}
	if v, err := Compile(view.Spec{}); v != nil || err != nil {
		t.Errorf("zero spec: %v, %v", v, err)
	}
}

func TestNormalizeTextOnStoredText(t *testing.T) {
	v, _ := Compile(view.Spec{Ignore: []string{"token [0-9a-f]+"}})
	got := v.NormalizeText("Rates\u00a0 2026\n\n  csrf token 9f8e \nBasic\t20%\n")
	if got != "Rates 2026\nBasic 20%\n" {
		t.Errorf("got %q", got)
	}
}
