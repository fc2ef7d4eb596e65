package audit

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

var day = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

func pdf(info string) []byte {
	return []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n2 0 obj\n<< " + info + " >>\nendobj\ntrailer\n<< /Info 2 0 R >>\n%%EOF\n")
}

// Each first fetch against what its entry promised: real address forms
// of the manifests, bodies the tests write.
func TestOf(t *testing.T) {
	landing := []byte(`<!DOCTYPE html><html><head><title>Publication 15-T (2026), Federal Income Tax Withholding Methods | Internal Revenue Service</title></head><body><h1>Publication 15-T</h1><p>Download the <a href="/pub/irs-pdf/p15t.pdf">PDF</a>.</p></body></html>`)
	index := []byte(`<html><head><title>T4032 Payroll Deductions Tables - Canada.ca</title></head><body><ul>` +
		`<li><a href="t4032-ab-1-26e.pdf">Alberta</a></li><li><a href="t4032-bc-1-26e.pdf">British Columbia</a></li>` +
		`<li><a href="t4032-mb-1-26e.pdf">Manitoba</a></li><li><a href="t4032-on-1-26e.pdf">Ontario</a></li></ul></body></html>`)
	table := []byte(`<html><head><title>Rates and thresholds for employers 2026 to 2027 - GOV.UK</title></head><body><table><tr><td>Personal Allowance</td><td>£12,570</td></tr></table></body></html>`)
	for _, tc := range []struct {
		name     string
		f        Fetch
		form     string
		title    string
		mismatch string // a phrase of the one mismatch wanted; "" for none
		finalURL string
	}{
		{
			name:     "a landing page where a PDF was listed",
			f:        Fetch{URL: "https://www.irs.gov/pub/irs-pdf/p15t.pdf", FinalURL: "https://www.irs.gov/publications/p15t", Kind: "withholding-schedule", Title: "Publication 15-T (2026)", ContentType: "text/html; charset=utf-8", Body: bytes.NewReader(landing)},
			form:     "an HTML page",
			title:    "Publication 15-T (2026), Federal Income Tax Withholding Methods | Internal Revenue Service",
			mismatch: "the address ends in .pdf, which promises a PDF, but the server sent an HTML page: a landing page",
			finalURL: "https://www.irs.gov/publications/p15t",
		},
		{
			name:  "the PDF that was listed, its title a literal string",
			f:     Fetch{URL: "https://www.irs.gov/pub/irs-pdf/p15t.pdf", FinalURL: "https://www.irs.gov/pub/irs-pdf/p15t.pdf", Kind: "withholding-schedule", Title: "Publication 15-T (2026)", ContentType: "application/pdf", Body: bytes.NewReader(pdf(`/Title (2026 Publication 15-T \(Federal Income Tax Withholding Methods\))`))},
			form:  "a PDF",
			title: "2026 Publication 15-T (Federal Income Tax Withholding Methods)",
		},
		{
			name:  "a PDF served untyped, its title UTF-16 in hex",
			f:     Fetch{URL: "https://www.canada.ca/content/dam/cra-arc/migration/cra-arc/tx/bsnss/tpcs/pyrll/t4032/2026/t4032-on-1-26e.pdf", Kind: "withholding-schedule", Title: "T4032-ON Payroll Deductions Tables, January 1, 2026", ContentType: "application/octet-stream", Body: bytes.NewReader(pdf("/Title <FEFF0054003400300033003200200032003000320036>"))},
			form:  "a PDF",
			title: "T4032 2026",
		},
		{
			name:  "a word processor's file name is no title",
			f:     Fetch{URL: "https://example.gov/rates.pdf", Kind: "rates-page", Title: "Rates 2026", ContentType: "application/pdf", Body: bytes.NewReader(pdf("/Title (Microsoft Word - rates_final_v3.docx)"))},
			form:  "a PDF",
			title: "",
		},
		{
			name:     "an index of documents where a table was listed",
			f:        Fetch{URL: "https://www.canada.ca/en/revenue-agency/services/forms-publications/payroll/t4032-payroll-deductions-tables.html", Kind: "tax-table", Title: "T4032 Payroll Deductions Tables", ContentType: "text/html", Body: bytes.NewReader(index)},
			form:     "an HTML page",
			title:    "T4032 Payroll Deductions Tables - Canada.ca",
			mismatch: "a tax table was listed, but the page holds no table and links 4 documents (PDFs, spreadsheets): an index",
		},
		{
			name:  "a rates page with its table",
			f:     Fetch{URL: "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2026-to-2027", Kind: "tax-table", Title: "Rates and thresholds for employers 2026 to 2027", ContentType: "text/html", Body: bytes.NewReader(table)},
			form:  "an HTML page",
			title: "Rates and thresholds for employers 2026 to 2027 - GOV.UK",
		},
		{
			name:     "last year's edition under this year's title",
			f:        Fetch{URL: "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2026-to-2027", Kind: "rates-page", Title: "Rates and thresholds for employers 2026 to 2027", ContentType: "text/html", Body: bytes.NewReader([]byte(`<title>Rates and thresholds for employers 2024 to 2025 - GOV.UK</title><table></table>`))},
			form:     "an HTML page",
			title:    "Rates and thresholds for employers 2024 to 2025 - GOV.UK",
			mismatch: "a year (2024, 2025) the manifest does not name (2026, 2027)",
		},
		{
			name:  "a tax year written 2025-26 names 2026 too",
			f:     Fetch{URL: "https://www.gov.uk/government/publications/rates-and-allowances-hmrc-interest-rates-for-late-and-early-payments", Kind: "rates-page", Title: "Income Tax rates 2025-26", ContentType: "text/html", Body: bytes.NewReader([]byte(`<title>Income Tax rates for 2026</title>`))},
			form:  "an HTML page",
			title: "Income Tax rates for 2026",
		},
		{
			name:  "Justice Canada's XML names the Act",
			f:     Fetch{URL: "https://laws-lois.justice.gc.ca/eng/XML/I-3.3.xml", Kind: "legislation", Title: "Income Tax Act (R.S.C., 1985, c. 1 (5th Supp.))", ContentType: "application/xml", Body: bytes.NewReader([]byte(`<?xml version="1.0" encoding="UTF-8"?><Statute xmlns:lims="http://justice.gc.ca/lims"><Identification><LongTitle>An Act respecting income taxes</LongTitle><ShortTitle status="official">Income Tax Act</ShortTitle></Identification><Body>`))},
			form:  "an XML document",
			title: "An Act respecting income taxes",
		},
		{
			name:     "an HTML error page where XML was listed",
			f:        Fetch{URL: "https://www.legislation.gov.uk/ukpga/2007/3/data.xml", Kind: "legislation", Title: "Income Tax Act 2007", ContentType: "text/html", Body: bytes.NewReader([]byte(`<html><head><title>Income Tax Act 2007</title></head><body><p>Choose a format</p></body></html>`))},
			form:     "an HTML page",
			title:    "Income Tax Act 2007",
			mismatch: "the address ends in .xml, which promises an XML document, but the server sent an HTML page",
		},
		{
			name:  "CLML names itself in dc:title",
			f:     Fetch{URL: "https://www.legislation.gov.uk/ukpga/2007/3/data.xml", Kind: "legislation", Title: "Income Tax Act 2007", ContentType: "application/xml", Body: bytes.NewReader([]byte(`<?xml version="1.0"?><Legislation xmlns:dc="http://purl.org/dc/elements/1.1/"><ukm:Metadata><dc:title>Income Tax Act 2007</dc:title></ukm:Metadata>`))},
			form:  "an XML document",
			title: "Income Tax Act 2007",
		},
		{
			name:  "a CSV table served as text/html is a CSV table",
			f:     Fetch{URL: "https://www.example.gov/paye-tables.csv", Kind: "tax-table", Title: "PAYE tables 2026", ContentType: "text/html; charset=utf-8", Body: bytes.NewReader([]byte("band,from,to,rate\nbasic,12571,50270,20\n"))},
			form:  "a CSV table",
			title: "",
		},
		{
			name:     "plain text served as text/html where a PDF was listed",
			f:        Fetch{URL: "https://www.example.gov/rates.pdf", Kind: "rates-page", Title: "Rates", ContentType: "text/html", Body: bytes.NewReader([]byte("Service temporarily moved"))},
			form:     "plain text (served as text/html)",
			mismatch: "promises a PDF, but the server sent plain text",
		},
		{
			name:  "a ZIP of XML where one was listed",
			f:     Fetch{URL: "https://www.gesetze-im-internet.de/estg/xml.zip", Kind: "legislation", Title: "Einkommensteuergesetz", ContentType: "application/zip", Body: bytes.NewReader([]byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"))},
			form:  "a ZIP file",
			title: "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.f.Body.(*bytes.Reader).Size()
			tc.f.Date, tc.f.Size = day, size
			a := Of(tc.f)
			if a.Form != tc.form || a.Title != tc.title || a.FinalURL != tc.finalURL || a.Date != "2026-12-07" || a.Size != size {
				t.Errorf("form %q title %q final %q date %s size %d; want %q, %q, %q", a.Form, a.Title, a.FinalURL, a.Date, a.Size, tc.form, tc.title, tc.finalURL)
			}
			switch {
			case tc.mismatch == "" && len(a.Mismatches) > 0:
				t.Errorf("mismatches %q, want none", a.Mismatches)
			case tc.mismatch != "" && (len(a.Mismatches) != 1 || !strings.Contains(a.Mismatches[0], tc.mismatch)):
				t.Errorf("mismatches %q, want one saying %q", a.Mismatches, tc.mismatch)
			}
		})
	}
}

func TestYears(t *testing.T) {
	for s, want := range map[string]string{
		"Income Tax rates 2025-26":                        "2025, 2026",
		"t4032-on-1-26e":                                  "",
		"Rates and thresholds for employers 2026 to 2027": "2026, 2027",
		"Act 1985, c. 1 (5th Supp.)":                      "1985",
		"F2025L00647":                                     "2025",
		"tax-rates-2024-25 and 2024–2025":                 "2024, 2025",
		"phone 20261234":                                  "",
		"2019/20":                                         "2019, 2020",
		"2019-07 is a month, not a year range":            "2019",
	} {
		if got := join(years(s)); got != want {
			t.Errorf("years(%q) = %q, want %q", s, got, want)
		}
	}
}

// Whatever a server sends, an audit ends, in time linear in the body.
func FuzzOf(f *testing.F) {
	f.Add("https://a.example/x.pdf", "tax-table", "text/html", []byte("<title>2026</title><a href=x.pdf>"))
	f.Add("https://a.example/x.xml", "legislation", "application/xml", []byte("<?xml version='1.0'?><title>Act</title>"))
	f.Add("https://a.example/x", "rates-page", "", pdf("/Title <FEFF00>"))
	f.Add("https://a.example/x", "rates-page", "application/pdf", []byte("%PDF-1.4 /Title (\\1234\\"))
	f.Fuzz(func(t *testing.T, u, kind, ct string, body []byte) {
		a := Of(Fetch{URL: u, Kind: kind, Title: "Rates 2026", ContentType: ct, Body: bytes.NewReader(body), Size: int64(len(body)), Date: day})
		if a.Form == "" || len([]rune(a.Title)) > maxTitle+1 {
			t.Fatalf("form %q, title of %d runes", a.Form, len([]rune(a.Title)))
		}
	})
}

// An audit reads at most MaxRead bytes, once: its cost on the largest
// page it reads, a 4 MiB HTML index of links, and on a 4 MiB PDF.
func BenchmarkOf(b *testing.B) {
	var page strings.Builder
	page.WriteString("<html><head><title>Payroll tables 2026</title></head><body>")
	for page.Len() < MaxRead {
		page.WriteString(`<p><a href="t4032-on-1-26e.pdf">Ontario</a> rates and thresholds for employers 2026 to 2027</p>`)
	}
	pdfBody := append(pdf("/Title (Publication 15-T (2026))"), strings.Repeat("0 0 m 1 1 l S\n", MaxRead/14)...)
	for _, bc := range []struct {
		name string
		f    Fetch
	}{
		{"html-4MiB", Fetch{URL: "https://www.canada.ca/t4032.html", Kind: "tax-table", Title: "T4032 2026", ContentType: "text/html", Body: strings.NewReader(page.String()), Size: int64(page.Len())}},
		{"pdf-4MiB", Fetch{URL: "https://www.irs.gov/pub/irs-pdf/p15t.pdf", Kind: "withholding-schedule", Title: "Publication 15-T (2026)", ContentType: "application/pdf", Body: bytes.NewReader(pdfBody), Size: int64(len(pdfBody))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(bc.f.Size)
			b.ReportAllocs()
			for b.Loop() {
				Of(bc.f)
			}
		})
	}
}
