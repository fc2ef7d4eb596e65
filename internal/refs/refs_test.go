package refs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fixture tree writes a reference in each form the public rules
// repositories use (PolicyEngine's and OpenFisca's); the files are ours.
func scanFixture(t *testing.T) []Ref {
	t.Helper()
	refs, problems, err := Scan("testdata/repo", ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].File != "openfisca_x/parameters/benefit/broken.yaml" || problems[0].Line != 1 || !strings.Contains(problems[0].Message, "not YAML") {
		t.Errorf("problems %+v, want the broken file at line 1", problems)
	}
	return refs
}

func TestScanReadsEveryForm(t *testing.T) {
	type row struct {
		file      string
		line      int
		parameter string
		level     string
		date      string
		href      string
		title     string
	}
	var got []row
	for _, r := range scanFixture(t) {
		_, f, _ := strings.Cut(r.File, "/")
		got = append(got, row{f, r.Line, r.Parameter, r.Level, r.DateKey, r.Href, r.Title})
	}
	want := []row{
		// OpenFisca: a node's metadata string, a dated value's {title, href}.
		{"parameters/benefit/clauses.yaml", 3, "benefit.clauses", LevelNode, "", "https://www.legislation.govt.nz/act/public/2018/0032/59.0/DLM6784890.html", ""},
		{"parameters/benefit/clauses.yaml", 11, "benefit.clauses.clause_10", LevelValue, "2018-11-26", "https://www.legislation.govt.nz/act/public/2018/0032/latest/DLM6784891.html", "Schedule 5 clause 10"},
		// A date-keyed reference map.
		{"parameters/benefit/income_test.yaml", 9, "benefit.income_test", LevelParameter, "2019-04-01", "https://www.legislation.govt.nz/regulation/public/2019/0027/latest/whole.html", "Regulations 2019"},
		{"parameters/benefit/income_test.yaml", 12, "benefit.income_test", LevelParameter, "2020-04-01", "https://www.legislation.govt.nz/regulation/public/2020/0013/latest/whole.html", "Regulations 2020"},
		// A top-level string.
		{"parameters/benefit/rate.yaml", 2, "benefit.rate", LevelParameter, "", "https://www.legislation.govt.nz/act/public/2018/0032/latest/DLM6784890.html", ""},
		// PolicyEngine: a bare string in metadata.
		{"parameters/gov/tax/allowance.yaml", 6, "gov.tax.allowance", LevelParameter, "", "https://www.example.gov/allowance-guide#amount", ""},
		// A top-level list, a value's reference list, a value's metadata map.
		{"parameters/gov/tax/amount.yaml", 4, "gov.tax.amount", LevelParameter, "", "https://www.law.cornell.edu/uscode/text/26/32", "Node-level list"},
		{"parameters/gov/tax/amount.yaml", 10, "gov.tax.amount", LevelValue, "2013-01-01", "https://www.ecfr.gov/current/title-26/chapter-I/subchapter-A/part-1/section-1.32-2", "Value-level reference"},
		{"parameters/gov/tax/amount.yaml", 16, "gov.tax.amount", LevelValue, "2014-01-01", "https://www.federalregister.gov/documents/2014/01/29/2014-01619/rules", "Value-level metadata reference"},
		// A bracket's own metadata, and the scale's.
		{"parameters/gov/tax/brackets.yaml", 12, "gov.tax.brackets.brackets[0].threshold", LevelParameter, "", "https://www.example.gov/brackets", "Bracket threshold"},
		{"parameters/gov/tax/brackets.yaml", 16, "gov.tax.brackets", LevelParameter, "", "https://www.example.gov/brackets", "The scale"},
		// Inherited from the folder's index.yaml (propagate_metadata_to_children).
		{"parameters/gov/tax/credit/amount.yaml", 1, "gov.tax.credit.amount", LevelInherited, "", "https://laws-lois.justice.gc.ca/eng/acts/I-3.3/page-96.html", "Inherited act"},
		{"parameters/gov/tax/credit/index.yaml", 5, "gov.tax.credit", LevelNode, "", "https://laws-lois.justice.gc.ca/eng/acts/I-3.3/page-96.html", "Inherited act"},
		// A parameter with its own reference inherits nothing.
		{"parameters/gov/tax/credit/phase_out.yaml", 7, "gov.tax.credit.phase_out", LevelParameter, "", "https://www.canada.ca/content/dam/cra-arc/formspubs/pbg/5000-d1/5000-d1-22e.pdf", "Own reference"},
		// A list of {title, href}.
		{"parameters/gov/tax/rate.yaml", 10, "gov.tax.rate", LevelParameter, "", "https://www.legislation.gov.uk/ukpga/2001/9/section/6", "Example Tax Act 2001 s. 6"},
		{"parameters/gov/tax/rate.yaml", 12, "gov.tax.rate", LevelParameter, "", "http://legislation.gov.uk/ukpga/2001/9/section/6/enacted#p1", "Example Tax Act 2001 s. 6 (as enacted)"},
		// A list of strings, {title, url}, {name, href}, a title alone.
		{"parameters/gov/tax/threshold.yaml", 6, "gov.tax.threshold", LevelParameter, "", "https://www.irs.gov/pub/irs-prior/i1040gi--2021.pdf", ""},
		{"parameters/gov/tax/threshold.yaml", 8, "gov.tax.threshold", LevelParameter, "", "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf", "Form instructions"},
		{"parameters/gov/tax/threshold.yaml", 10, "gov.tax.threshold", LevelParameter, "", "https://www.irs.gov/pub/irs-drop/rp-24-40.pdf", "Revenue Procedure"},
		{"parameters/gov/tax/threshold.yaml", 11, "gov.tax.threshold", LevelParameter, "", "", "A title with no address"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %d references:\n%s\nwant %d:\n%s", len(got), dump(got), len(want), dump(want))
	}
	for _, r := range scanFixture(t) {
		if r.Level == LevelInherited && r.From != "policyengine_x/parameters/gov/tax/credit/index.yaml:5" {
			t.Errorf("inherited reference from %q, want the index's line", r.From)
		}
	}
}

func dump[T any](rows []T) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(fmtV(r), "\n", " "), "  ", " ")) + "\n")
	}
	return b.String()
}

func TestScanExcludes(t *testing.T) {
	refs, _, err := Scan("testdata/repo", ScanOptions{Exclude: []string{"openfisca_x", "policyengine_x/parameters/gov/tax/credit/"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if strings.HasPrefix(r.File, "openfisca_x/") || strings.Contains(r.File, "/credit/") {
			t.Errorf("excluded file read: %s", r.File)
		}
	}
	if len(refs) != 12 {
		t.Errorf("%d references outside the excluded paths, want 12", len(refs))
	}
}

func testArchive() *Archive {
	return NewArchive([]Source{
		{ID: "t-i1040gi", URL: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf", Kind: "tax-table", Title: "Instructions for Form 1040",
			History: []Version{{"2024-01-10", "aa"}, {"2025-01-15", "bb"}}, Checked: "2025-11-30"},
		{ID: "t-irb-2024-45", URL: "https://www.irs.gov/irb/2024-45_IRB", Kind: "gazette", Title: "Internal Revenue Bulletin 2024-45 (Rev. Proc. 2024-40)"},
		{ID: "t-usc-26-1", URL: "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section1&num=0&edition=prelim", Kind: "legislation"},
		{ID: "t-usc-26-24", URL: "https://www.govinfo.gov/link/uscode/26/24?link-type=html", Kind: "legislation"},
		{ID: "t-usc-26-36b", URL: "https://www.govinfo.gov/link/uscode/26/36b?link-type=html", Kind: "legislation"},
		{ID: "t-cfr-26-31", URL: "https://www.ecfr.gov/current/title-26/chapter-I/subchapter-C/part-31", Kind: "legislation"},
		{ID: "t-fr", URL: "https://www.govinfo.gov/content/pkg/FR-2014-01-29/html/2014-01619.htm", Kind: "gazette"},
		{ID: "t-ita-2007", URL: "https://www.legislation.gov.uk/ukpga/2007/3/contents", Kind: "legislation"},
		{ID: "t-fa-2001", URL: "https://www.legislation.gov.uk/ukpga/2001/9/data.pdf", Kind: "legislation",
			History: []Version{{"2026-01-05", "cc"}}},
		{ID: "t-fa-2024", URL: "https://www.legislation.gov.uk/ukpga/2024/3/section/1/enacted", Kind: "legislation"},
		{ID: "t-fa-2024-body", URL: "https://www.legislation.gov.uk/ukpga/2024/3/body/enacted", Kind: "legislation"},
		{ID: "t-nz-2018-32", URL: "https://www.legislation.govt.nz/act/public/2018/32/en/latest/", Kind: "legislation"},
		{ID: "t-nz-sl-2021-15", URL: "https://www.legislation.govt.nz/secondary-legislation/pco-drafted/2021/15/en/latest/", Kind: "legislation"},
		{ID: "t-nz-sl-2019-27", URL: "https://www.legislation.govt.nz/secondary-legislation/pco-drafted/2019/27/en/latest/", Kind: "legislation"},
		{ID: "t-ca-ita", URL: "https://laws-lois.justice.gc.ca/eng/acts/I-3/FullText.html", Kind: "legislation"},
		{ID: "t-ca-ita-pdf", URL: "https://laws-lois.justice.gc.ca/PDF/I-3.3.pdf", Kind: "legislation"},
		{ID: "t-ca-ei-66", URL: "https://laws-lois.justice.gc.ca/eng/acts/E-5.6/section-66-20130307.html", Kind: "legislation"},
		{ID: "t-cra-5000-d1", URL: "https://www.canada.ca/content/dam/cra-arc/formspubs/pbg/5000-d1/5000-d1-25e.pdf", Kind: "tax-table"},
		{ID: "t-ny", URL: "https://www.tax.ny.gov/pdf/current_forms/it/it201i.pdf", Kind: "tax-table"},
		{ID: "t-ny-2024", URL: "https://www.tax.ny.gov/pdf/2024/inc/it201i_2024.pdf", Kind: "tax-table"},
		{ID: "t-gov-uk", URL: "https://www.gov.uk/income-tax-rates", Kind: "rates-page"},
	})
}

func TestMatchKinds(t *testing.T) {
	a := testArchive()
	for _, c := range []struct{ href, kind, source string }{
		{"https://www.irs.gov/pub/irs-pdf/i1040gi.pdf", Exact, "t-i1040gi"},
		{"http://irs.gov/pub/irs-pdf/i1040gi.pdf#page=12", Normalised, "t-i1040gi"},
		{"www.irs.gov/pub/irs-pdf/i1040gi.pdf", Normalised, "t-i1040gi"},
		{"https://www.gov.uk/income-tax-rates/?utm_source=x&highlight=rate", Normalised, "t-gov-uk"},
		{"https://www.irs.gov/pub/irs-prior/i1040gi--2009.pdf", Edition, "t-i1040gi"},
		{"https://www.irs.gov/pub/irs-drop/rp-24-40.pdf", Inside, "t-irb-2024-45"},
		{"https://www.law.cornell.edu/uscode/text/26/1", Provision, "t-usc-26-1"},
		{"https://www.law.cornell.edu/uscode/text/26/24#a", Provision, "t-usc-26-24"},
		{"https://www.law.cornell.edu/uscode/text/26/36B", Provision, "t-usc-26-36b"},
		{"https://uscode.house.gov/view.xhtml?req=(title:26%20section:24%20edition:prelim)", Provision, "t-usc-26-24"},
		{"https://www.law.cornell.edu/cfr/text/26/31.3402(f)(1)-1", Within, "t-cfr-26-31"},
		{"https://www.ecfr.gov/current/title-26/chapter-I/subchapter-C/part-31/section-31.3402(f)(1)-1", Within, "t-cfr-26-31"},
		{"https://www.federalregister.gov/documents/2014/01/29/2014-01619/rules-relating", Provision, "t-fr"},
		{"https://www.legislation.gov.uk/ukpga/2001/9/section/6", Within, "t-fa-2001"},
		{"https://www.legislation.gov.uk/ukpga/2024/3/section/1", Edition, "t-fa-2024"},
		{"https://www.legislation.gov.uk/ukpga/2024/3/section/2/enacted", Within, "t-fa-2024-body"},
		{"https://www.legislation.gov.uk/ukpga/2024/3/schedule/1/enacted", Sibling, ""},
		{"https://www.legislation.gov.uk/ukpga/2007/3/section/35", Sibling, "t-ita-2007"},
		{"https://www.legislation.govt.nz/act/public/2018/0032/latest/DLM6784890.html", Within, "t-nz-2018-32"},
		{"https://www.legislation.govt.nz/act/public/2018/0032/latest/whole.html", Provision, "t-nz-2018-32"},
		{"https://www.legislation.govt.nz/regulation/public/2021/0015/latest/whole.html", Provision, "t-nz-sl-2021-15"},
		{"http://www.legislation.govt.nz/regulation/public/2019/0027/latest/LMS156275.html", Within, "t-nz-sl-2019-27"},
		{"https://laws-lois.justice.gc.ca/eng/acts/I-3/page-96.html", Within, "t-ca-ita"},
		{"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/section-117.html", Within, "t-ca-ita-pdf"},
		{"https://laws-lois.justice.gc.ca/eng/acts/E-5.6/section-66.html", Edition, "t-ca-ei-66"},
		{"https://www.canada.ca/content/dam/cra-arc/formspubs/pbg/5000-d1/5000-d1-22e.pdf", Edition, "t-cra-5000-d1"},
		{"https://www.tax.ny.gov/pdf/2023/inc/it201i_2023.pdf", Edition, "t-ny-2024"},
		{"https://www.irs.gov/pub/irs-pdf/i1040sc.pdf", Sibling, "t-i1040gi"},
		{"https://www.irs.gov/credits-deductions", HostOnly, ""},
		{"https://www.example.org/report.pdf", None, ""},
		{"", NoURL, ""},
		{"see the act", NotURL, ""},
	} {
		m := a.Match(c.href)
		if m.Kind != c.kind || c.source != "" && m.Source != c.source {
			t.Errorf("%s: %s %s (%s), want %s %s", c.href, m.Kind, m.Source, m.How, c.kind, c.source)
		}
	}
}

func TestBuildDatesTheBytesHeld(t *testing.T) {
	refs := []Ref{
		{File: "a.yaml", Line: 3, Href: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf", DateKey: "2024-06-01"},
		{File: "a.yaml", Line: 9, Href: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"},
		{File: "b.yaml", Line: 4, Href: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"},
		{File: "c.yaml", Line: 1, Href: "https://www.legislation.gov.uk/ukpga/2001/9/section/6/2023-04-06"},
		{File: "c.yaml", Line: 2, Href: "https://www.irs.gov/pub/irs-drop/rp-24-40.pdf"},
		{File: "c.yaml", Line: 3, Href: "https://www.example.org/x"},
		{File: "d.yaml", Line: 5, Href: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"}, // git cannot date it
	}
	var asked []string
	dater := func(file string, lines []int) (map[int]string, error) {
		asked = append(asked, file)
		return map[int]string{9: "2025-03-01", 4: "2023-01-01", 2: "2025-01-01"}, nil
	}
	rep, err := Build(refs, testArchive(), 30, dater)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"a.yaml", "b.yaml", "c.yaml", "d.yaml"}) {
		t.Errorf("dated files %v: only those with held references whose date is not in the URL or a key", asked)
	}
	h := func(i int) HeldBytes { return *rep.Rows[i].Held }
	if got := h(0); got.RefDate != "2024-06-01" || got.RefDateFrom != DateFromDateKey || got.OnRefDate != "aa" || got.ChangedAfter != "yes" || got.ChangedOn != "2025-01-15" || got.SHA256 != "bb" || got.Retrieved != "2025-11-30" {
		t.Errorf("date-keyed reference: %+v", got)
	}
	if got := h(1); got.RefDate != "2025-03-01" || got.RefDateFrom != DateFromGit || got.OnRefDate != "bb" || got.ChangedAfter != "no" {
		t.Errorf("git-dated reference: %+v", got)
	}
	// Older than the first bytes held, which changed later: the change the
	// archive saw is a change after the reference.
	if got := h(2); got.OnRefDate != "" || got.FirstRetrieved != "2024-01-10" || !got.BeforeFirst || got.ChangedAfter != "yes" || got.ChangedOn != "2025-01-15" ||
		got.ChangeFrom != "aa" || got.ChangeFromDate != "2024-01-10" || got.ChangeTo != "bb" ||
		got.Note != "changed on 2025-01-15; the archive holds this document since 2024-01-10, after your reference of 2023-01-01, so what you cited may differ from both" {
		t.Errorf("a reference older than the first bytes held, which changed since: %+v", got)
	}
	// Older than the first bytes held, which have not changed: unknown.
	if got := h(3); got.RefDate != "2023-04-06" || got.RefDateFrom != DateFromURL || got.Status != "held" || got.FirstRetrieved != "2026-01-05" ||
		!got.BeforeFirst || got.ChangedAfter != "unknown" || got.ChangedOn != "" || !strings.Contains(got.Note, "has seen no change since") {
		t.Errorf("a URL pinned to a date before the only bytes held: %+v", got)
	}
	if got := h(0); got.BeforeFirst || got.ChangeFrom != "aa" || got.ChangeTo != "bb" || !strings.Contains(got.Note, "the archive held the bytes you cited") {
		t.Errorf("a reference dated after the first bytes held: %+v", got)
	}
	if got := h(6); got.RefDate != "" || got.ChangedAfter != "unknown" || !strings.Contains(got.Note, "no date") {
		t.Errorf("a reference git could not date: %+v", got)
	}
	if got := h(4); got.Status != "listed" || got.SHA256 != "" || got.RefDate != "2025-01-01" {
		t.Errorf("a listed source with nothing fetched: %+v", got)
	}
	if rep.Rows[5].Held != nil {
		t.Errorf("an unmatched reference has held bytes: %+v", rep.Rows[5].Held)
	}
	if rep.References != 7 || rep.Files != 4 || rep.URLs != 4 || rep.TopHeld != 3 || len(rep.Top) != 4 || rep.Top[0].Files != 3 || !rep.Top[0].Held {
		t.Errorf("summary: references %d files %d urls %d top %d held %d: %+v", rep.References, rep.Files, rep.URLs, len(rep.Top), rep.TopHeld, rep.Top)
	}
	wantWatch := Watch{Watched: 4, Changed: 2, Unchanged: 1, Waiting: 1, NoDate: 1, Listed: 1, NotHeld: 1,
		Since: []Since{{"2024-01-10", 1, 3}, {"2026-01-05", 1, 1}}}
	if fmtV(rep.Watch) != fmtV(wantWatch) {
		t.Errorf("watch %+v, want %+v", rep.Watch, wantWatch)
	}
	want := []Count{{Exact, 4, 1}, {Inside, 1, 1}, {Within, 1, 1}, {None, 1, 1}}
	if !slices.Equal(rep.Matched, want) {
		t.Errorf("matched %+v, want %+v", rep.Matched, want)
	}
}

func TestSuggestFoldsPartsIntoWholeTexts(t *testing.T) {
	refs := []Ref{
		{File: "a.yaml", Href: "https://www.legislation.gov.uk/uksi/2013/376/regulation/36", Title: "Universal Credit Regulations 2013 reg. 36"},
		{File: "b.yaml", Href: "https://www.legislation.gov.uk/uksi/2013/376/regulation/22", Title: "Universal Credit Regulations 2013 reg. 22"},
		{File: "c.yaml", Href: "https://www.legislation.gov.uk/uksi/2013/376/regulation/22#p2", Title: "Universal Credit Regulations 2013 reg. 22"},
		{File: "a.yaml", Href: "https://www.law.cornell.edu/uscode/text/26/32", Title: "26 U.S. Code § 32"},
		{File: "a.yaml", Href: "https://www.gov.uk/tax-free-childcare?step-by-step-nav=d78a", Title: "Tax-free childcare"},
		{File: "b.yaml", Href: "https://www.gov.uk/tax-free-childcare", Title: "Tax-free childcare"},
		{File: "b.yaml", Href: "https://www.research.example.ac.uk/report.pdf", Title: "Tax-free childcare"},
		{File: "c.yaml", Href: "https://www.irs.gov/pub/irs-pdf/i1040gi.pdf"},
	}
	rep, err := Build(refs, testArchive(), 30, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ss := Suggest(rep.Rows, 2, ""); len(ss) != 2 {
		t.Fatalf("%d suggestions, want 2 (the n asked for): %+v", len(ss), ss)
	}
	ss := Suggest(rep.Rows, 30, "")
	if len(ss) != 4 {
		t.Fatalf("%d suggestions, want 4: %+v", len(ss), ss)
	}
	if s := ss[0]; s.URL != "https://www.legislation.gov.uk/uksi/2013/376/data.pdf" || s.Files != 3 || s.References != 3 || len(s.Cited) != 2 || s.Kind != "legislation" || !s.Official || s.ID != "uk-universal-credit-regulations-2013-reg-22" {
		t.Errorf("the regulations' whole text first: %+v", s)
	}
	if s := ss[1]; s.URL != "https://www.gov.uk/tax-free-childcare" || s.ID != "uk-tax-free-childcare" || s.Files != 2 || s.References != 2 {
		t.Errorf("second, the page without its navigation parameter: %+v", s)
	}
	if s := ss[3]; s.ID != "uk-tax-free-childcare-2" || s.Official {
		t.Errorf("last, a research report with the same title, not official, its id numbered: %+v", s)
	}
	y := SuggestYAML(ss)
	for _, want := range []string{"  - id: uk-universal-credit-regulations-2013-reg-22\n    url: https://www.legislation.gov.uk/uksi/2013/376/data.pdf\n    kind: legislation\n", "as 2 URLs; the whole text", "not an authority's own host"} {
		if !strings.Contains(y, want) {
			t.Errorf("the YAML lacks %q:\n%s", want, y)
		}
	}
	us := Suggest(rep.Rows, 30, "us")
	if i := slices.IndexFunc(us, func(s Suggestion) bool { return strings.Contains(s.URL, "govinfo.gov/link/uscode/26/32") }); i < 0 {
		t.Errorf("a Cornell section is suggested at the publisher: %+v", us)
	}
}

func TestGitDates(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	dir := t.TempDir()
	git := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("2020-01-01T00:00:00Z", "init", "-q")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "p"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "p", "a.yaml"), []byte("a: 1\nb: 2\n"), 0o644))
	git("2021-02-03T12:00:00Z", "add", ".")
	git("2021-02-03T23:30:00-05:00", "commit", "-q", "-m", "first")
	must(os.WriteFile(filepath.Join(dir, "p", "a.yaml"), []byte("a: 1\nb: 3\nc: 4\n"), 0o644))
	git("2022-05-06T12:00:00Z", "commit", "-q", "-am", "second")
	must(os.WriteFile(filepath.Join(dir, "p", "a.yaml"), []byte("a: 1\nb: 3\nc: 5\n"), 0o644))
	got, err := GitDates(t.Context(), dir)("p/a.yaml", []int{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	// Line 1 from the first commit (its author date in UTC: the next
	// day), line 2 from the second, line 3 not committed.
	if len(got) != 2 || got[1] != "2021-02-04" || got[2] != "2022-05-06" {
		t.Errorf("dates %v", got)
	}
	if got, err := GitDates(t.Context(), t.TempDir())("x.yaml", []int{1}); err != nil || len(got) != 0 {
		t.Errorf("outside a repository: %v, %v; want no dates and no error", got, err)
	}
}

func fmtV(v any) string { return strings.TrimPrefix(fmt.Sprintf("%+v", v), "{") }
