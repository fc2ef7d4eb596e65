package public_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
	"github.com/taxkernel/taxkernelbot/internal/gate"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func loadSet(t testing.TB, dir string) *manifest.Set {
	t.Helper()
	set, diags := manifest.Load(dir)
	if diags.HasErrors() {
		t.Fatalf("manifests %s: %v", dir, diags)
	}
	return set
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the rendering; if the change is meant, run go test ./internal/public -update\n--- got ---\n%s", path, got)
	}
}

func TestPolicyGolden(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	golden(t, "POLICY.golden.md", public.RulesOf(set).PolicyMarkdown())
}

// observed is what a gate does, measured with a fake clock.
type observed struct {
	delayMin, delayMax time.Duration
	cap, pause         int
	firstLo, firstHi   time.Duration
	longest            time.Duration
}

type fixedRand int64

func (r fixedRand) Int64N(n int64) int64 {
	if r < 0 {
		return n - 1
	}
	return 0
}

// measure drives a gate built exactly as the pipeline builds it and
// reports the spacing, cap, pause and backoff it enforces. Off-peak windows
// are left out here: they are not numbers, and the table shows them as
// written.
func measure(t *testing.T, rules gate.Rules) observed {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	newGate := func(r fixedRand) (*gate.Gate, *clock.Fake) {
		clk := clock.NewFake(start)
		cfg := rules.Config()
		cfg.Host.OffPeak = nil
		cfg.Clock, cfg.Rand = clk, r
		cfg.Spent = func(string) (int, error) { return 0, nil }
		cfg.Record = func(time.Time, gate.Request) error { return nil }
		return gate.New(cfg), clk
	}
	req := gate.Request{URL: "https://h/", Purpose: "document"}
	acquire := func(g *gate.Gate) (*gate.Permit, error) { return g.Acquire(ctx, req) }
	var o observed

	// Spacing: two requests answered at once; the second waits the drawn delay.
	for _, r := range []fixedRand{0, -1} {
		g, clk := newGate(r)
		p, err := acquire(g)
		if err != nil {
			t.Fatal(err)
		}
		p.Done(gate.Outcome{Status: 200})
		before := clk.Now()
		if p, err = acquire(g); err != nil {
			t.Fatal(err)
		}
		p.Done(gate.Outcome{Status: 200})
		if r == 0 {
			o.delayMin = clk.Now().Sub(before)
		} else {
			o.delayMax = clk.Now().Sub(before)
		}
	}

	// Cap: dispatches granted in one UTC day.
	g, _ := newGate(0)
	for {
		p, err := acquire(g)
		if errors.Is(err, gate.ErrCapReached) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p.Done(gate.Outcome{Status: 200})
		o.cap++
		if o.cap > 100000 {
			t.Fatal("no cap")
		}
	}

	// Pause: consecutive 403s until the host is paused.
	g, _ = newGate(0)
	for {
		p, err := acquire(g)
		if errors.Is(err, gate.ErrPaused) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p.Done(gate.Outcome{Status: 403})
		o.pause++
		if o.pause > 1000 {
			t.Fatal("never paused")
		}
	}

	// Backoff after the first failure, lowest and highest draw; then the
	// longest a run of failures can make us wait.
	for _, r := range []fixedRand{0, -1} {
		g, clk := newGate(r)
		p, _ := acquire(g)
		p.Done(gate.Outcome{Status: 503})
		before := clk.Now()
		p, err := acquire(g)
		if err != nil {
			t.Fatal(err)
		}
		if r == 0 {
			o.firstLo = clk.Now().Sub(before)
		} else {
			o.firstHi = clk.Now().Sub(before)
			for range 40 {
				p.Done(gate.Outcome{Status: 503})
				before = clk.Now()
				if p, err = acquire(g); err != nil {
					t.Fatal(err)
				}
			}
			o.longest = clk.Now().Sub(before)
		}
		p.Done(gate.Outcome{Status: 200})
	}
	return o
}

var (
	hostRow   = regexp.MustCompile("(?m)^\\| `([^`]+)` \\| (\\d+) \\| ([^|]+) \\| (\\d+) \\| ([^|]+) \\|")
	delayRow  = regexp.MustCompile(`(?m)^\| delay between two dispatches to one host \| ([^,|]+),`)
	capRow    = regexp.MustCompile(`(?m)^\| daily cap per host \| (\d+) requests`)
	pauseRow  = regexp.MustCompile(`(?m)^\| pause after repeated 403 \| (\d+) in a row`)
	backoffRw = regexp.MustCompile(`(?m)^\| backoff after [^|]+\| [^|]+: ([^ ]+) after the first \|`)
	longestRw = regexp.MustCompile(`(?m)^\| longest backoff \| ([^;]+);`)
)

func parseRange(t *testing.T, s string) (lo, hi time.Duration) {
	t.Helper()
	a, b, ok := strings.Cut(strings.TrimSpace(s), "–")
	if !ok {
		b = a
	}
	var err1, err2 error
	lo, err1 = time.ParseDuration(a)
	hi, err2 = time.ParseDuration(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("page value %q is not a duration range", s)
	}
	return lo, hi
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPolicyPageMatchesGate reads the numbers off the rendered page and
// checks each against what a gate built the pipeline's way does, for the
// test manifests and for the real ones.
func TestPolicyPageMatchesGate(t *testing.T) {
	for _, dir := range []string{"testdata/manifests", "../../manifests"} {
		t.Run(dir, func(t *testing.T) {
			set := loadSet(t, dir)
			page := string(public.RulesOf(set).PolicyMarkdown())

			rows := hostRow.FindAllStringSubmatch(page, -1)
			if len(rows) != len(set.Hosts) {
				t.Fatalf("page lists %d hosts, the manifests name %d", len(rows), len(set.Hosts))
			}
			for _, m := range rows {
				name := m[1]
				if _, ok := set.Hosts[name]; !ok {
					t.Errorf("page lists host %s, which no source names", name)
					continue
				}
				o := measure(t, gate.RulesFor(set.Policy, set.Host(name)))
				lo, hi := parseRange(t, m[3])
				if lo != o.delayMin || hi != o.delayMax {
					t.Errorf("%s: page says delay %s, gate spaces %s–%s", name, m[3], o.delayMin, o.delayMax)
				}
				if c := atoi(t, m[4]); c != o.cap {
					t.Errorf("%s: page says cap %d, gate grants %d", name, c, o.cap)
				}
				blo, bhi := parseRange(t, m[5])
				if blo != o.firstLo || bhi != o.firstHi {
					t.Errorf("%s: page says first backoff %s, gate waits %s–%s", name, m[5], o.firstLo, o.firstHi)
				}
				n := 0
				for _, s := range set.Sources {
					if s.Host == name {
						n++
					}
				}
				if got := atoi(t, m[2]); got != n {
					t.Errorf("%s: page says %d sources, manifests list %d", name, got, n)
				}
			}

			o := measure(t, gate.RulesFor(set.Policy, set.Host("unlisted.example.org")))
			need := func(re *regexp.Regexp) string {
				m := re.FindStringSubmatch(page)
				if m == nil {
					t.Fatalf("page has no line matching %s", re)
				}
				return m[1]
			}
			if lo, hi := parseRange(t, need(delayRow)); lo != o.delayMin || hi != o.delayMax {
				t.Errorf("page default delay %s–%s, gate %s–%s", lo, hi, o.delayMin, o.delayMax)
			}
			if c := atoi(t, need(capRow)); c != o.cap {
				t.Errorf("page default cap %d, gate %d", c, o.cap)
			}
			if n := atoi(t, need(pauseRow)); n != o.pause {
				t.Errorf("page pause after %d 403s, gate after %d", n, o.pause)
			}
			if lo, hi := parseRange(t, need(backoffRw)); lo != o.firstLo || hi != o.firstHi {
				t.Errorf("page first backoff %s–%s, gate %s–%s", lo, hi, o.firstLo, o.firstHi)
			}
			if l, _ := parseRange(t, need(longestRw)); l != o.longest {
				t.Errorf("page longest backoff %s, gate %s", l, o.longest)
			}
		})
	}
}

func TestHostsGolden(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	complete := report.CompleteWeeks(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), 2)
	if complete[0].Label != "2026-W47" || complete[1].Label != "2026-W48" || complete[1].From != "2026-11-23" || complete[1].To != "2026-11-29" {
		t.Fatalf("CompleteWeeks(Monday 2026-11-30, 2) = %+v", complete)
	}
	weeks := []public.Week{
		{Label: complete[0].Label, From: complete[0].From, To: complete[0].To, Requests: map[string]int{"www.example.gov": 14}},
		{Label: complete[1].Label, From: complete[1].From, To: complete[1].To, Requests: map[string]int{"www.example.gov": 21, "law.example.gov": 3}},
	}
	page := public.RulesOf(set).HostsMarkdown(public.Hosts{
		Robots: map[string]string{"www.example.gov": "read, obeyed; 1 source(s) disallowed", "law.example.gov": "read, obeyed"},
		Weeks:  weeks,
		Hints: map[string][]gate.Hint{
			"www.example.gov": {gate.CrawlDelayHint(4 * time.Second), {Source: gate.FromMaxCrawlRate, Gap: 6 * time.Second, Text: "10/m"}},
			"law.example.gov": {{Source: gate.FromRateLimitPolicy, Gap: time.Second, Text: `"default";q=100;w=100`}},
		},
	})
	golden(t, "hosts.golden.md", page)
}

// TestHostileRules: exclusion reasons, override permissions and robots
// states are contributor or server text: every table keeps its columns
// (a reason "a\|b" ended a cell when the backslash was not escaped), and
// nothing in them renders as a mention, link, image or HTML.
func TestHostileRules(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	r := public.RulesOf(set)
	robots := map[string]string{}
	for i, s := range escapetest.Hostile {
		r.Exclusions = append(r.Exclusions, policy.Exclusion{Host: "h" + strconv.Itoa(i) + ".example", Path: "/" + s, Reason: s})
	}
	for i := range r.Hosts {
		if r.Hosts[i].Host.Override != nil {
			o := *r.Hosts[i].Host.Override
			o.Permission = strings.Join(escapetest.Hostile, " ")
			r.Hosts[i].Host.Override = &o
		}
		robots[r.Hosts[i].Host.Name] = escapetest.Hostile[i%len(escapetest.Hostile)]
	}
	local := func(dest string) bool {
		return strings.HasPrefix(dest, "mailto:") || strings.HasPrefix(dest, "#") || dest == "POLICY.md"
	}
	for name, page := range map[string][]byte{"POLICY.md": r.PolicyMarkdown(), "hosts.md": r.HostsMarkdown(public.Hosts{Robots: robots})} {
		md := string(page)
		for _, tbl := range strings.Split(md, "\n\n") {
			if !strings.HasPrefix(tbl, "|") {
				continue
			}
			cells := escapetest.Cells(tbl)
			for i, n := range cells {
				if n != cells[0] {
					t.Errorf("%s: row %d of a table has %d cells, the header %d:\n%s", name, i, n, cells[0], tbl)
				}
			}
		}
		if name == "POLICY.md" {
			found := false
			for _, row := range escapetest.CellTexts(md) {
				if len(row) == 3 && row[2] == `a\|b` {
					found = true
				}
			}
			// Whatever the parser, a pipe after an even number of
			// backslashes ends the cell: the backslash is escaped too.
			if !found || !strings.Contains(md, ` | a\\\|b |`) {
				t.Errorf(`POLICY.md shows no exclusion reason "a\|b" as written, with its backslash escaped`)
			}
		}
		if live := escapetest.Live(md, escapetest.Options{Link: local}); len(live) > 0 {
			t.Errorf("%s has live Markdown: %q", name, live)
		}
		if c := escapetest.Controls(md); len(c) > 0 {
			t.Errorf("%s has control characters: %q", name, c)
		}
	}
}
