package public_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// bytesBase is where the tests' stores serve bytes: a release asset
// named by the hash, as blobs.Releases names them.
const bytesBase = "https://github.com/taxkernel/taxkernelbot/releases/download/blobs-2026-11/"

func testBytesURL(sum string) string { return bytesBase + sum }

// siteExample is the record the site tests render: the feeds' example
// (xa-rates changed on 2026-11-03 and went back on 2026-11-05), xa-act
// with a legal identifier and an edition, the publisher's usage
// preferences, and a week of requests to www.example.gov.
func siteExample(t testing.TB) (public.SiteInput, public.Rules) {
	t.Helper()
	set := loadSet(t, "testdata/manifests")
	for i := range set.Sources {
		if set.Sources[i].ID == "xa-act" {
			set.Sources[i].Legal = &manifest.LegalID{Scheme: "xa-lex", ID: "Act 2026 No. 7"}
			set.Sources[i].Edition = &manifest.Edition{Type: "as-enacted"}
		}
	}
	set.Manifests[0].Sources = slices.Clone(set.Sources)
	ix, texts := feedExample()
	st := state.New()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, src := range set.Sources {
		s := st.Source(src.ID)
		s.SetStatus(state.Fresh, now)
		if hist := ix.History(src.ID); len(hist) > 0 {
			s.SHA256 = hist[len(hist)-1].Entry.SHA256
		}
		st.PutSource(src.ID, s)
	}
	rep := report.Build(set, st).AddUsage(func(id, sum string) *usage.Prefs {
		if id != "xa-rates" {
			return nil
		}
		return usage.Combine([]usage.Statement{{Field: usage.ContentUsage, From: "header", Value: "train-ai=n, search=y"}})
	})
	// Four weeks to 2026-W47, requests on a few days of the last two.
	counts := map[string]map[string]int{"www.example.gov": {"2026-11-10": 4, "2026-11-11": 9, "2026-11-17": 2, "2026-11-22": 12}}
	err := public.Observe(rep, set, st, func(host, since, until string) (map[string]int, error) { return counts[host], nil }, time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	rules := public.RulesOf(set)
	in := public.SiteInput{
		Feed: public.FeedInput{Set: set, Index: ix, Text: func(sum, _ string) (string, bool) {
			s, ok := texts[sum]
			return s, ok
		}},
		Report:   rep,
		BytesURL: testBytesURL,
	}
	return in, rules
}

func siteFiles(t testing.TB, in public.SiteInput, rules public.Rules) map[string][]byte {
	t.Helper()
	files, err := rules.Site(in)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		if _, dup := out[f.Name]; dup {
			t.Fatalf("%s rendered twice", f.Name)
		}
		out[f.Name] = f.Data
	}
	return out
}

// TestSitePages: each page type says what the issue asks of it.
func TestSitePages(t *testing.T) {
	in, rules := siteExample(t)
	files := siteFiles(t, in, rules)
	page := func(name string) string {
		t.Helper()
		data, ok := files[name]
		if !ok {
			t.Fatalf("no %s among the files", name)
		}
		return string(data)
	}
	rates := page(public.SourcePage("xa-rates"))
	a, b := string(sumOf([]byte("a"))), string(sumOf([]byte("b")))
	for _, want := range []string{
		"<h1>Rates | current year</h1>",
		"<dt>Kind</dt><dd>rates-page</dd>",
		`<a href="../jurisdictions/xa.html">xa</a>`,
		"<dd>fresh since 2026-11-20</dd>",
		// The timeline: the first bytes, returned to; the second replaced.
		"<tr><td>2026-11-01</td><td>2026-11-05</td><td>now: fresh since 2026-11-20</td><td><a href=\"" + bytesBase + a + "\"><code>" + sumOf([]byte("a")).Short() + "</code></a></td>",
		"<tr><td>2026-11-03</td><td></td><td>2026-11-05</td><td><a href=\"" + bytesBase + b + "\">",
		"<code>taxkernelbot cite xa-rates --at 2026-11-03</code>",
		"<td>line 2</td><td>£37,700</td><td>£37,500</td>",
		// Each change: figures first, then the diff, with its document.
		"<h3>2026-11-05: back to an earlier version</h3>",
		"<h3>2026-11-03: changed</h3>",
		`<span class="del">- 20% up to £37,700</span>`,
		`<span class="ins">+ 20% up to £37,500</span>`,
		`&lt;script&gt;alert(1)&lt;/script&gt;`,
		`href="../../changes/xa-rates/2026-11-03_`,
		// Usage preferences, and the ways to follow it.
		"<code>Content-Usage train-ai=n</code>", "<code>Content-Usage search=y</code>", "Content-Usage (header)",
		`href="xa-rates.wlnk">Memento TimeMap</a>`,
		`<link rel="timemap" type="application/link-format" href="xa-rates.wlnk">`,
		`href="../../feeds/sources/xa-rates.atom"`,
	} {
		if !strings.Contains(rates, want) {
			t.Errorf("the xa-rates page lacks %q", want)
		}
	}
	if strings.Contains(rates, "<script>") {
		t.Error("the xa-rates page carries the text's <script> unescaped")
	}
	if i, k := strings.Index(rates, "Figures that changed"), strings.Index(rates, `class="diff"`); i < 0 || k < i {
		t.Error("the figures are not shown before the text diff")
	}
	act := page(public.SourcePage("xa-act"))
	for _, want := range []string{"<dt>Legal identifier</dt><dd>Act 2026 No. 7 (xa-lex)</dd>", "<dt>Edition</dt><dd>as-enacted</dd>", "The publisher stated none", "No change seen yet."} {
		if !strings.Contains(act, want) {
			t.Errorf("the xa-act page lacks %q", want)
		}
	}
	xa := page(public.JurisdictionPage("xa"))
	for _, want := range []string{"<h1>Example A</h1>", "2026-11-05: <a href=\"../sources/xa-rates.html\">Rates | current year</a> — back to an earlier version", "2026-11-02: <a href=\"../sources/xa-act.html\">The Act</a> — first copy", "<td>Act 2026 No. 7</td>"} {
		if !strings.Contains(xa, want) {
			t.Errorf("the xa page lacks %q", want)
		}
	}
	host := page(public.HostPage("www.example.gov"))
	for _, want := range []string{
		"Requests to www.example.gov per day, 2026-10-26 to 2026-11-22",
		"27 requests in all; at most 12 on one day.",
		`<tr><td>2026-11-11</td><td class="n">9</td></tr>`,
		"<dd>5s–8s</dd>", "our policy's delay", "<dd>120 requests a day</dd>", "Mon-Fri 20:00-07:00",
		"mailto:", `<a href="../sources/xa-tables.html">Tables</a>`,
	} {
		if !strings.Contains(host, want) {
			t.Errorf("the www.example.gov page lacks %q", want)
		}
	}
	if n := strings.Count(host, "<rect "); n != 28 {
		t.Errorf("the chart has %d bars, want 28 (four weeks of days)", n)
	}
	if !strings.Contains(page(public.HostPage("other.example.gov:8443")), "No request counted") {
		t.Error("a host with no request counted draws a chart")
	}
	index := page(public.SiteDir + "/index.html")
	for _, want := range []string{`<div id="search" role="search" hidden>`, `<a href="jurisdictions/xa.html">Example A</a> (4)`, `<a href="hosts/other.example.gov_8443.html">`} {
		if !strings.Contains(index, want) {
			t.Errorf("the index lacks %q", want)
		}
	}
	if !strings.Contains(page(public.SiteDir+"/search.json"), `["xa-act","The Act","Act 2026 No. 7","xa"]`) {
		t.Errorf("search.json lacks xa-act: %s", files[public.SiteDir+"/search.json"])
	}
}

// TestSiteLinksResolve: every relative link and resource of every page
// names a file the site or the reports directory holds (the feeds and
// change documents beside it), so nothing on it leads nowhere.
func TestSiteLinksResolve(t *testing.T) {
	in, rules := siteExample(t)
	files := siteFiles(t, in, rules)
	feeds, err := rules.Feeds(in.Feed)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{"index.html": true}
	for name := range files {
		held[name] = true
	}
	for _, f := range feeds {
		held[f.Name] = true
	}
	ref := regexp.MustCompile(`(?:href|src)="([^"#:]+)(?:#[^"]*)?"`)
	for name, data := range files {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		for _, m := range ref.FindAllStringSubmatch(string(data), -1) {
			target := filepath.ToSlash(filepath.Join(filepath.Dir(name), m[1]))
			if !held[target] {
				t.Errorf("%s links %s (%s), which the site does not hold", name, m[1], target)
			}
		}
	}
}

// TestSiteQuietAndIncremental: the same record renders the same bytes; a
// build given the last one's inputs renders no page again, and a change
// to one source renders only that source's page, its TimeMap and its
// jurisdiction's page, and writes only those.
func TestSiteQuietAndIncremental(t *testing.T) {
	in, rules := siteExample(t)
	first, err := rules.Site(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := public.Write(dir, first...); err != nil {
		t.Fatal(err)
	}
	again, err := rules.Site(in)
	if err != nil {
		t.Fatal(err)
	}
	wrote, err := public.Write(dir, again...)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != 0 {
		t.Errorf("a quiet build wrote %v", wrote)
	}
	prior := readInputs(t, dir)
	in.Prior = prior
	quiet, err := rules.Site(in)
	if err != nil {
		t.Fatal(err)
	}
	if names := pageNames(quiet); len(names) != 0 {
		t.Errorf("a build with the last one's inputs rendered %v again", names)
	}

	// xa-act changes on 2026-11-21.
	in.Feed.Index.Add("xa-act", store.Entry{SHA256: sumOf([]byte("act2")), Size: 4, FinalURL: "https://law.example.gov/act", FirstSeen: "2026-11-21"}, sumOf([]byte("act")))
	changed, err := rules.Site(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{public.JurisdictionPage("xa"), public.SourcePage("xa-act"), public.TimeMapOf("xa-act")}
	slices.Sort(want)
	if got := pageNames(changed); !slices.Equal(got, want) {
		t.Errorf("after xa-act changed the build rendered %v, want %v", got, want)
	}
	wrote, err = public.Write(dir, changed...)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(wrote)
	if wantWrote := slices.Sorted(slices.Values(append(slices.Clone(want), public.SiteInputs))); !slices.Equal(wrote, wantWrote) {
		t.Errorf("after xa-act changed the build wrote %v", wrote)
	}
	// And what it wrote is what a full build renders.
	in.Prior = nil
	for name, data := range siteFiles(t, in, rules) {
		held, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(held, data) {
			t.Errorf("%s on disk differs from a full build's (%v)", name, err)
		}
	}
}

// pageNames are the sorted names of the pages and TimeMaps among files:
// the style sheet, the script and the inputs are returned by every build
// (and written only when they change).
func pageNames(files []public.File) []string {
	var names []string
	for _, f := range files {
		switch f.Name {
		case public.SiteDir + "/site.css", public.SiteDir + "/search.js", public.SiteInputs:
			continue
		}
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

func readInputs(t *testing.T, dir string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, public.SiteInputs))
	if err != nil {
		t.Fatal(err)
	}
	prior, err := public.ParseSiteInputs(data)
	if err != nil {
		t.Fatal(err)
	}
	return prior
}

func TestParseSiteInputs(t *testing.T) {
	if _, err := public.ParseSiteInputs([]byte("{")); err == nil || !strings.Contains(err.Error(), public.SiteInputs) {
		t.Errorf("a broken %s: %v", public.SiteInputs, err)
	}
}

// pageBudget is the most bytes each page type may weigh, its HTML with
// the style sheet and script it loads (docs/site.md states them).
var pageBudget = map[string]int{
	"source":       256 << 10,
	"jurisdiction": 256 << 10,
	"host":         32 << 10,
	"index":        64 << 10,
}

// TestSitePageWeight holds each page type under its budget, on the
// example record and with a source of 10 years of weekly changes, each
// rewriting a long text: the page shows the newest changes in full and
// their diffs cut, the rest are in the change documents.
func TestSitePageWeight(t *testing.T) {
	in, rules := siteExample(t)
	texts := map[string]string{}
	prev := store.Sum("")
	day := time.Date(2016, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 520 {
		var text strings.Builder
		for line := range 400 {
			fmt.Fprintf(&text, "Row %d: rate %d.%d%% on income above £%d,000 (version %d)\n", line, line%40, i%10, line*3, i)
		}
		sum := sumOf([]byte(text.String()))
		texts[string(sum)] = text.String()
		in.Feed.Index.Add("xa-tables", store.Entry{SHA256: sum, Size: int64(text.Len()), ContentType: "text/plain", FinalURL: "https://www.example.gov/tables", FirstSeen: day.Format(time.DateOnly)}, prev)
		prev = sum
		day = day.AddDate(0, 0, 7)
	}
	in.Feed.Text = func(sum, _ string) (string, bool) { s, ok := texts[sum]; return s, ok }
	files := siteFiles(t, in, rules)
	assets := len(files[public.SiteDir+"/site.css"])
	for name, typ := range map[string]string{
		public.SourcePage("xa-tables"):     "source",
		public.SourcePage("xa-rates"):      "source",
		public.JurisdictionPage("xa"):      "jurisdiction",
		public.HostPage("www.example.gov"): "host",
		public.SiteDir + "/index.html":     "index",
	} {
		weight := len(files[name]) + assets
		if typ == "index" {
			weight += len(files[public.SiteDir+"/search.js"])
		}
		t.Logf("%s (%s): %d bytes with its style sheet, budget %d", name, typ, weight, pageBudget[typ])
		if weight > pageBudget[typ] {
			t.Errorf("%s weighs %d bytes, over the %s page's budget of %d", name, weight, typ, pageBudget[typ])
		}
	}

	// The largest jurisdiction and index of the decade simulation: 1,250
	// documents in one jurisdiction, 500 hosts.
	wide := newRecord(t, 1250, 500, []string{"xx"}, 1)
	files = siteFiles(t, wide.input(), public.RulesOf(wide.set))
	for name, typ := range map[string]string{public.JurisdictionPage("xx"): "jurisdiction", public.SiteDir + "/index.html": "index"} {
		weight := len(files[name]) + assets
		if typ == "index" {
			weight += len(files[public.SiteDir+"/search.js"])
		}
		t.Logf("%s (%s) of 1,250 documents on 500 hosts: %d bytes with its style sheet, budget %d", name, typ, weight, pageBudget[typ])
		if weight > pageBudget[typ] {
			t.Errorf("%s of 1,250 documents weighs %d bytes, over the %s page's budget of %d", name, weight, typ, pageBudget[typ])
		}
	}
}
