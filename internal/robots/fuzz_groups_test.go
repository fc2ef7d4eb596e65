package robots

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// crawlModel is an independent reading of Crawl-delay groups over canonical
// lines: a user-agent line after any other record starts a new group; the
// groups naming the agent apply if any, else the "*" groups; the longest
// delay of the applying groups wins.
func crawlModel(lines []string, agent string) time.Duration {
	type grp struct {
		agents []string
		delay  time.Duration
	}
	var gs []*grp
	afterRecord := true
	for _, l := range lines {
		key, val, _ := strings.Cut(l, ": ")
		switch key {
		case "User-agent":
			if afterRecord {
				gs = append(gs, &grp{})
				afterRecord = false
			}
			gs[len(gs)-1].agents = append(gs[len(gs)-1].agents, strings.ToLower(val))
		case "Crawl-delay":
			afterRecord = true
			if len(gs) > 0 {
				var secs int
				fmt.Sscanf(val, "%d", &secs)
				gs[len(gs)-1].delay = max(gs[len(gs)-1].delay, time.Duration(secs)*time.Second)
			}
		case "Allow", "Disallow", "Sitemap":
			afterRecord = true
		}
	}
	pick := func(name string) (time.Duration, bool) {
		var d time.Duration
		found := false
		for _, g := range gs {
			for _, a := range g.agents {
				if a == name {
					found = true
					d = max(d, g.delay)
				}
			}
		}
		return d, found
	}
	if d, ok := pick(strings.ToLower(agent)); ok {
		return d
	}
	d, _ := pick("*")
	return d
}

// FuzzCrawlDelayGroups builds robots.txt bodies from canonical lines picked
// by the fuzzer's bytes, blank lines and comments between them, and holds
// CrawlDelay to crawlModel for our agent and another.
func FuzzCrawlDelayGroups(f *testing.F) {
	f.Add([]byte{0, 3, 8, 1, 5})       // the case: * / delay / blank / us / Allow
	f.Add([]byte{2, 3, 1, 4, 6})       // other / delay / us / delay / Disallow
	f.Add([]byte{0, 1, 3, 7, 1, 4})    // * and us share a delay; Sitemap; us again
	f.Add([]byte{3, 0, 5, 3, 9, 1, 3}) // a delay before any agent; comments
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 200 {
			ops = ops[:200]
		}
		var lines []string
		var b strings.Builder
		for i, op := range ops {
			var l string
			switch op % 10 {
			case 0:
				l = "User-agent: *"
			case 1:
				l = "User-agent: TaxKernelBot"
			case 2:
				l = "User-agent: OtherBot"
			case 3, 4:
				l = fmt.Sprintf("Crawl-delay: %d", (int(op)+i)%7)
			case 5:
				l = "Allow: /"
			case 6:
				l = "Disallow: /private/"
			case 7:
				l = "Sitemap: https://tax.example/sitemap.xml"
			case 8:
				b.WriteString("\n") // blank lines do not end a group
				continue
			case 9:
				b.WriteString("# a comment\n")
				continue
			}
			lines = append(lines, l)
			b.WriteString(l + "\n")
		}
		r := Parse([]byte(b.String()))
		for _, agent := range []string{"TaxKernelBot", "OtherBot", "ThirdBot"} {
			if got, want := r.CrawlDelay(agent), crawlModel(lines, agent); got != want {
				t.Errorf("CrawlDelay(%s) = %v, the group reading says %v, for:\n%s", agent, got, want, b.String())
			}
		}
	})
}
