package pipeline

import (
	"net/url"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
)

func TestRedirectDecision(t *testing.T) {
	listed, _ := url.Parse("https://other.example/listed")
	r := &run{o: Options{Set: &manifest.Set{
		Policy:  policy.Default(),
		Sources: []manifest.Source{{ID: "x-listed", URL: listed.String(), Parsed: listed, Host: "other.example"}},
	}}}
	for _, tc := range []struct {
		from, location string
		hop            int
		follow         bool
		moved          bool
	}{
		{"https://a.example/x", "https://a.example/y", 0, true, false},          // same host
		{"http://a.example/x", "https://a.example/x", 0, true, false},           // http→https upgrade
		{"http://a.example:8080/x", "https://a.example/x", 0, true, false},      // upgrade to the https port
		{"http://a.example/x", "https://a.example:9443/x", 0, false, true},      // another port is another host
		{"https://a.example/x", "http://a.example/x", 0, false, true},           // https→http refused
		{"https://a.example/x", "https://other.example/listed", 0, true, false}, // listed elsewhere
		{"https://a.example/x", "https://other.example/unlisted", 0, false, true},
		{"https://a.example/x", "ftp://a.example/x", 0, false, true},
		{"https://a.example/x", "https://a.example/y", policy.MaxRedirects, false, false}, // too many hops
	} {
		from, _ := url.Parse(tc.from)
		next, moved := r.redirect(from, tc.location, tc.hop)
		if (next != nil) != tc.follow || (moved != "") != tc.moved {
			t.Errorf("%s → %s (hop %d): next=%v moved=%q, want follow=%v moved=%v", tc.from, tc.location, tc.hop, next, moved, tc.follow, tc.moved)
		}
	}
}
