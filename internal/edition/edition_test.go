package edition

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// source is one manifest entry of a test.
type source struct {
	jurisdiction, id, url, kind, title string
}

// load writes the sources as manifests (one file per jurisdiction) and
// loads them.
func load(t *testing.T, sources ...source) *manifest.Set {
	t.Helper()
	dir := t.TempDir()
	files := map[string]*strings.Builder{}
	zones := map[string]string{"de": "Europe/Berlin", "uk": "Europe/London", "au": "Australia/Sydney", "nz": "Pacific/Auckland", "ca": "America/Toronto", "us": "America/New_York"}
	for _, s := range sources {
		b := files[s.jurisdiction]
		if b == nil {
			b = &strings.Builder{}
			fmt.Fprintf(b, "jurisdiction: %s\nname: %s\ntimezone: %s\nsources:\n", s.jurisdiction, strings.ToUpper(s.jurisdiction), zones[s.jurisdiction])
			files[s.jurisdiction] = b
		}
		kind := s.kind
		if kind == "" {
			kind = "withholding-schedule"
		}
		fmt.Fprintf(b, "  - id: %s\n    url: %s\n    kind: %s\n    title: %q\n", s.id, s.url, kind, s.title)
	}
	for j, b := range files {
		if err := os.WriteFile(filepath.Join(dir, j+".yaml"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, diags := manifest.Load(dir)
	if diags.HasErrors() {
		t.Fatalf("manifests: %v", diags)
	}
	return set
}

// The sources of the tests: real addresses and titles of the manifests.
var (
	hmrc = source{"uk", "uk-employer-rates-thresholds-2025-26",
		"https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2025-to-2026", "", "Rates and thresholds for employers 2025 to 2026"}
	cra = source{"ca", "ca-t4032-on-2025",
		"https://www.canada.ca/content/dam/cra-arc/migration/cra-arc/tx/bsnss/tpcs/pyrll/t4032/2025/t4032-on-1-25eng.pdf", "tax-table",
		"T4032-ON, Payroll Deductions Tables - Ontario, effective January 1, 2025"}
	ato = source{"au", "au-company-tax-rates-2024-25",
		"https://www.ato.gov.au/tax-rates-and-codes/company-tax-rates/tax-rates-2024-25", "rates-page", "Company tax rates 2024-25"}
	frl = source{"au", "au-withholding-schedules-instrument-2024",
		"https://www.legislation.gov.au/F2024L00664/latest/text", "", "Taxation Administration (Withholding Schedules) Instrument 2024"}
	bmf = source{"de", "de-bmf-pap-2026",
		"https://www.bundesfinanzministerium.de/Content/DE/Downloads/Steuern/Steuerarten/Lohnsteuer/Programmablaufplan/2025-11-12-PAP-2026-anlage-1.pdf?__blob=publicationFile&v=2", "",
		"Programmablaufplan für den maschinellen Lohnsteuerabzug 2026"}
	irs = source{"us", "us-pub-15-t-withholding-methods",
		"https://www.irs.gov/pub/irs-pdf/p15t.pdf", "", "Publication 15-T, Federal Income Tax Withholding Methods"}
	act = source{"uk", "uk-income-tax-act-2007",
		"https://www.legislation.gov.uk/ukpga/2007/3/contents", "legislation", "Income Tax Act 2007 (c. 3)"}
)

func TestMarksOfRealAddresses(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want []string // form:year:seq of each mark
	}{
		{"https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2025-to-2026", []string{"tax year:2025:0"}},
		{"https://www.ato.gov.au/tax-rates-and-codes/company-tax-rates/tax-rates-2024-25", []string{"tax year:2024:0"}},
		{"https://www.example.gov/tables-2025-2026.pdf", []string{"tax year:2025:0"}},
		{"Rates 2025/26", []string{"tax year:2025:0"}},
		{"https://www.canada.ca/content/dam/cra-arc/migration/cra-arc/tx/bsnss/tpcs/pyrll/t4032/2022/t4032-on-1-22eng.txt", []string{"year:2022:0", "payroll tables issue:2022:1"}},
		{"https://www.canada.ca/x/t4032-on-7-24fra.pdf", []string{"payroll tables issue:2024:7"}},
		{"https://www.legislation.gov.au/F2025L00647/asmade/text", []string{"register id:2025:647"}},
		{"https://www.legislation.gov.au/C2004A05138/latest/text", nil}, // a series id, not a year
		{"https://www.irs.gov/pub/irs-pdf/p15t.pdf", nil},
		{"https://www.bundesfinanzministerium.de/Programmablaufplan/2025-11-12-PAP-2026-anlage-1.pdf", []string{"date:2025:1112", "year:2026:0"}},
		{"https://www.cbo.gov/system/files/2025-01/53724-2025-01-Tax-Parameters.xlsx", []string{"date:2025:100", "date:2025:100"}},
		{"https://open.alberta.ca/download/budget-2019-fiscal-plan-2019-23.pdf", []string{"year:2019:0", "year:2019:0"}}, // 2019-23 is a plan's span, not a tax year
		{"https://sede.agenciatributaria.gob.es/Retenciones/2026/Algoritmo%20Retenciones-2026_10sept.pdf", []string{"year:2026:0", "year:2026:0"}},
		{"https://www.finances.gouv.qc.ca/MAJ2021/documents/en/AUTEN_IncomeTax2022.pdf", []string{"year:2021:0", "year:2022:0"}},
	} {
		var got []string
		for _, m := range Marks(tc.s) {
			got = append(got, fmt.Sprintf("%s:%d:%d", m.Form, m.Year, m.Seq))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Marks(%s) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestShiftMovesYearsAndTaxYears(t *testing.T) {
	for in, want := range map[string]string{
		"Rates and thresholds for employers 2025 to 2026": "Rates and thresholds for employers 2026 to 2027",
		"uk-employer-rates-thresholds-2025-26":            "uk-employer-rates-thresholds-2026-27",
		"Company tax rates 2024-25":                       "Company tax rates 2025-26",
		"T4032-ON, effective January 1, 2025":             "T4032-ON, effective January 1, 2026",
		"Programmablaufplan 2025-11-12":                   "Programmablaufplan 2025-11-12", // a day cannot be told
	} {
		if got := Shift(in, 1); got != want {
			t.Errorf("Shift(%q, 1) = %q, want %q", in, got, want)
		}
	}
}

// page is the held copy of src with an HTML body, its links read as the
// publisher reads them.
func page(t *testing.T, src source, body string) Page {
	t.Helper()
	base, err := url.Parse(src.url)
	if err != nil {
		t.Fatal(err)
	}
	return Page{Source: src.id, SHA256: strings.Repeat("ab", 32), Date: "2026-01-30", Links: HTMLLinks(strings.NewReader(body), base)}
}

func TestFindProposesTheNextEditionOfRealPatterns(t *testing.T) {
	for _, tc := range []struct {
		name               string
		listed             []source
		held               source // whose copy carries the page
		body               string
		url, id, title     string
		line               int
		evidenceStartsWith string
	}{{
		name:   "HMRC: a yearly guidance page links to next year's",
		listed: []source{hmrc},
		held:   hmrc,
		body: "<html><body>\n<p>Rates for 2025 to 2026.</p>\n" +
			`<p>See <a href="/guidance/rates-and-thresholds-for-employers-2026-to-2027">Rates and thresholds for employers 2026 to 2027</a></p>` + "\n</body></html>",
		url:   "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2026-to-2027",
		id:    "uk-employer-rates-thresholds-2026-27",
		title: "Rates and thresholds for employers 2026 to 2027",
		line:  3, evidenceStartsWith: "Rates and thresholds for employers 2026 to 2027",
	}, {
		name:   "CRA: the payroll tables page links to January 2026's issue, year folder and file both moved on",
		listed: []source{cra, {"ca", "ca-payroll", "https://www.canada.ca/en/revenue-agency/services/forms-publications/payroll/t4032-payroll-deductions-tables.html", "rates-page", "T4032 Payroll Deductions Tables"}},
		held:   source{id: "ca-payroll", url: "https://www.canada.ca/en/revenue-agency/services/forms-publications/payroll/t4032-payroll-deductions-tables.html"},
		body:   "<ul>\n<li><a href=\"/content/dam/cra-arc/migration/cra-arc/tx/bsnss/tpcs/pyrll/t4032/2026/t4032-on-1-26eng.pdf\">Ontario, January 1, 2026</a></li>\n</ul>",
		url:    "https://www.canada.ca/content/dam/cra-arc/migration/cra-arc/tx/bsnss/tpcs/pyrll/t4032/2026/t4032-on-1-26eng.pdf",
		id:     "ca-t4032-on-2026",
		title:  "T4032-ON, Payroll Deductions Tables - Ontario, effective January 1, 2026",
		line:   2, evidenceStartsWith: "Ontario, January 1, 2026",
	}, {
		name:   "ATO: a yearly rates page links to the next income year's",
		listed: []source{ato},
		held:   ato,
		body:   `<a href="https://www.ato.gov.au/tax-rates-and-codes/company-tax-rates/tax-rates-2025-26">2025–26</a>`,
		url:    "https://www.ato.gov.au/tax-rates-and-codes/company-tax-rates/tax-rates-2025-26",
		id:     "au-company-tax-rates-2025-26",
		title:  "Company tax rates 2025-26",
		line:   1, evidenceStartsWith: "2025–26",
	}, {
		name:   "ATO instrument: the register names its remade successor by title",
		listed: []source{frl},
		held:   frl,
		body: "<p>Status: <b>Repealed</b></p>\n" +
			`<a href="/F2025L00012/latest/text">Taxation Administration (Withholding Schedules) Instrument 2025</a>` + "\n" +
			`<a href="/F2025L00013/latest/text">Taxation Administration (Remuneration Tribunal) Instrument 2025</a>`,
		url:   "https://www.legislation.gov.au/F2025L00012/latest/text",
		id:    "au-withholding-schedules-instrument-2025",
		title: "Taxation Administration (Withholding Schedules) Instrument 2025",
		line:  2, evidenceStartsWith: "Taxation Administration (Withholding Schedules) Instrument 2025",
	}, {
		name:   "BMF: the payroll flowchart of the next year, its file at version 1",
		listed: []source{bmf},
		held:   bmf,
		body:   `<a href="/Content/DE/Downloads/Steuern/Steuerarten/Lohnsteuer/Programmablaufplan/2026-11-10-PAP-2027-anlage-1.pdf?__blob=publicationFile&amp;v=1">PAP 2027</a>`,
		url:    "https://www.bundesfinanzministerium.de/Content/DE/Downloads/Steuern/Steuerarten/Lohnsteuer/Programmablaufplan/2026-11-10-PAP-2027-anlage-1.pdf?__blob=publicationFile&v=1",
		id:     "de-bmf-pap-2027",
		title:  "Programmablaufplan für den maschinellen Lohnsteuerabzug 2027",
		line:   1, evidenceStartsWith: "PAP 2027",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			set := load(t, tc.listed...)
			got := Find(set, []Page{page(t, tc.held, tc.body)})
			if len(got) != 1 {
				t.Fatalf("Find proposed %d editions, want 1: %+v", len(got), got)
			}
			p := got[0]
			if p.URL != tc.url || p.ID != tc.id || p.Title != tc.title || p.Source.ID != tc.listed[0].id {
				t.Errorf("proposed %s as %s (%q) for %s, want %s as %s (%q) for %s", p.URL, p.ID, p.Title, p.Source.ID, tc.url, tc.id, tc.title, tc.listed[0].id)
			}
			if p.Evidence.Source != tc.held.id || p.Evidence.Line != tc.line || !strings.HasPrefix(p.Evidence.Text, tc.evidenceStartsWith) || p.Evidence.SHA256 == "" || p.Evidence.Date != "2026-01-30" {
				t.Errorf("evidence %+v, want page %s line %d with %q", p.Evidence, tc.held.id, tc.line, tc.evidenceStartsWith)
			}
		})
	}
}

func TestFindProposesNothingForTheControls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listed []source
		held   source
		body   string
		text   string // the held copy's text, for addresses written in it
	}{{
		name:   "a link to an older year",
		listed: []source{hmrc},
		held:   hmrc,
		body:   `<a href="/guidance/rates-and-thresholds-for-employers-2024-to-2025">2024 to 2025</a>`,
	}, {
		name:   "a link to the same year",
		listed: []source{hmrc},
		held:   hmrc,
		body:   `<a href="/guidance/rates-and-thresholds-for-employers-2025-to-2026#rates">rates</a>`,
	}, {
		name:   "a year in an unrelated link",
		listed: []source{hmrc},
		held:   hmrc,
		body:   `<a href="/government/publications/budget-2026-document">Budget 2026</a> <a href="/guidance/rates-and-thresholds-for-pensioners-2026-to-2027">pensioners</a>`,
	}, {
		name:   "a page naming next year's consultation",
		listed: []source{hmrc},
		held:   hmrc,
		body: "<p>The rates and thresholds for employers 2026 to 2027 are under consultation.</p>\n" +
			`<a href="/government/consultations/rates-and-thresholds-for-employers-2026-to-2027-consultation">Consultation</a>`,
		text: "Consultation on the rates and thresholds for employers 2026 to 2027: https://www.gov.uk/government/consultations/employer-thresholds-2026-to-2027",
	}, {
		name:   "the next edition is listed already",
		listed: []source{hmrc, {"uk", "uk-employer-rates-thresholds-2026-27", "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2026-to-2027", "", "Rates and thresholds for employers 2026 to 2027"}},
		held:   hmrc,
		body:   `<a href="/guidance/rates-and-thresholds-for-employers-2026-to-2027">next year</a>`,
	}, {
		name:   "the next edition is listed already, as a source of another kind",
		listed: []source{hmrc, {"uk", "uk-employer-rates-2026-27", "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2026-to-2027", "legislation", "Rates and thresholds for employers 2026 to 2027"}},
		held:   hmrc,
		body:   `<a href="/guidance/rates-and-thresholds-for-employers-2026-to-2027">next year</a>`,
	}, {
		name:   "the same pattern on another host",
		listed: []source{hmrc},
		held:   hmrc,
		body:   `<a href="https://mirror.example/guidance/rates-and-thresholds-for-employers-2026-to-2027">copy</a>`,
	}, {
		name:   "BMF: the same file at a later version",
		listed: []source{bmf},
		held:   bmf,
		body:   `<a href="/Content/DE/Downloads/Steuern/Steuerarten/Lohnsteuer/Programmablaufplan/2025-11-12-PAP-2026-anlage-1.pdf?__blob=publicationFile&amp;v=3">PAP 2026</a>`,
	}, {
		name:   "a register id of another instrument",
		listed: []source{frl},
		held:   frl,
		body:   `<a href="/F2025L00013/latest/text">Income Tax Assessment Amendment (Withholding) Instrument 2025</a>`,
	}, {
		name:   "an older register id under the same title",
		listed: []source{frl},
		held:   frl,
		body:   `<a href="/F2015L00750/latest/text">Taxation Administration (Withholding Schedules) Instrument 2015</a>`,
	}, {
		name:   "IRS: an address updated in place, whose text names the next year",
		listed: []source{irs},
		held:   irs,
		body:   `<a href="https://www.irs.gov/pub/irs-prior/p15t--2025.pdf">Publication 15-T (2025)</a> <a href="https://www.irs.gov/pub/irs-pdf/p15t.pdf">Publication 15-T (2026)</a>`,
		text:   "Publication 15-T (2026)\nFederal Income Tax Withholding Methods\nFor use in 2026\nGo to IRS.gov/Pub15T",
	}, {
		name:   "the years of a law name the work",
		listed: []source{act},
		held:   act,
		body:   `<a href="https://www.legislation.gov.uk/ukpga/2008/3/contents">Income Tax Act 2008</a>`,
	}, {
		name:   "a page no listed source served",
		listed: []source{hmrc},
		held:   source{id: "uk-not-listed", url: "https://www.gov.uk/"},
		body:   `<a href="/guidance/rates-and-thresholds-for-employers-2026-to-2027">next</a>`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			set := load(t, tc.listed...)
			p := page(t, tc.held, tc.body)
			p.Links = append(p.Links, TextLinks(tc.text)...)
			if len(p.Links) == 0 {
				t.Fatal("the control's page has no link: it tests nothing")
			}
			if got := Find(set, []Page{p}); len(got) != 0 {
				t.Errorf("Find proposed %+v, want nothing", got)
			}
		})
	}
}

func TestFindKeepsTheNewestCandidateAndTheFirstEvidence(t *testing.T) {
	set := load(t, hmrc, source{"uk", "uk-rates", "https://www.gov.uk/income-tax-rates", "rates-page", "Income Tax rates"})
	rates := source{id: "uk-rates", url: "https://www.gov.uk/income-tax-rates"}
	pages := []Page{
		page(t, hmrc, `<a href="/guidance/rates-and-thresholds-for-employers-2026-to-2027">a</a>`+"\n"+`<a href="/guidance/rates-and-thresholds-for-employers-2027-to-2028">b</a>`),
		page(t, rates, `<a href="/guidance/rates-and-thresholds-for-employers-2027-to-2028">c</a>`),
	}
	got := Find(set, pages)
	if len(got) != 1 || !strings.HasSuffix(got[0].URL, "2027-to-2028") || got[0].Evidence.Source != hmrc.id || got[0].Evidence.Line != 2 || got[0].ID != "uk-employer-rates-thresholds-2027-28" {
		t.Errorf("Find = %+v, want 2027-to-2028 from %s line 2", got, hmrc.id)
	}
}

// TestFindNamesAnEditionOfTheSameYear: the CRA's July tables of the same
// year move only the month: the id says what moved.
func TestFindNamesAnEditionOfTheSameYear(t *testing.T) {
	set := load(t, cra)
	got := Find(set, []Page{page(t, cra, `<a href="/content/dam/cra-arc/migration/cra-arc/tx/bsnss/tpcs/pyrll/t4032/2025/t4032-on-7-25eng.pdf">July 1, 2025</a>`)})
	if len(got) != 1 || got[0].ID != "ca-t4032-on-2025-7-25" || !strings.HasSuffix(got[0].URL, "/t4032-on-7-25eng.pdf") {
		t.Errorf("Find = %+v, want the July 2025 issue as ca-t4032-on-2025-7-25", got)
	}
}

func TestHTMLLinksResolvesAgainstThePageAndItsBase(t *testing.T) {
	from, _ := url.Parse("https://www.gov.uk/guidance/rates-2025-to-2026")
	got := HTMLLinks(strings.NewReader("<html><head>\n<base href=\"https://www.gov.uk/government/\">\n<base href=\"https://elsewhere.example/\">\n</head><body>\n"+
		"<a href=\"publications/x-2026\">X <b>2026</b> &amp; more</a>\n<a href=\"mailto:a@b.example\">mail</a><a href=\"/y#part\">y</a>"), from)
	want := []Link{{URL: "https://www.gov.uk/government/publications/x-2026", Text: "X 2026 & more", Line: 5}, {URL: "https://www.gov.uk/y", Text: "y", Line: 6}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("HTMLLinks = %+v, want %+v", got, want)
	}
}

func TestTextLinksReadsAddressesWrittenInADocument(t *testing.T) {
	got := TextLinks("Tables for 2026.\nSee www.canada.ca/content/dam/t4032/2026/t4032-on-1-26eng.pdf, or https://www.canada.ca/payroll.")
	if len(got) != 2 || got[0].URL != "https://www.canada.ca/content/dam/t4032/2026/t4032-on-1-26eng.pdf" || got[0].Line != 2 || got[1].URL != "https://www.canada.ca/payroll" {
		t.Errorf("TextLinks = %+v", got)
	}
}

func TestCurrentTaxYearFollowsEachJurisdiction(t *testing.T) {
	london, _ := time.LoadLocation("Europe/London")
	for _, tc := range []struct {
		j    string
		now  time.Time
		want int
	}{
		{"uk", time.Date(2026, 4, 5, 22, 30, 0, 0, time.UTC), 2025}, // 23:30 on 5 April in London
		{"uk", time.Date(2026, 4, 5, 23, 0, 0, 0, time.UTC), 2026},  // 00:00 on 6 April in London
		{"uk", time.Date(2026, 4, 6, 12, 0, 0, 0, time.UTC), 2026},
		{"au", time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC), 2025},
		{"au", time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), 2026},
		{"nz", time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC), 2025},
		{"ca", time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), 2026},
		{"us", time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC), 2025},
	} {
		loc := time.UTC
		if tc.j == "uk" {
			loc = london
		}
		if got := CurrentTaxYear(tc.j, tc.now, loc); got != tc.want {
			t.Errorf("CurrentTaxYear(%s, %s) = %d, want %d", tc.j, tc.now, got, tc.want)
		}
	}
}

func TestStaleWarnsOfTheNewestOfASeriesBehindTheTaxYear(t *testing.T) {
	set := load(t,
		hmrc, // 2025-26: behind from 6 April 2026, no later listed
		source{"uk", "uk-student-loan-2024-25", "https://www.gov.uk/student-loan-thresholds-for-the-2024-to-2025-academic-year", "", "Student loan thresholds 2024 to 2025"},
		source{"uk", "uk-student-loan-2026-27", "https://www.gov.uk/student-loan-thresholds-for-the-2026-to-2027-academic-year", "", "Student loan thresholds 2026 to 2027"},
		// renamed by its publisher: followed by its id
		source{"us", "us-cms-medicare-part-b-2025", "https://www.cms.gov/newsroom/fact-sheets/2025-medicare-parts-b-premiums-and-deductibles", "rates-page", "2025 Medicare Parts B"},
		source{"us", "us-cms-medicare-part-b-2026", "https://www.cms.gov/newsroom/fact-sheets/2026-medicare-parts-b-premiums-deductibles", "rates-page", "2026 Medicare Parts B"},
		cra, // January 2025's tables in 2026
		ato, // 2024-25, behind in 2026-27
		irs, // updated in place: no year to be behind
		act, // a law's year is the work's
		frl, // a register id names when it was made
	)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var got []string
	for _, d := range Stale(set, now, nil) {
		if d.Severity != manifest.Warning || d.Line == 0 || !strings.HasSuffix(d.File, ".yaml") {
			t.Errorf("%s: want a warning at a manifest line", d)
		}
		id, _, _ := strings.Cut(d.Message, ":")
		got = append(got, id)
	}
	want := []string{"au-company-tax-rates-2024-25", "ca-t4032-on-2025", "uk-employer-rates-thresholds-2025-26"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Stale warned of %v, want %v", got, want)
	}
	// Told only of the sources asked about.
	if got := Stale(set, now, func(src manifest.Source) bool { return src.ID == ato.id }); len(got) != 1 || !strings.HasPrefix(got[0].Message, ato.id+":") {
		t.Errorf("Stale of %s only: %v", ato.id, got)
	}
	// Before HMRC's year turns, its 2025-26 page is current.
	for _, d := range Stale(set, time.Date(2026, 4, 5, 12, 0, 0, 0, time.UTC), nil) {
		if strings.HasPrefix(d.Message, hmrc.id) {
			t.Errorf("on 5 April 2026: %s", d)
		}
	}
}
