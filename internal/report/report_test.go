package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

var update = flag.Bool("update", false, "rewrite golden files")

var checked = time.Date(2026, 11, 29, 6, 12, 0, 0, time.UTC)

const (
	shaA = "3f2a9c1e0b7d4a5f6e8c9b0a1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6"
	shaB = "b7d4a5f6e8c9b0a1d2e3f4051627384953f2a9c1e0a6b7c8d9e0f1a2b3c4d5e6"
)

func src(jur, id, url string, kind manifest.Kind, title string) manifest.Source {
	return manifest.Source{Jurisdiction: jur, ID: id, URL: url, Kind: kind, Title: title}
}

// fixture is two jurisdictions with a source in every status, a
// robots_override, a same-host redirect, encodes and gaps. Sources are
// deliberately out of order.
func fixture() (*manifest.Set, *state.State) {
	rates := src("uk", "uk-income-tax-rates", "https://www.gov.uk/income-tax-rates", manifest.RatesPage, "Income Tax rates and Personal Allowances")
	rates.Encodes = []string{"uk.income-tax.bands", "uk.income-tax.allowance"}
	rates.Gaps = []string{"Scottish rates not encoded yet", "Welsh rates not encoded yet"}
	ni := src("uk", "uk-ni-rates", "https://www.gov.uk/national-insurance-rates-letters", manifest.RatesPage, "National Insurance rates and categories")
	ni.Encodes = []string{"uk.ni.class1"}
	wh := src("nz", "nz-paye-tables", "https://www.ird.govt.nz/paye/tables", manifest.WithholdingSchedule, "PAYE deduction tables")
	wh.Gaps = []string{"Secondary tax codes not encoded"}
	set := &manifest.Set{Sources: []manifest.Source{
		rates, ni, wh,
		src("uk", "uk-vat-rates", "http://www.gov.uk/vat-rates", manifest.RatesPage, "VAT rates"),
		src("uk", "uk-paye-tables", "https://www.hmrc.example.uk/paye/tables", manifest.TaxTable, "PAYE tables"),
		src("uk", "uk-finance-act-2026", "https://www.legislation.gov.uk/ukpga/2026/1", manifest.Legislation, "Finance Act 2026"),
		src("uk", "uk-gazette-4411", "https://www.thegazette.co.uk/notice/4411", manifest.Gazette, "Notice 4411"),
		src("uk", "uk-stamp-duty", "https://www.gov.uk/stamp-duty-land-tax", manifest.RatesPage, "Stamp Duty Land Tax"),
		src("nz", "nz-gst-rates", "https://www.example.govt.nz/gst", manifest.RatesPage, "GST rates"),
		src("nz", "nz-income-tax-rates", "https://www.ird.govt.nz/income-tax/rates", manifest.RatesPage, "Tax rates for individuals"),
		src("nz", "nz-kiwisaver", "https://www.ird.govt.nz/kiwisaver/rates", manifest.RatesPage, "KiwiSaver contribution rates"),
		src("nz", "nz-ita-2007", "https://www.legislation.govt.nz/act/public/2007/0097", manifest.Legislation, "Income Tax Act 2007"),
		src("nz", "nz-gazette", "https://gazette.govt.nz/notice/2026-go1", manifest.Gazette, "Gazette notice 2026-go1"),
		src("uk", "uk-cgt-rates", "https://www.gov.ku/capital-gains-tax/rates", manifest.RatesPage, "Capital Gains Tax rates"),
		src("uk", "uk-iht-rates", "https://www.gov.ku/inheritance-tax", manifest.RatesPage, "Inheritance Tax"),
	}}

	st := state.New()
	put := func(id string, s state.Source) {
		s.LastCheck = checked
		st.PutSource(id, s)
	}
	put("uk-income-tax-rates", state.Source{Status: state.Fresh, Since: "2026-11-02", LastGood: checked, HTTPStatus: 200, SHA256: shaA, Size: 48213, ContentType: "text/html; charset=utf-8", ETag: `"abc"`})
	put("uk-ni-rates", state.Source{Status: state.Failing, Since: "2026-11-28", HTTPStatus: 503, SHA256: shaB, Size: 30211, ContentType: "text/html", Detail: "HTTP 503 Service Unavailable; older bytes held"})
	put("uk-vat-rates", state.Source{Status: state.Fresh, Since: "2026-10-01", HTTPStatus: 200, SHA256: shaB, Size: 1024, ContentType: "text/html", FinalURL: "https://www.gov.uk/guidance/rates-of-vat-on-different-goods-and-services", Noisy: &state.Noisy{Since: "2026-11-29"}})
	put("uk-paye-tables", state.Source{Status: state.Fresh, Since: "2026-10-05", HTTPStatus: 304, SHA256: shaA, Size: 220400, ContentType: "application/pdf", Detail: `fetched under robots_override: permission "email from the webmaster, 2026-10-01, ref 4411"`})
	put("uk-gazette-4411", state.Source{Status: state.Gone, Since: "2026-11-20", HTTPStatus: 410, Detail: "HTTP 410 Gone"})
	put("uk-stamp-duty", state.Source{Status: state.BlockedRobots, Since: "2026-09-30", Detail: "robots.txt: Disallow: /stamp-duty"})
	put("nz-paye-tables", state.Source{Status: state.RobotsUnavailable, Since: "2026-11-29", Detail: "robots.txt: HTTP 503"})
	unreached := "host www.gov.ku could not be reached: name does not resolve (www.gov.ku: no such host); check the host name in the manifest"
	put("uk-cgt-rates", state.Source{Status: state.Unreachable, Since: "2026-11-30", Detail: unreached})
	put("uk-iht-rates", state.Source{Status: state.Unreachable, Since: "2026-11-30", Detail: unreached})
	put("nz-gst-rates", state.Source{Status: state.Excluded, Since: "2026-11-01", Detail: "policy exclude: owner request 2026-11-01"})
	put("nz-income-tax-rates", state.Source{Status: state.Paused, Since: "2026-11-29", HTTPStatus: 403, Detail: "host paused after 3 consecutive 403s"})
	put("nz-kiwisaver", state.Source{Status: state.Moved, Since: "2026-11-15", HTTPStatus: 301, FinalURL: "https://www.kiwisaver.govt.nz/rates", Detail: "redirect to another host, not in a manifest: https://www.kiwisaver.govt.nz/rates"})
	put("nz-ita-2007", state.Source{Status: state.TooLarge, Since: "2026-11-10", HTTPStatus: 200, Detail: "body over max_body (50 MiB)"})
	put("nz-gazette", state.Source{Status: state.Fresh, Since: "2026-06-01", HTTPStatus: 200, SHA256: shaB, Size: 5120, ContentType: "text/html", FinalURL: "https://gazette.govt.nz/notice/2026-go1",
		Noisy: &state.Noisy{Since: "2026-11-27", Drop: []string{"#banner", `meta[name="csrf-token"]`}, Ignore: []string{`^Page generated at \d+:\d+$`}, Matched: true}})
	return set, st
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got), run `go test -update` if intended:\n%s", path, diff)
	}
}

func TestGolden(t *testing.T) {
	r := Build(fixture())
	if got := len(r.Sources); got != 15 {
		t.Fatalf("Build made %d entries, want 15", got)
	}
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "coverage.golden.json", js)
	md := r.Markdown()
	golden(t, "coverage.golden.md", md)
	checkTables(t, string(md))
	// The override must be public wherever the source is (SPEC §6).
	if !strings.Contains(string(md), `robots\_override: permission "email from the webmaster, 2026-10-01, ref 4411"`) {
		t.Error("robots_override permission missing from the Markdown")
	}
}

// checkTables fails when a table row has more or fewer cells than its
// header, which is what an unescaped '|' or newline in a cell does.
func checkTables(t *testing.T, md string) {
	t.Helper()
	want := -1
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		n := 0
		for j := range len(line) {
			if line[j] == '|' && !escaped(line, j) {
				n++
			}
		}
		if want < 0 {
			want = n
		} else if n != want {
			t.Errorf("line %d has %d cell separators, its header %d: %q", i+1, n, want, line)
		}
	}
}

// escaped reports whether s[i] is preceded by an odd number of backslashes.
func escaped(s string, i int) bool {
	n := 0
	for i--; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func TestBuildTwiceIsByteIdentical(t *testing.T) {
	render := func() ([]byte, []byte) {
		r := Build(fixture())
		js, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		return js, r.Markdown()
	}
	js1, md1 := render()
	for range 20 { // map order differs from run to run; give it chances
		js2, md2 := render()
		if string(js1) != string(js2) || string(md1) != string(md2) {
			t.Fatal("two builds of the same input differ")
		}
	}
}

func TestOnlyLastCheckChangedIsQuiet(t *testing.T) {
	set, st := fixture()
	before := Build(set, st)
	for _, s := range set.Sources {
		v := st.Source(s.ID)
		v.LastCheck = v.LastCheck.Add(25 * time.Hour)
		v.LastGood = checked.Add(25 * time.Hour)
		v.ETag, v.LastModified = `"new"`, "Mon, 30 Nov 2026 06:00:00 GMT"
		st.PutSource(s.ID, v)
	}
	after := Build(set, st)
	js1, _ := before.JSON()
	js2, _ := after.JSON()
	if diff := cmp.Diff(string(js1), string(js2)); diff != "" {
		t.Errorf("JSON changed on a quiet re-run (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(string(before.Markdown()), string(after.Markdown())); diff != "" {
		t.Errorf("Markdown changed on a quiet re-run (-before +after):\n%s", diff)
	}
	if got := Diff(before, after); len(got) != 0 {
		t.Errorf("Diff of a quiet re-run = %v, want none", got)
	}
}

func TestNoStateIsPendingWithoutSince(t *testing.T) {
	set := &manifest.Set{Sources: []manifest.Source{src("uk", "uk-a", "https://x.example/a", manifest.RatesPage, "A")}}
	r := Build(set, state.New())
	want := []Entry{{Jurisdiction: "uk", ID: "uk-a", URL: "https://x.example/a", Kind: "rates-page", Title: "A", Status: state.Pending}}
	if diff := cmp.Diff(want, r.Sources); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	js, _ := r.JSON()
	if strings.Contains(string(js), "since") {
		t.Errorf("JSON of a never-checked source has a since:\n%s", js)
	}
	if md := string(r.Markdown()); !strings.Contains(md, "| `uk-a` | rates-page | pending |  |  |  | [A](https://x.example/a) |") {
		t.Errorf("Markdown row of a pending source is not blank past status:\n%s", md)
	}

	// A zero state record, whoever wrote it, means nothing was learnt.
	st := state.New()
	st.PutSource("uk-a", state.Source{})
	if diff := cmp.Diff(want, Build(set, st).Sources); diff != "" {
		t.Errorf("entries for a zero state record (-want +got):\n%s", diff)
	}
}

func TestBuildSortsAndLeavesSetAlone(t *testing.T) {
	set := &manifest.Set{Sources: []manifest.Source{
		src("uk", "uk-b", "https://x.example/b", manifest.RatesPage, "B"),
		src("nz", "nz-z", "https://x.example/z", manifest.RatesPage, "Z"),
		src("uk", "uk-a", "https://x.example/a", manifest.RatesPage, "A"),
	}}
	r := Build(set, state.New())
	var got []string
	for _, e := range r.Sources {
		got = append(got, e.ID)
	}
	if diff := cmp.Diff([]string{"nz-z", "uk-a", "uk-b"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if set.Sources[0].ID != "uk-b" {
		t.Error("Build reordered the shared set.Sources")
	}
}

func TestFinalURLOnlyWhenItDiffers(t *testing.T) {
	set := &manifest.Set{Sources: []manifest.Source{
		src("uk", "uk-a", "https://x.example/a", manifest.RatesPage, "A"),
		src("uk", "uk-b", "https://x.example/b", manifest.RatesPage, "B"),
	}}
	st := state.New()
	st.PutSource("uk-a", state.Source{Status: state.Fresh, Since: "2026-11-01", FinalURL: "https://x.example/a"})
	st.PutSource("uk-b", state.Source{Status: state.Fresh, Since: "2026-11-01", FinalURL: "https://x.example/b2"})
	r := Build(set, st)
	if got := r.Sources[0].FinalURL; got != "" {
		t.Errorf("final_url equal to url kept: %q", got)
	}
	if got := r.Sources[1].FinalURL; got != "https://x.example/b2" {
		t.Errorf("final_url = %q, want the redirect target", got)
	}
	md := string(r.Markdown())
	if !strings.Contains(md, "update the manifest to `https://x.example/b2`") {
		t.Errorf("no suggestion to update the manifest:\n%s", md)
	}
	if strings.Contains(md, "`uk-a`](https://x.example/a) (uk): redirected") {
		t.Errorf("a source that was not redirected is listed as redirected:\n%s", md)
	}
}

func TestEmptyReport(t *testing.T) {
	for _, r := range []*Report{{}, Build(&manifest.Set{}, state.New())} {
		js, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(js), "{\n  \"sources\": []\n}\n"; got != want {
			t.Errorf("JSON = %q, want %q", got, want)
		}
		want := "# Coverage\n\n0 sources.\n\n## Summary\n\nNone.\n\n## Gaps and failures\n\nNone.\n\n## Sources\n\nNone.\n"
		if diff := cmp.Diff(want, string(r.Markdown())); diff != "" {
			t.Errorf("Markdown (-want +got):\n%s", diff)
		}
	}
}

func TestTotalsInFixedOrderWithoutZeros(t *testing.T) {
	// a-… sorts before b-…, so order of appearance would put failing first.
	r := &Report{Sources: []Entry{
		{Jurisdiction: "uk", ID: "a", Status: state.Failing},
		{Jurisdiction: "uk", ID: "b", Status: state.Fresh},
		{Jurisdiction: "uk", ID: "c", Status: state.Failing},
	}}
	md := string(r.Markdown())
	for _, want := range []string{
		"\n\n3 sources: 1 fresh, 2 failing.\n\n",
		"| jurisdiction | fresh | failing | total |\n| --- | ---: | ---: | ---: |\n| uk | 1 | 2 | 3 |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	one := &Report{Sources: []Entry{{Jurisdiction: "uk", ID: "a", Status: state.Pending}}}
	if md := string(one.Markdown()); !strings.Contains(md, "\n1 source: 1 pending.\n") {
		t.Errorf("total of one source:\n%s", md)
	}
}

func TestFreshAndPendingAreNotGaps(t *testing.T) {
	r := &Report{Sources: []Entry{
		{Jurisdiction: "uk", ID: "a", Status: state.Fresh},
		{Jurisdiction: "uk", ID: "b", Status: state.Pending},
	}}
	if md := string(r.Markdown()); !strings.Contains(md, "## Gaps and failures\n\nNone.\n\n## Sources") {
		t.Errorf("fresh and pending sources listed as gaps:\n%s", md)
	}
}

func TestEscaping(t *testing.T) {
	set := &manifest.Set{Sources: []manifest.Source{
		src("uk", "uk-a", "https://x.example/a?q=1|2&r=(3)", manifest.RatesPage, "Rates | bands\nand <b>allowances</b> [x](y)"),
	}}
	set.Sources[0].Gaps = []string{"line one\nline | two"}
	st := state.New()
	st.PutSource("uk-a", state.Source{Status: state.Failing, Since: "2026-11-01", Detail: "HTTP 500\r\nbody: a|b"})
	md := string(Build(set, st).Markdown())
	checkTables(t, md)
	for _, want := range []string{
		`[Rates \| bands and \<b\>allowances\</b\> \[x\](y)](https://x.example/a?q=1%7C2&r=%283%29) |`,
		"(uk): HTTP 500 body: a\\|b\n",
		"  - line one line \\| two\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<b>") {
		t.Errorf("raw HTML got through:\n%s", md)
	}
}

func TestWriteOnlyWhenChanged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports")
	set, st := fixture()
	r := Build(set, st)
	if changed, err := r.Write(dir); err != nil || !changed {
		t.Fatalf("first Write = %v, %v; want true, nil", changed, err)
	}
	js, _ := r.JSON()
	for name, want := range map[string][]byte{"coverage.json": js, "coverage.md": r.Markdown()} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(want) {
			t.Fatalf("%s after Write: %v, content equal = %v", name, err, string(got) == string(want))
		}
	}

	// Back-date the files rather than sleep: a rewrite would move the
	// mtime to now.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	jsonPath, mdPath := filepath.Join(dir, "coverage.json"), filepath.Join(dir, "coverage.md")
	for _, p := range []string{jsonPath, mdPath} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if changed, err := Build(set, st).Write(dir); err != nil || changed {
		t.Fatalf("second Write = %v, %v; want false, nil", changed, err)
	}
	assertMtime(t, jsonPath, old, true)
	assertMtime(t, mdPath, old, true)

	// Each file is judged on its own bytes.
	if err := os.WriteFile(mdPath, []byte("hand edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(mdPath, old, old); err != nil {
		t.Fatal(err)
	}
	if changed, err := r.Write(dir); err != nil || !changed {
		t.Fatalf("Write after a hand edit = %v, %v; want true, nil", changed, err)
	}
	assertMtime(t, jsonPath, old, true)
	assertMtime(t, mdPath, old, false)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("dir holds %d files, want coverage.json and coverage.md only", len(entries))
	}
}

func assertMtime(t *testing.T, path string, old time.Time, same bool) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.ModTime().Equal(old); got != same {
		t.Errorf("%s mtime %v; unchanged = %v, want %v", filepath.Base(path), fi.ModTime(), got, same)
	}
}

func TestParseWritten(t *testing.T) {
	dir := t.TempDir()
	r := Build(fixture())
	if _, err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "coverage.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, got); diff != "" {
		t.Errorf("Parse(Write(r)) (-want +got):\n%s", diff)
	}
}

func TestMarkdownGroupsUnsortedReport(t *testing.T) {
	// Parse returns whatever order the file holds.
	r := &Report{Sources: []Entry{
		{Jurisdiction: "uk", ID: "uk-b", Status: state.Fresh},
		{Jurisdiction: "nz", ID: "nz-a", Status: state.Fresh},
		{Jurisdiction: "uk", ID: "uk-a", Status: state.Fresh},
	}}
	md := string(r.Markdown())
	if n := strings.Count(md, "### uk\n"); n != 1 {
		t.Errorf("%d headings for uk, want 1:\n%s", n, md)
	}
	if !strings.Contains(md, "| nz | 1 | 1 |\n| uk | 2 | 2 |\n") {
		t.Errorf("summary rows not one per jurisdiction, sorted:\n%s", md)
	}
	if strings.Index(md, "`uk-a`") > strings.Index(md, "`uk-b`") {
		t.Errorf("uk-b listed before uk-a:\n%s", md)
	}
}
