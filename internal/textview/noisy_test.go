package textview

import (
	"fmt"
	"slices"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/view"
)

func TestBlinks(t *testing.T) {
	c := func(raw, view string) Check { return Check{Raw: raw, View: view} }
	tests := []struct {
		name   string
		checks []Check
		want   bool
	}{
		{"three new byte strings, one text", []Check{c("r1", "v"), c("r2", "v"), c("r3", "v"), c("r4", "v")}, true},
		{"only two fetches changed", []Check{c("r1", "v"), c("r1", "v"), c("r3", "v"), c("r4", "v")}, false},
		{"too few fetches", []Check{c("r2", "v"), c("r3", "v"), c("r4", "v")}, false},
		{"the text changed too", []Check{c("r1", "v"), c("r2", "v"), c("r3", "w"), c("r4", "w")}, false},
		{"older history does not matter", []Check{c("r0", "x"), c("r0", "x"), c("r1", "v"), c("r2", "v"), c("r3", "v"), c("r4", "v")}, true},
	}
	for _, tt := range tests {
		if got := Blinks(tt.checks); got != tt.want {
			t.Errorf("%s: Blinks = %v, want %v", tt.name, got, tt.want)
		}
	}
	// The report changes once: when the source starts blinking.
	var hist []Check
	var starts []int
	for i := range 8 {
		hist = append(hist, c(fmt.Sprint("r", i), "v"))
		if StartsBlinking(hist) {
			starts = append(starts, i)
		}
	}
	if !slices.Equal(starts, []int{3}) {
		t.Errorf("StartsBlinking at fetches %v, want [3]", starts)
	}
}

// blinkPage is a page as four kinds of blinking site serve it on fetch n.
func blinkPage(kind string, n int) Doc {
	token, stamp, banner, rate := "tok-a1", "09:00:00", "Tip: file early", "20%"
	switch kind {
	case "token":
		token = fmt.Sprintf("tok-%x", 0xa1+n*7919)
	case "timestamp":
		stamp = fmt.Sprintf("09:%02d:%02d", n, n*7%60)
	case "banner":
		banner = []string{"Tip: file early", "Tip: check your code", "Tip: pay online"}[n%3]
	case "real":
		if n >= 2 {
			rate = "21%"
		}
	}
	return Doc{ContentType: "text/html", Raw: []byte(`<html><head><meta name="csrf-token" content="` + token + `"></head><body>
<div class="promo">` + banner + `</div>
<main><h1>Rates</h1><table><tr><td>Basic rate</td><td>` + rate + `</td></tr></table>
<form><input type="hidden" name="authenticity_token" value="` + token + `"></form>
<p>Page generated at ` + stamp + ` on 30 November 2026</p></main></body></html>`)}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		kind   string
		want   view.Spec
		works  bool
		blinks bool
	}{
		{"token", view.Spec{Drop: []string{`meta[name="csrf-token"]`, `input[name="authenticity_token"]`}}, true, true},
		{"timestamp", view.Spec{Ignore: []string{`^Page generated at \d+:\d+:\d+ on \d+ November \d+$`}}, true, false},
		{"banner", view.Spec{Drop: []string{"div.promo"}}, true, false},
		{"real", view.Spec{}, false, false},
	}
	for _, tt := range tests {
		var docs []Doc
		var checks []Check
		for n := range 4 {
			d := blinkPage(tt.kind, n)
			docs = append(docs, d)
			checks = append(checks, Check{Raw: Hash(string(d.Raw)), View: Hash((*View)(nil).NormalizeDoc(t.Context(), Doc{Raw: d.Raw, ContentType: d.ContentType}, Limits{}).Text)})
		}
		if got := Blinks(checks); got != tt.blinks {
			t.Errorf("%s: Blinks = %v, want %v", tt.kind, got, tt.blinks)
		}
		spec, works := Suggest(t.Context(), docs, Limits{})
		if fmt.Sprint(spec) != fmt.Sprint(tt.want) || works != tt.works {
			t.Errorf("%s: Suggest = %#v, %v; want %#v, %v", tt.kind, spec, works, tt.want, tt.works)
		}
	}
}
