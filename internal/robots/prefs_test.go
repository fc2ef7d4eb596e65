package robots

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// draft-ietf-aipref-attach-05 section 3.4, figure 2 and table 1: the
// example robots.txt, read by ExampleBot and by any other crawler.
const attachExample = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
`

func TestPreferencesAttachExample(t *testing.T) {
	r := Parse([]byte(attachExample))
	for _, c := range []struct {
		agent, path string
		want        map[string]string // nil: no preferences (not crawlable)
	}{
		{agent, "/test", map[string]string{"train-ai": "n"}},
		{agent, "/never/test", nil},
		{agent, "/ai-ok/test", map[string]string{"train-ai": "y"}},
		{"ExampleBot", "/never/test", map[string]string{"train-ai": "y"}},
		{"ExampleBot", "/test", map[string]string{"train-ai": "y"}},
	} {
		p := usage.Combine(r.Preferences(c.agent, mustURL(t, siteRoot+c.path)))
		var got map[string]string
		if p != nil {
			got = p.Usage
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", c.agent, c.path, diff)
		}
	}
}

// attach-05 section 1.2: the robots.txt form of the header example.
func TestPreferencesAttachIntroExample(t *testing.T) {
	r := Parse([]byte("User-Agent: *\nAllow: /\nContent-Usage: train-ai=n\n"))
	got := r.Preferences(agent, mustURL(t, siteRoot+"/anything"))
	want := []usage.Statement{{Field: usage.ContentUsage, From: "robots.txt line 3", Value: "train-ai=n"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// attach-05 section 3.1: rules with identical paths and conflicting
// preferences all apply, and the vocabulary's combination makes the most
// restrictive win; a longer path still beats a shorter one.
func TestPreferencesSamePathMostRestrictive(t *testing.T) {
	body := "User-agent: *\nContent-Usage: /docs/ train-ai=y, search=y\nAllow: /\nContent-Usage: /docs/\ttrain-ai=n\nContent-Usage: search=n\n"
	r := Parse([]byte(body))
	p := usage.Combine(r.Preferences(agent, mustURL(t, siteRoot+"/docs/a")))
	if diff := cmp.Diff(map[string]string{"train-ai": "n", "search": "y"}, p.Usage); diff != "" {
		t.Errorf("/docs/a (-want +got):\n%s", diff)
	}
	if len(p.Statements) != 2 || p.Statements[0].Path != "/docs/" {
		t.Errorf("statements %+v, want the two /docs/ rules", p.Statements)
	}
	p = usage.Combine(r.Preferences(agent, mustURL(t, siteRoot+"/other")))
	if diff := cmp.Diff(map[string]string{"search": "n"}, p.Usage); diff != "" {
		t.Errorf("/other (-want +got):\n%s", diff)
	}
}

// Cloudflare's managed robots.txt line, and a path-scoped one, read beside
// Content-Usage; the group naming us shadows "*" as for Allow.
func TestPreferencesContentSignal(t *testing.T) {
	body := `User-Agent: *
Content-Signal: search=yes, ai-train=no
Allow: /

User-agent: TaxKernelBot
Content-Signal: search=yes, ai-train=no, ai-input=no
Content-Signal: /open/ ai-train=yes
Content-Usage: train-ai=n
Allow: /
`
	r := Parse([]byte(body))
	p := usage.Combine(r.Preferences(agent, mustURL(t, siteRoot+"/law")))
	if diff := cmp.Diff(map[string]string{"search": "yes", "ai-train": "no", "ai-input": "no"}, p.Signal); diff != "" {
		t.Errorf("Signal (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"train-ai": "n"}, p.Usage); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
	p = usage.Combine(r.Preferences(agent, mustURL(t, siteRoot+"/open/x")))
	if diff := cmp.Diff(map[string]string{"ai-train": "yes"}, p.Signal); diff != "" {
		t.Errorf("/open/x Signal (-want +got):\n%s", diff)
	}
	p = usage.Combine(r.Preferences("OtherBot", mustURL(t, siteRoot+"/law")))
	if diff := cmp.Diff(map[string]string{"search": "yes", "ai-train": "no"}, p.Signal); diff != "" {
		t.Errorf("OtherBot Signal (-want +got):\n%s", diff)
	}
	if got := AllowAll().Preferences(agent, mustURL(t, siteRoot+"/law")); got != nil {
		t.Errorf("no robots.txt: %v, want none", got)
	}
}

// draft-meunier-signature-agent-rep: "max-crawl-rate" with and without a
// unit, read per group as Crawl-delay is.
func TestMaxCrawlRate(t *testing.T) {
	for _, c := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"10/m", 6 * time.Second, true},
		{"10 / m", 6 * time.Second, true},
		{"1/s", time.Second, true},
		{"2", 500 * time.Millisecond, true},
		{"60/h", time.Minute, true},
		{"1/w", maxCrawlDelay, true},
		{"0/m", maxCrawlDelay, true},
		{"10/y", 0, false},
		{"-1/m", 0, false},
		{"1.5/m", 0, false},
		{"", 0, false},
		{"99999999999999999999999/s", 0, false},
	} {
		got, ok := ParseMaxCrawlRate(c.v)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseMaxCrawlRate(%q) = %s, %v; want %s, %v", c.v, got, ok, c.want, c.ok)
		}
	}
	body := "User-agent: *\nmax-crawl-rate: 100/m\n\nUser-agent: TaxKernelBot\nMax-Crawl-Rate: 10/m\nMax-crawl-rate: nonsense\nAllow: /\n"
	r := Parse([]byte(body))
	if d, text := r.MaxCrawlRate(fullUA); d != 6*time.Second || text != "10/m" {
		t.Errorf("ours: %s %q, want 6s \"10/m\"", d, text)
	}
	if d, _ := r.MaxCrawlRate("OtherBot"); d != 600*time.Millisecond {
		t.Errorf("*: %s, want 600ms", d)
	}
	if d, _ := AllowAll().MaxCrawlRate(agent); d != 0 {
		t.Errorf("no robots.txt: %s", d)
	}
}
