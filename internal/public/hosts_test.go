package public_test

import (
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// The hosts page shows, for a host that sends each signal, the delay the
// gate keeps and what set it; a signal faster than the policy leaves the
// policy's delay.
func TestHostsShowTheSitesPace(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	row := func(st *state.State, host string) string {
		t.Helper()
		page := public.RulesOf(set).HostsMarkdown(public.Hosts{Hints: public.HostHints(set, st)})
		for line := range strings.SplitSeq(string(page), "\n") {
			if strings.HasPrefix(line, "| [`"+host+"`]") {
				return line
			}
		}
		t.Fatalf("no row for %s in:\n%s", host, page)
		return ""
	}
	robotsTxt := func(body string) state.Robots {
		return state.Robots{URL: "https://www.example.gov/robots.txt", FetchedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), HTTPStatus: 200, Outcome: state.RobotsParsed, Body: []byte(body)}
	}
	for _, tt := range []struct {
		name, robots, rateLimitPolicy, want string
	}{
		{"nothing said", "", "", "| 5s–8s | policy |"},
		{"Crawl-delay", "User-agent: *\nCrawl-delay: 12\n", "", "| 12s | Crawl-delay: 12 |"},
		{"max-crawl-rate", "User-agent: TaxKernelBot\nmax-crawl-rate: 6/m\n", "", "| 10s | max-crawl-rate: 6/m |"},
		{"slowest wins", "User-agent: *\nCrawl-delay: 12\nmax-crawl-rate: 6/m\n", `"slow";q=2;w=60`, "| 30s | RateLimit-Policy: \"slow\";q=2;w=60 |"},
		{"faster than the policy", "User-agent: *\nmax-crawl-rate: 60/m\n", `"default";q=100;w=60`, "| 5s–8s | policy |"},
	} {
		st := state.New()
		if tt.robots != "" {
			st.PutRobots("https://www.example.gov", robotsTxt(tt.robots))
		}
		if tt.rateLimitPolicy != "" {
			st.PutHost("www.example.gov", state.Host{RateLimitPolicy: tt.rateLimitPolicy})
		}
		if got := row(st, "www.example.gov"); !strings.Contains(got, tt.want) {
			t.Errorf("%s: row %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// The pace is recorded in the report by Observe, so that the hosts page
// rendered from the committed coverage.json alone shows it too.
func TestPaceIsObservedIntoTheReport(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	st := state.New()
	st.PutRobots("https://www.example.gov", state.Robots{URL: "https://www.example.gov/robots.txt", FetchedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		HTTPStatus: 200, Outcome: state.RobotsParsed, Body: []byte("User-agent: *\nmax-crawl-rate: 6/m\n")})
	st.PutHost("law.example.gov", state.Host{RateLimitPolicy: `"slow";q=2;w=60`})
	now := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	rep := report.Build(set, st)
	none := func(string, string, string) (map[string]int, error) { return nil, nil }
	if err := public.Observe(rep, set, st, none, now); err != nil {
		t.Fatal(err)
	}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	files, err := public.Pages(set, back, now)
	if err != nil {
		t.Fatal(err)
	}
	var hosts string
	for _, f := range files {
		if f.Name == "hosts.md" {
			hosts = string(f.Data)
		}
	}
	for _, want := range []string{"| 10s | max-crawl-rate: 6/m |", "| 30s | RateLimit-Policy: \"slow\";q=2;w=60 |"} {
		if !strings.Contains(hosts, want) {
			t.Errorf("hosts.md rendered from the report lacks %q:\n%s", want, hosts)
		}
	}
}
