package robots

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	agent    = "TaxKernelBot"
	fullUA   = "TaxKernelBot/1.0 (+https://taxkernel.com/bot)"
	siteRoot = "https://tax.example"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// allowedCases also seed FuzzParse.
var allowedCases = []struct {
	name  string
	body  string
	agent string
	path  string // path and query, under siteRoot
	want  bool
}{
	{"our group allows what * disallows", "User-agent: *\nDisallow: /\n\nUser-agent: TaxKernelBot\nAllow: /rates\n", agent, "/rates/2026", true},
	{"* alone disallows it", "User-agent: *\nDisallow: /\n\nUser-agent: TaxKernelBot\nAllow: /rates\n", "OtherBot", "/rates/2026", false},
	{"our group disallows what * allows", "User-agent: *\nAllow: /\n\nUser-agent: TaxKernelBot\nDisallow: /tables/\n", agent, "/tables/2026", false},
	{"* alone allows it", "User-agent: *\nAllow: /\n\nUser-agent: TaxKernelBot\nDisallow: /tables/\n", "OtherBot", "/tables/2026", true},
	{"our group shadows * even where none of its rules match", "User-agent: *\nDisallow: /\n\nUser-agent: TaxKernelBot\nDisallow: /private/\n", agent, "/rates", true},
	{"our group with an empty Disallow shadows *", "User-agent: TaxKernelBot\nDisallow:\n\nUser-agent: *\nDisallow: /\n", agent, "/rates", true},
	{"agent line upper case", "User-agent: TAXKERNELBOT\nDisallow: /x\n", agent, "/x/y", false},
	{"agent line and key lower case", "user-agent: taxkernelbot\ndisallow: /x\n", agent, "/x/y", false},
	{"agent line with a version", "User-agent: TaxKernelBot/1.0\nDisallow: /x\n", agent, "/x/y", false},
	{"agent passed as the full User-Agent", "User-agent: taxkernelbot\nDisallow: /x\n", fullUA, "/x/y", false},
	{"a longer product token is someone else", "User-agent: TaxKernelBotNext\nDisallow: /\n", agent, "/x", true},
	{"one of several user-agent lines", "User-agent: Googlebot\nUser-agent: TaxKernelBot\nDisallow: /g/\n", agent, "/g/1", false},
	{"groups naming us merge", "User-agent: TaxKernelBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: TaxKernelBot\nDisallow: /b\n", agent, "/b/1", false},
	{"groups naming us merge, * still shadowed", "User-agent: TaxKernelBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: TaxKernelBot\nDisallow: /b\n", agent, "/c", true},
	{"a * with only a Crawl-delay joins the next group", "User-agent: *\nCrawl-delay: 5\n\nUser-agent: TaxKernelBot\nDisallow: /x\n", "OtherBot", "/x", false},
	{"'* text' is the global agent", "User-agent: * all robots\nDisallow: /\n", agent, "/x", false},
	{"tie goes to allow", "User-agent: *\nDisallow: /rates\nAllow: /rates\n", agent, "/rates", true},
	{"tie of different patterns goes to allow", "User-agent: *\nDisallow: /a*\nAllow: /*b\n", agent, "/ab", true},
	{"longer disallow beats shorter allow", "User-agent: *\nAllow: /\nDisallow: /private\n", agent, "/private/x", false},
	{"longer allow beats shorter disallow", "User-agent: *\nDisallow: /docs\nAllow: /docs/public\n", agent, "/docs/public/a", true},
	{"shorter disallow still applies elsewhere", "User-agent: *\nDisallow: /docs\nAllow: /docs/public\n", agent, "/docs/other", false},
	{"wildcard matches", "User-agent: *\nDisallow: /*.pdf\n", agent, "/a/b.pdf", false},
	{"wildcard does not match", "User-agent: *\nDisallow: /*.pdf\n", agent, "/a/b.html", true},
	{"$ anchors the end", "User-agent: *\nDisallow: /*.pdf$\n", agent, "/a.pdf", false},
	{"$ refuses a longer path", "User-agent: *\nDisallow: /*.pdf$\n", agent, "/a.pdf?x=1", true},
	{"query is matched", "User-agent: *\nDisallow: /*?print=\n", agent, "/rates?print=1", false},
	{"no query, no match", "User-agent: *\nDisallow: /*?print=\n", agent, "/rates", true},
	{"rules before any user-agent are ignored", "Disallow: /\nUser-agent: *\nAllow: /x\n", agent, "/y", true},
	{"/robots.txt is always allowed", "User-agent: *\nDisallow: /\n", agent, "/robots.txt", true},
	{"everything else is not", "User-agent: *\nDisallow: /\n", agent, "/robots.txt.bak", false},
	{"non-ASCII pattern meets escaped path", "User-agent: *\nDisallow: /café\n", agent, "/café/menu", false},
	{"lower-case escapes meet upper-case", "User-agent: *\nDisallow: /a%2Fb\n", agent, "/a%2fb", false},
	{"leading // stays part of the path", "User-agent: *\nDisallow: //private\n", agent, "//private/x", false},
	{"Allow of index.html allows its directory", "User-agent: *\nDisallow: /dir/\nAllow: /dir/index.html\n", agent, "/dir/", true},
	{"empty robots.txt", "", agent, "/x", true},
	{"CRLF line endings", "User-agent: *\r\nDisallow: /x\r\n", agent, "/x", false},
}

func TestAllowed(t *testing.T) {
	for _, tc := range allowedCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse([]byte(tc.body)).Allowed(tc.agent, mustURL(t, siteRoot+tc.path))
			if got != tc.want {
				t.Errorf("Allowed(%q, %q) = %v, want %v\nrobots.txt:\n%s", tc.agent, tc.path, got, tc.want, tc.body)
			}
		})
	}
}

// behaviour sums up Rules by what they do to a robots.txt of
// "Disallow: /x" for everyone.
func behaviour(t *testing.T, r *Rules) string {
	x, y := r.Allowed(agent, mustURL(t, siteRoot+"/x")), r.Allowed(agent, mustURL(t, siteRoot+"/y"))
	switch {
	case !x && y:
		return "parsed"
	case x && y:
		return "allow-all"
	case !x && !y:
		return "disallow-all"
	}
	return "inverted"
}

func TestConstructors(t *testing.T) {
	tests := []struct {
		name  string
		rules *Rules
		want  string
	}{
		{"AllowAll", AllowAll(), "allow-all"},
		{"DisallowAll", DisallowAll(), "disallow-all"},
		{"Parse", Parse([]byte("User-agent: *\nDisallow: /x\n")), "parsed"},
		{"Parse of nothing", Parse(nil), "allow-all"},
		{"zero Rules fail closed", &Rules{}, "disallow-all"},
		{"nil Rules fail closed", nil, "disallow-all"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := behaviour(t, tc.rules); got != tc.want {
				t.Errorf("behaves as %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRobotsTxtAlwaysAllowed(t *testing.T) {
	for name, r := range map[string]*Rules{
		"DisallowAll":   DisallowAll(),
		"Disallow: /":   Parse([]byte("User-agent: *\nDisallow: /\n")),
		"Disallow file": Parse([]byte("User-agent: TaxKernelBot\nDisallow: /robots.txt\n")),
	} {
		if !r.Allowed(agent, mustURL(t, siteRoot+"/robots.txt")) {
			t.Errorf("%s: /robots.txt disallowed", name)
		}
	}
}

func delayBody(v string) []byte {
	return []byte("User-agent: TaxKernelBot\nCrawl-delay: " + v + "\nDisallow: /private\n")
}

func TestCrawlDelay(t *testing.T) {
	const (
		oursAndStar  = "User-agent: *\nCrawl-delay: 5\nDisallow: /y\n\nUser-agent: TaxKernelBot\nCrawl-delay: 10\nDisallow: /x\n"
		afterRules   = "User-agent: *\nDisallow: /a\nCrawl-delay: 3\nUser-agent: TaxKernelBot\nDisallow: /b\n"
		manyBots     = "User-agent: SlowBot\nCrawl-delay: 60\nDisallow: /\n\nUser-agent: *\nCrawl-delay: 5\nDisallow: /x\n\nUser-agent: FastBot\nCrawl-delay: 1\n"
		starNoRule   = "User-agent: *\nCrawl-delay: 5\n\nUser-agent: TaxKernelBot\nDisallow: /x\n"
		severalLines = "User-agent: Googlebot\nUser-agent: TaxKernelBot\nUser-agent: Bingbot\nCrawl-delay: 8\nDisallow: /private\n"
	)
	tests := []struct {
		name  string
		rules *Rules
		agent string
		want  time.Duration
	}{
		{"our group", Parse([]byte(oursAndStar)), agent, 10 * time.Second},
		{"* for others", Parse([]byte(oursAndStar)), "OtherBot", 5 * time.Second},
		{"* when we have no group", Parse([]byte("User-agent: *\nCrawl-delay: 5\nDisallow: /x\n")), agent, 5 * time.Second},
		{"none set", Parse([]byte("User-agent: *\nDisallow: /x\n")), agent, 0},
		{"our group without a delay shadows *", Parse([]byte("User-agent: TaxKernelBot\nDisallow: /x\n\nUser-agent: *\nCrawl-delay: 30\nDisallow: /\n")), agent, 0},
		{"other bots' groups do not leak", Parse([]byte(manyBots)), agent, 5 * time.Second},
		{"several groups naming us: the longest", Parse([]byte("User-agent: TaxKernelBot\nCrawl-delay: 3\nDisallow: /a\n\nUser-agent: TaxKernelBot\nCrawl-delay: 7\n")), agent, 7 * time.Second},
		{"group of several user-agent lines", Parse([]byte(severalLines)), agent, 8 * time.Second},
		// For Crawl-delay, a user-agent line after any other record starts a
		// new group, as in the parsers that honour Crawl-delay; the matcher
		// still merges those lines for Allow and Disallow.
		{"a delay between user-agent lines belongs to the lines before it", Parse([]byte("User-agent: OtherBot\nCrawl-delay: 9\nUser-agent: TaxKernelBot\nDisallow: /x\n")), agent, 0},
		{"... and is OtherBot's", Parse([]byte("User-agent: OtherBot\nCrawl-delay: 9\nUser-agent: TaxKernelBot\nDisallow: /x\n")), "OtherBot", 9 * time.Second},
		{"a * with only a Crawl-delay keeps it", Parse([]byte(starNoRule)), agent, 0},
		{"... for the agents of *", Parse([]byte(starNoRule)), "OtherBot", 5 * time.Second},
		{"the issue's case: our later group, Allow only", Parse([]byte("User-agent: *\nCrawl-delay: 3\n\nUser-agent: TaxKernelBot\nAllow: /\n")), agent, 0},
		{"user-agent lines in a row share the delay that follows", Parse([]byte("User-agent: *\nUser-agent: TaxKernelBot\nCrawl-delay: 4\n")), agent, 4 * time.Second},
		{"a Sitemap line also ends the run of user-agent lines", Parse([]byte("User-agent: *\nSitemap: https://x.example/s.xml\nUser-agent: TaxKernelBot\nCrawl-delay: 2\n")), "OtherBot", 0},
		{"... so the delay after it is ours alone", Parse([]byte("User-agent: *\nSitemap: https://x.example/s.xml\nUser-agent: TaxKernelBot\nCrawl-delay: 2\n")), agent, 2 * time.Second},
		{"our own delay in a later group wins over *'s", Parse([]byte("User-agent: *\nCrawl-delay: 30\nUser-agent: TaxKernelBot\nCrawl-delay: 1\nDisallow: /x\n")), agent, time.Second},
		{"a delay after our rules is still ours", Parse([]byte("User-agent: TaxKernelBot\nDisallow: /x\nCrawl-delay: 6\n")), agent, 6 * time.Second},
		{"no group of ours and no *: none", Parse([]byte("User-agent: OtherBot\nCrawl-delay: 9\n")), agent, 0},
		{"a delay after rules stays with its group", Parse([]byte(afterRules)), agent, 0},
		{"... which is *'s", Parse([]byte(afterRules)), "OtherBot", 3 * time.Second},
		{"before any user-agent: ignored", Parse([]byte("Crawl-delay: 4\nUser-agent: *\nDisallow: /x\n")), agent, 0},
		{"key in capitals, comment", Parse([]byte("User-agent: *\nCRAWL-DELAY: 4 # please\n")), agent, 4 * time.Second},
		{"whitespace for a colon", Parse([]byte("User-agent: *\nCrawl-delay 6\n")), agent, 6 * time.Second},
		{"versioned agent line, full User-Agent", Parse([]byte("User-agent: taxkernelbot/2.0\nCrawl-delay: 2\n")), fullUA, 2 * time.Second},
		{"two delays in one group: the longest", Parse([]byte("User-agent: *\nCrawl-delay: 7\nCrawl-delay: 3\n")), agent, 7 * time.Second},
		{"garbage does not reset a valid delay", Parse([]byte("User-agent: *\nCrawl-delay: 4\nCrawl-delay: soon\n")), agent, 4 * time.Second},
		{"fraction", Parse(delayBody("2.5")), agent, 2500 * time.Millisecond},
		{"fraction only", Parse(delayBody(".5")), agent, 500 * time.Millisecond},
		{"trailing dot", Parse(delayBody("3.")), agent, 3 * time.Second},
		{"leading zeros", Parse(delayBody("000000000000000000000005")), agent, 5 * time.Second},
		{"zero", Parse(delayBody("0")), agent, 0},
		{"negative", Parse(delayBody("-3")), agent, 0},
		{"plus sign", Parse(delayBody("+3")), agent, 0},
		{"words", Parse(delayBody("soon")), agent, 0},
		{"unit", Parse(delayBody("10s")), agent, 0},
		{"exponent", Parse(delayBody("1e3")), agent, 0},
		{"hex", Parse(delayBody("0x10")), agent, 0},
		{"Inf", Parse(delayBody("Inf")), agent, 0},
		{"NaN", Parse(delayBody("NaN")), agent, 0},
		{"two dots", Parse(delayBody("1.2.3")), agent, 0},
		{"lone dot", Parse(delayBody(".")), agent, 0},
		{"empty", Parse(delayBody("")), agent, 0},
		{"just under a day", Parse(delayBody("86399.5")), agent, 24*time.Hour - 500*time.Millisecond},
		{"a day", Parse(delayBody("86400")), agent, 24 * time.Hour},
		{"absurd: clamped", Parse(delayBody("100000")), agent, 24 * time.Hour},
		{"overflowing: clamped", Parse(delayBody("99999999999999999999999")), agent, 24 * time.Hour},
		{"past float64: clamped", Parse(delayBody("1" + strings.Repeat("0", 400))), agent, 24 * time.Hour},
		{"AllowAll", AllowAll(), agent, 0},
		{"DisallowAll", DisallowAll(), agent, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rules.CrawlDelay(tc.agent); got != tc.want {
				t.Errorf("CrawlDelay(%q) = %v, want %v", tc.agent, got, tc.want)
			}
		})
	}
}

// padTo appends comment lines to b until it is n bytes long.
func padTo(b *strings.Builder, n int) {
	for n-b.Len() > 100 {
		b.WriteString("#" + strings.Repeat("x", 98) + "\n")
	}
	switch rem := n - b.Len(); {
	case rem >= 2:
		b.WriteString("#" + strings.Repeat("x", rem-2) + "\n")
	case rem == 1:
		b.WriteString("\n")
	}
}

func TestParseLargeBody(t *testing.T) {
	const head = "User-agent: *\nDisallow: /\n"
	type check struct {
		path string
		want bool
	}
	tests := []struct {
		name   string
		build  func(b *strings.Builder)
		checks []check
	}{
		{
			name: "rule at 490 KiB is honoured",
			build: func(b *strings.Builder) {
				padTo(b, 490<<10)
				b.WriteString("Allow: /deep/\n")
				padTo(b, MaxBody+1000)
			},
			checks: []check{{"/deep/x", true}, {"/x", false}},
		},
		{
			// Half-read, "Allow: /reports/2026" would be "Allow: /": all open.
			name: "line cut by the limit is dropped",
			build: func(b *strings.Builder) {
				padTo(b, MaxBody-len("Allow: /"))
				b.WriteString("Allow: /reports/2026\n")
				padTo(b, MaxBody+100)
			},
			checks: []check{{"/x", false}, {"/reports/2026", false}},
		},
		{
			name: "line ending exactly at the limit is kept",
			build: func(b *strings.Builder) {
				padTo(b, MaxBody-len("Allow: /edge"))
				b.WriteString("Allow: /edge\n")
				padTo(b, MaxBody+100)
			},
			checks: []check{{"/edge", true}, {"/x", false}},
		},
		{
			name: "body already cut at MaxBody by the fetcher",
			build: func(b *strings.Builder) {
				padTo(b, MaxBody-len("Allow: /"))
				b.WriteString("Allow: /reports/2026\n")
				s := b.String()[:MaxBody]
				b.Reset()
				b.WriteString(s)
			},
			checks: []check{{"/x", false}, {"/reports/2026", false}},
		},
		{
			name: "rule past the limit is ignored",
			build: func(b *strings.Builder) {
				padTo(b, MaxBody+10)
				b.WriteString("Allow: /beyond\n")
			},
			checks: []check{{"/beyond", false}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(head)
			tc.build(&b)
			if b.Len() < 500<<10 {
				t.Fatalf("body is %d bytes, want over 500 KiB", b.Len())
			}
			r := Parse([]byte(b.String()))
			var got, want []check
			for _, c := range tc.checks {
				want = append(want, c)
				got = append(got, check{c.path, r.Allowed(agent, mustURL(t, siteRoot+c.path))})
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(check{})); diff != "" {
				t.Errorf("Allowed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKeyURL(t *testing.T) {
	type scope struct{ Key, URL string }
	tests := []struct {
		in   string
		want scope
	}{
		{"HTTPS://WWW.Gov.UK/income-tax-rates?x=1#f", scope{"https://www.gov.uk", "https://www.gov.uk/robots.txt"}},
		{"http://www.gov.uk:80/a", scope{"http://www.gov.uk", "http://www.gov.uk/robots.txt"}},
		{"https://www.gov.uk:443/", scope{"https://www.gov.uk", "https://www.gov.uk/robots.txt"}},
		{"http://www.gov.uk:443/", scope{"http://www.gov.uk:443", "http://www.gov.uk:443/robots.txt"}},
		{"https://www.gov.uk:80/", scope{"https://www.gov.uk:80", "https://www.gov.uk:80/robots.txt"}},
		{"https://tax.example:8443/x", scope{"https://tax.example:8443", "https://tax.example:8443/robots.txt"}},
		{"https://user:pw@tax.example/x", scope{"https://tax.example", "https://tax.example/robots.txt"}},
		{"https://tax.example:/x", scope{"https://tax.example", "https://tax.example/robots.txt"}},
		{"http://[::1]:8080/x", scope{"http://[::1]:8080", "http://[::1]:8080/robots.txt"}},
		{"http://[2001:DB8::1]/x", scope{"http://[2001:db8::1]", "http://[2001:db8::1]/robots.txt"}},
		{"https://[::1]:443/", scope{"https://[::1]", "https://[::1]/robots.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			u := mustURL(t, tc.in)
			if diff := cmp.Diff(tc.want, scope{Key(u), URL(u)}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	const ours = "User-agent: *\nDisallow: /\n\nUser-agent: TaxKernelBot\nDisallow: /\nAllow: /public\n"
	tests := []struct {
		name  string
		rules *Rules
		agent string
		path  string
		want  string
	}{
		{"our allow", Parse([]byte(ours)), agent, "/public/x", `allowed: group "taxkernelbot" — longest match "Allow: /public" (line 6)`},
		{"our disallow", Parse([]byte(ours)), agent, "/private", `disallowed: group "taxkernelbot" — longest match "Disallow: /" (line 5)`},
		{"* for others", Parse([]byte(ours)), "OtherBot", "/public/x", `disallowed: group "*" — longest match "Disallow: /" (line 2)`},
		{"tie", Parse([]byte("User-agent: *\nDisallow: /rates\nAllow: /rates\n")), agent, "/rates", `allowed: group "*" — "Allow: /rates" (line 3) ties "Disallow: /rates" (line 2), ties go to allow`},
		{"no rule matches", Parse([]byte("User-agent: TaxKernelBot\nDisallow: /private\n")), agent, "/rates?year=2026", `allowed: group "taxkernelbot" — no rule matches "/rates?year=2026"`},
		{"no group", Parse([]byte("User-agent: OtherBot\nDisallow: /\n")), agent, "/x", `allowed: no group applies, everything allowed`},
		{"index.html", Parse([]byte("User-agent: *\nDisallow: /dir/\nAllow: /dir/index.html\n")), agent, "/dir/", `allowed: group "*" — longest match "Allow: /dir/index.html" (line 3)`},
		{"first of equal matches", Parse([]byte("User-agent: *\nDisallow: /a*\nDisallow: /*b\n")), agent, "/ab", `disallowed: group "*" — longest match "Disallow: /a*" (line 2)`},
		{"no robots.txt", AllowAll(), agent, "/x", `allowed: no robots.txt (4xx), everything allowed`},
		{"unavailable", DisallowAll(), agent, "/x", `disallowed: robots.txt unavailable (complete disallow)`},
		{"robots.txt itself", DisallowAll(), agent, "/robots.txt", `allowed: robots.txt itself is always allowed`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.rules.Explain(tc.agent, mustURL(t, siteRoot+tc.path))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParse holds Explain's own reading of a robots.txt (decide) to
// grobotstxt's verdict, on arbitrary bodies and hand-built URLs.
func FuzzParse(f *testing.F) {
	for _, tc := range allowedCases {
		u, err := url.Parse(siteRoot + tc.path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tc.body, tc.agent, u.Path, u.RawQuery)
	}
	f.Add("User-agent: *\nDisallow: /a b\n", agent, "/a b", "q=1#frag")
	f.Add("User-agent: *\nDisallow: /%zz\n", agent, "/%zz", "%zz")
	f.Add("User-agent: *\x85x\nDisallow: /\n", agent, "/x", "")
	f.Fuzz(func(t *testing.T, body, agent, path, query string) {
		r := Parse([]byte(body))
		u := &url.URL{Scheme: "https", Host: "tax.example", Path: path, RawQuery: query}
		allowed := r.Allowed(agent, u)
		if tgt := target(u); tgt != "/robots.txt" {
			if d := r.decide(productToken(agent), tgt); d.allowed != allowed {
				t.Errorf("grobotstxt says allowed=%v, decide says %v (target %q, %s)", allowed, d.allowed, tgt, d)
			}
		}
		verdict := "disallowed: "
		if allowed {
			verdict = "allowed: "
		}
		if got := r.Explain(agent, u); !strings.HasPrefix(got, verdict) {
			t.Errorf("Explain = %q, Allowed = %v", got, allowed)
		}
		if d := r.CrawlDelay(agent); d < 0 || d > maxCrawlDelay {
			t.Errorf("CrawlDelay = %v", d)
		}
	})
}

// benchBody is a robots.txt of about 100 KiB: many bots, long rule lists,
// our group near the end.
func benchBody() []byte {
	var b strings.Builder
	for g := 0; b.Len() < 100<<10; g++ {
		if g%10 == 0 {
			b.WriteString("User-agent: *\nCrawl-delay: 2\n")
		} else {
			fmt.Fprintf(&b, "User-agent: Bot%d\nUser-agent: Crawler%d\n", g, g)
		}
		for i := range 40 {
			fmt.Fprintf(&b, "Disallow: /section-%d/archive-%d/*.pdf$\nAllow: /section-%d/archive-%d/public/\n", g, i, g, i)
		}
		b.WriteString("\n")
	}
	b.WriteString("User-agent: TaxKernelBot\nCrawl-delay: 5\nDisallow: /private/\nAllow: /private/rates\n")
	return []byte(b.String())
}

func BenchmarkParseAllowed(b *testing.B) {
	body := benchBody()
	u := mustURL(b, siteRoot+"/section-3/archive-7/public/rates.html?year=2026")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if !Parse(body).Allowed(agent, u) {
			b.Fatal("disallowed")
		}
	}
}

// BenchmarkAllowed is the per-URL cost once parsed: grobotstxt re-reads the
// body on every call.
func BenchmarkAllowed(b *testing.B) {
	r := Parse(benchBody())
	u := mustURL(b, siteRoot+"/private/rates/2026")
	b.ReportAllocs()
	for b.Loop() {
		if !r.Allowed(agent, u) {
			b.Fatal("disallowed")
		}
	}
}
