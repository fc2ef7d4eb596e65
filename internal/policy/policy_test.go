package policy

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestProductToken(t *testing.T) {
	for ua, want := range map[string]string{
		DefaultUserAgent:           "TaxKernelBot",
		"TaxKernelBot":             "TaxKernelBot",
		"  OtherBot (+https://x)":  "OtherBot",
		"FooBot\t1.0":              "FooBot",
		"Mozilla/5.0 (compatible)": "Mozilla",
	} {
		if got := (Policy{UserAgent: ua}).ProductToken(); got != want {
			t.Errorf("ProductToken(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestExcluded(t *testing.T) {
	p := Policy{Exclude: []Exclusion{
		{Host: "www.example.gov", Path: "/private/", Reason: "owner request"},
		{Host: "stop.example.org", Reason: "whole host"},
		{Host: "ported.example.org:8443", Reason: "one port"},
		{Host: "[2001:db8::1]", Path: "/x", Reason: "ipv6"},
	}}
	tests := []struct {
		url    string
		reason string // empty: not excluded
	}{
		{"https://www.example.gov/private/report.pdf", "owner request"},
		{"https://WWW.Example.GOV/private/", "owner request"},
		{"https://www.example.gov:443/private/a", "owner request"},
		{"https://www.example.gov:8080/private/a", "owner request"}, // no port in the exclusion: every port
		{"https://www.example.gov/public/report.pdf", ""},
		{"https://www.example.gov/private", ""}, // prefix is "/private/"
		{"https://www.example.gov/%70rivate/a", "owner request"},
		{"https://sub.www.example.gov/private/a", ""},
		{"https://stop.example.org", "whole host"},
		{"http://stop.example.org/any?q=1", "whole host"},
		{"https://ported.example.org:8443/a", "one port"},
		{"https://ported.example.org/a", ""},
		{"https://[2001:db8::1]/x/y", "ipv6"},
		{"https://[2001:db8::1]:8443/x/y", "ipv6"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := p.Excluded(u)
		if ok != (tt.reason != "") || e.Reason != tt.reason {
			t.Errorf("Excluded(%s) = %+v, %v; want reason %q", tt.url, e, ok, tt.reason)
		}
	}
}

func TestAuthority(t *testing.T) {
	for in, want := range map[string]string{
		"https://WWW.gov.uk/":      "www.gov.uk",
		"HTTPS://www.gov.uk:443/":  "www.gov.uk",
		"https://www.gov.uk:8443/": "www.gov.uk:8443",
		"http://www.gov.uk:80/":    "www.gov.uk",
		"http://www.gov.uk:443/":   "www.gov.uk:443",
		"https://www.gov.uk:80/":   "www.gov.uk:80",
		"https://[2001:DB8::1]/":   "[2001:db8::1]",
		"http://[::1]:8080/":       "[::1]:8080",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := Authority(u); got != want {
			t.Errorf("Authority(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestHostFor(t *testing.T) {
	p := Default()
	got := p.HostFor("www.gov.uk")
	want := Host{Name: "www.gov.uk", Delay: DefaultDelay, DailyCap: DefaultDailyCap, Location: time.UTC}
	if diff := cmp.Diff(want, got, cmpLocation); diff != "" {
		t.Errorf("HostFor (-want +got):\n%s", diff)
	}

	// A sub-second policy (tests) is floored for a public host.
	fast := Policy{Delay: Delay{Min: 10 * time.Millisecond, Max: 20 * time.Millisecond}, DailyCap: 5, AllowPrivateNetworks: true}
	if got := fast.HostFor("www.gov.uk").Delay; got != (Delay{Min: time.Second, Max: time.Second}) {
		t.Errorf("public host delay = %v, want the 1s floor", got)
	}
	if got := fast.HostFor("127.0.0.1:8080").Delay; got != fast.Delay {
		t.Errorf("private host delay with allow_private_networks = %v, want %v", got, fast.Delay)
	}
}

var cmpLocation = cmp.Comparer(func(a, b *time.Location) bool { return a.String() == b.String() })

func TestApplyFloors(t *testing.T) {
	s := time.Second
	base := Policy{Delay: Delay{Min: 3 * s, Max: 5 * s}, DailyCap: 200}
	private := base
	private.Delay = Delay{Min: 0, Max: 0}
	private.AllowPrivateNetworks = true
	noPrivate := private
	noPrivate.AllowPrivateNetworks = false
	loc, _ := time.LoadLocation("Europe/London")

	tests := []struct {
		name string
		p    Policy
		in   Host
		want Host
	}{
		{
			name: "slower than policy is kept",
			p:    base,
			in:   Host{Name: "a", Delay: Delay{5 * s, 8 * s}, DailyCap: 120, Location: loc},
			want: Host{Name: "a", Delay: Delay{5 * s, 8 * s}, DailyCap: 120, Location: loc},
		},
		{
			name: "faster than policy is raised to it, cap lowered to it",
			p:    base,
			in:   Host{Name: "a", Delay: Delay{1 * s, 2 * s}, DailyCap: 1000},
			want: Host{Name: "a", Delay: Delay{3 * s, 5 * s}, DailyCap: 200, Location: time.UTC},
		},
		{
			name: "zero values take the policy",
			p:    base,
			in:   Host{Name: "a"},
			want: Host{Name: "a", Delay: Delay{3 * s, 5 * s}, DailyCap: 200, Location: time.UTC},
		},
		{
			name: "max below min is raised to min",
			p:    base,
			in:   Host{Name: "a", Delay: Delay{10 * s, 6 * s}, DailyCap: 10},
			want: Host{Name: "a", Delay: Delay{10 * s, 10 * s}, DailyCap: 10, Location: time.UTC},
		},
		{
			name: "override's slower delay wins",
			p:    base,
			in: Host{Name: "a", Delay: Delay{5 * s, 8 * s}, DailyCap: 10,
				Override: &RobotsOverride{Permission: "ok", Delay: Delay{10 * s, 15 * s}}},
			want: Host{Name: "a", Delay: Delay{10 * s, 15 * s}, DailyCap: 10, Location: time.UTC,
				Override: &RobotsOverride{Permission: "ok", Delay: Delay{10 * s, 15 * s}}},
		},
		{
			name: "a faster override does not speed the host up",
			p:    base,
			in: Host{Name: "a", Delay: Delay{5 * s, 8 * s}, DailyCap: 10,
				Override: &RobotsOverride{Permission: "ok", Delay: Delay{1 * s, 2 * s}}},
			want: Host{Name: "a", Delay: Delay{5 * s, 8 * s}, DailyCap: 10, Location: time.UTC,
				Override: &RobotsOverride{Permission: "ok", Delay: Delay{1 * s, 2 * s}}},
		},
		{
			name: "1s floor holds for a public host even with private networks allowed",
			p:    private,
			in:   Host{Name: "www.gov.uk", Delay: Delay{0, 500 * time.Millisecond}},
			want: Host{Name: "www.gov.uk", Delay: Delay{s, s}, DailyCap: 200, Location: time.UTC},
		},
		{
			name: "private host may go below 1s when allowed",
			p:    private,
			in:   Host{Name: "127.0.0.1:9000", Delay: Delay{0, 500 * time.Millisecond}},
			want: Host{Name: "127.0.0.1:9000", Delay: Delay{0, 500 * time.Millisecond}, DailyCap: 200, Location: time.UTC},
		},
		{
			name: "private host keeps the 1s floor when not allowed",
			p:    noPrivate,
			in:   Host{Name: "localhost:9000", Delay: Delay{0, 500 * time.Millisecond}},
			want: Host{Name: "localhost:9000", Delay: Delay{s, s}, DailyCap: 200, Location: time.UTC},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.p.ApplyFloors(tt.in)
			if diff := cmp.Diff(tt.want, got, cmpLocation); diff != "" {
				t.Errorf("ApplyFloors (-want +got):\n%s", diff)
			}
			if tt.in.Override != nil && got.Override == tt.in.Override {
				t.Errorf("ApplyFloors returned the caller's override pointer; want a copy")
			}
		})
	}
}

func TestIsPrivateHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost":            true,
		"LOCALHOST:8080":       true,
		"127.0.0.1":            true,
		"127.8.9.10:8080":      true,
		"10.1.2.3":             true,
		"172.16.0.1":           true,
		"192.168.1.1:443":      true,
		"169.254.169.254":      true, // cloud metadata, link-local
		"0.0.0.0":              true,
		"100.64.0.1":           true,
		"192.0.2.10":           true,
		"198.18.0.1":           true,
		"255.255.255.255":      true,
		"224.0.0.1":            true,
		"::1":                  true,
		"[::1]":                true,
		"[::1]:8080":           true,
		"[fe80::1%25eth0]:80":  true, // any zone text: still link-local
		"[fe80::1%eth0]:80":    true,
		"[fd00::1]:443":        true,
		"[::]":                 true,
		"[::ffff:127.0.0.1]":   true,
		"[::ffff:100.64.0.1]":  true, // mapped CGNAT: only seen once unmapped
		"[::ffff:8.8.8.8]":     false,
		"[2001:db8::1]":        true,
		"www.gov.uk":           false,
		"www.gov.uk:8443":      false,
		"8.8.8.8":              false,
		"[2606:4700::1111]:80": false,
		"localhost.gov.uk":     false,
		"127.0.0.1.nip.io":     false, // needs DNS: the dial guard decides
		"":                     false,
		"[::1":                 false,
	} {
		if got := IsPrivateHost(host); got != want {
			t.Errorf("IsPrivateHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestOffPeakNow(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	weekdayNights := mustWindow(t, "Mon-Fri 20:00-07:00")
	weekend := mustWindow(t, "Sat-Sun")
	h := Host{OffPeak: []Window{weekdayNights, weekend}, Location: london}
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tests := []struct {
		at   string
		want bool
	}{
		{"2026-01-07T12:00:00Z", false},     // Wed 12:00 GMT
		{"2026-01-07T20:00:00Z", true},      // Wed 20:00 GMT
		{"2026-01-08T06:59:00Z", true},      // Thu 06:59 GMT, Wednesday's night
		{"2026-01-08T07:00:00Z", false},     // Thu 07:00 GMT: over
		{"2026-07-08T19:30:00Z", true},      // Wed 20:30 BST: London's clock, not UTC's
		{"2026-07-09T06:30:00Z", false},     // Thu 07:30 BST
		{"2026-01-10T12:00:00Z", true},      // Sat, whole day
		{"2026-01-10T06:00:00Z", true},      // Sat 06:00: Friday's night
		{"2026-01-09T21:00:00+01:00", true}, // Fri 20:00 GMT, given in another zone
		{"2026-01-12T06:00:00Z", false},     // Mon 06:00: Sunday's window ended at midnight, Mon-Fri nights start Monday evening
		{"2026-01-13T06:00:00Z", true},      // Tue 06:00: Monday's night
		{"2026-01-13T06:59:59.999Z", true},  // last instant
		{"2026-01-13T07:00:00.000000001Z", false},
	}
	for _, tt := range tests {
		if got := h.OffPeakNow(utc(tt.at)); got != tt.want {
			t.Errorf("OffPeakNow(%s = %s London) = %v, want %v", tt.at, utc(tt.at).In(london).Format("Mon 15:04 MST"), got, tt.want)
		}
	}

	if !(Host{}).OffPeakNow(utc("2026-01-07T12:00:00Z")) {
		t.Error("a host without windows must be fetchable at any time")
	}
	// Nil location means UTC.
	nights := Host{OffPeak: []Window{mustWindow(t, "Wed 20:00-21:00")}}
	if !nights.OffPeakNow(utc("2026-07-08T20:30:00+00:00")) || nights.OffPeakNow(utc("2026-07-08T20:30:00+01:00")) {
		t.Error("nil Location must read windows in UTC")
	}
}

func mustWindow(t *testing.T, s string) Window {
	t.Helper()
	w, err := ParseWindow(s)
	if err != nil {
		t.Fatalf("ParseWindow(%q): %v", s, err)
	}
	return w
}

func TestBorrowedIdentity(t *testing.T) {
	ours := Default()
	theirs := Default()
	theirs.UserAgent, theirs.From = "ExampleTaxBot/1.0 (+https://example.org/bot)", "bot@example.org"
	halfway := Default()
	halfway.From = "bot@example.org" // still our page in the User-Agent
	for _, c := range []struct {
		p       Policy
		repo    string
		refused bool
	}{
		{ours, "", false},
		{ours, "taxkernel/taxkernelbot", false},
		{ours, "TaxKernel/TaxKernelBot", false},
		{ours, "someone/taxkernelbot", true},
		{halfway, "someone/taxkernelbot", true},
		{theirs, "someone/taxkernelbot", false},
	} {
		err := c.p.BorrowedIdentity(c.repo)
		if (err != nil) != c.refused {
			t.Errorf("%q with from %q: %v, want refused %v", c.repo, c.p.From, err, c.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "user_agent") {
			t.Errorf("the error does not say what to set: %v", err)
		}
	}
}
