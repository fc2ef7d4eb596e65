package decade

import (
	"path"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// Form is what a source's bytes are, as its address tells: it decides
// whether git can compress them.
type Form string

const (
	FormPage  Form = "html"  // an HTML page: text, deflates and deltas
	FormXML   Form = "xml"   // an XML document: text
	FormPDF   Form = "pdf"   // a PDF with compressed streams: incompressible
	FormZip   Form = "zip"   // a ZIP archive (gesetze-im-internet's xml.zip): incompressible
	FormSheet Form = "sheet" // an XLSX (a ZIP) or XLS workbook: incompressible
)

// FormOf tells a source's form from the extension of its address's path.
func FormOf(s manifest.Source) Form {
	p := strings.ToLower(s.URL)
	if s.Parsed != nil {
		p = strings.ToLower(s.Parsed.Path)
	}
	switch path.Ext(p) {
	case ".pdf":
		return FormPDF
	case ".zip":
		return FormZip
	case ".xlsx", ".xls":
		return FormSheet
	case ".xml":
		return FormXML
	}
	return FormPage
}

// Incompressible reports whether the form's bytes are compressed already,
// so that git stores them at their size and finds no delta between two
// versions.
func (f Form) Incompressible() bool { return f == FormPDF || f == FormZip || f == FormSheet }

// Profile is how a kind of document in a form behaves at its publisher:
// how big it is, how often it changes, and how big its derived text is.
type Profile struct {
	// MedianSize is the median size of the bytes; sources of the profile
	// are spread around it (a log-normal of SizeSpread), at most MaxSize.
	MedianSize, MaxSize int64
	SizeSpread          float64
	// ChangesPerYear is the publisher's rate of new versions; 0 for
	// documents that never change once published.
	ChangesPerYear float64
	// TextRatio is the derived text's size over the bytes' size.
	TextRatio float64
	// LinesChanged is how many lines of the text a new version changes
	// (the mean of a Poisson draw, at least one).
	LinesChanged float64
	// Source says where the figures come from.
	Source string
}

const (
	kib = 1 << 10
	mib = 1 << 20
)

// Figures that several profiles share, with where they come from.
const (
	// Justice Canada's consolidated Income Tax Act (laws-lois.justice.gc.ca,
	// I-3.3) has 34 consolidations dated 2022–2025 in its public "previous
	// versions" list: 8.5 a year. Its XML is over 4 MB, its PDF about 3,000
	// pages. The Income Tax Regulations (C.R.C., c. 945) have 23 (5.75 a
	// year). Every whole-text legislation source is given the Act's
	// cadence: an upper bound for most.
	legislationPerYear = 34.0 / 4
	legislationSource  = "Justice Canada, Income Tax Act: 34 consolidations in 2022–2025, XML over 4 MB, PDF ~3,000 pages (laws-lois.justice.gc.ca, previous versions of I-3.3)"
	// The measured legislation PDF: 0.9 MiB of compressed streams.
	legislationPDF = 900 * kib
	// HTTP Archive, Web Almanac 2024, Page Weight chapter: the median
	// desktop page's HTML is 18 KB (October 2024 crawl).
	pageMedian       = 18 * kib
	pageSource       = "HTTP Archive Web Almanac 2024, Page Weight: median HTML 18 KB"
	ratesPerYear     = 4.0
	ratesCadence     = "rates pages: a few times a year (budget, indexation, mid-year changes); 4 assumed"
	payrollPerYear   = 2.0
	payrollCadence   = "CRA's T4032 payroll tables are issued each January and July (t4032-on-1-25e, -7-25e in the manifests): 2 a year"
	annualSheetYear  = 1.0
	annualSheetNote  = "IRS SOI Table 1.1 (23in11si.xls in the manifests): one edition a year"
	tablePDFAssumed  = "size assumed: no published size figure was found; a payroll-tables PDF of ~60 pages"
	gazettePerYear   = 0.0
	gazetteCadence   = "gazettes are recheck: never in the manifests: published once, never changed"
	textOfPDFRatio   = 0.5 // a text PDF's extracted text against its compressed bytes
	textOfPageRatio  = 0.35
	textOfXMLRatio   = 0.6
	textOfSheetRatio = 1.0
)

// Profiles are the behaviours per kind and form. A kind and form not listed
// falls back to the kind's page profile.
var Profiles = map[manifest.Kind]map[Form]Profile{
	manifest.Legislation: {
		FormPage: {MedianSize: 80 * kib, MaxSize: 4 * mib, SizeSpread: 1.0, ChangesPerYear: legislationPerYear, TextRatio: textOfPageRatio, LinesChanged: 12, Source: legislationSource + "; page size: a provision's page, " + pageSource + " times ~4 (assumed)"},
		FormXML:  {MedianSize: 4 * mib, MaxSize: 8 * mib, SizeSpread: 0.3, ChangesPerYear: legislationPerYear, TextRatio: textOfXMLRatio, LinesChanged: 12, Source: legislationSource},
		FormPDF:  {MedianSize: legislationPDF, MaxSize: 16 * mib, SizeSpread: 0.8, ChangesPerYear: legislationPerYear, TextRatio: textOfPDFRatio, LinesChanged: 12, Source: legislationSource + "; size: the issue's measured 0.9 MiB legislation PDF"},
		FormZip:  {MedianSize: 400 * kib, MaxSize: 4 * mib, SizeSpread: 0.8, ChangesPerYear: legislationPerYear, TextRatio: 3.0, LinesChanged: 12, Source: legislationSource + "; a zipped XML act deflates ~8:1, so an act of ~3 MB of XML is ~400 KiB zipped (assumed)"},
	},
	manifest.RatesPage: {
		FormPage:  {MedianSize: pageMedian, MaxSize: 1 * mib, SizeSpread: 0.8, ChangesPerYear: ratesPerYear, TextRatio: textOfPageRatio, LinesChanged: 4, Source: pageSource + "; " + ratesCadence},
		FormPDF:   {MedianSize: 300 * kib, MaxSize: 4 * mib, SizeSpread: 0.8, ChangesPerYear: ratesPerYear, TextRatio: textOfPDFRatio, LinesChanged: 4, Source: ratesCadence + "; " + tablePDFAssumed},
		FormSheet: {MedianSize: 250 * kib, MaxSize: 8 * mib, SizeSpread: 0.8, ChangesPerYear: annualSheetYear, TextRatio: textOfSheetRatio, LinesChanged: 40, Source: annualSheetNote},
	},
	manifest.TaxTable: {
		FormPage:  {MedianSize: 3 * pageMedian, MaxSize: 2 * mib, SizeSpread: 0.8, ChangesPerYear: payrollPerYear, TextRatio: textOfPageRatio, LinesChanged: 20, Source: pageSource + " (a table page, x3 assumed); " + payrollCadence},
		FormPDF:   {MedianSize: 1 * mib, MaxSize: 8 * mib, SizeSpread: 0.8, ChangesPerYear: payrollPerYear, TextRatio: textOfPDFRatio, LinesChanged: 40, Source: payrollCadence + "; " + tablePDFAssumed},
		FormSheet: {MedianSize: 250 * kib, MaxSize: 8 * mib, SizeSpread: 0.8, ChangesPerYear: annualSheetYear, TextRatio: textOfSheetRatio, LinesChanged: 40, Source: annualSheetNote},
	},
	manifest.WithholdingSchedule: {
		FormPage:  {MedianSize: 3 * pageMedian, MaxSize: 2 * mib, SizeSpread: 0.8, ChangesPerYear: payrollPerYear, TextRatio: textOfPageRatio, LinesChanged: 20, Source: pageSource + " (a table page, x3 assumed); " + payrollCadence},
		FormPDF:   {MedianSize: 1 * mib, MaxSize: 8 * mib, SizeSpread: 0.8, ChangesPerYear: payrollPerYear, TextRatio: textOfPDFRatio, LinesChanged: 40, Source: payrollCadence + "; " + tablePDFAssumed},
		FormSheet: {MedianSize: 250 * kib, MaxSize: 8 * mib, SizeSpread: 0.8, ChangesPerYear: annualSheetYear, TextRatio: textOfSheetRatio, LinesChanged: 40, Source: annualSheetNote},
	},
	manifest.Gazette: {
		FormPage: {MedianSize: 2 * pageMedian, MaxSize: 1 * mib, SizeSpread: 0.8, ChangesPerYear: gazettePerYear, TextRatio: textOfPageRatio, LinesChanged: 1, Source: gazetteCadence + "; " + pageSource},
		FormPDF:  {MedianSize: 1 * mib, MaxSize: 16 * mib, SizeSpread: 0.8, ChangesPerYear: gazettePerYear, TextRatio: textOfPDFRatio, LinesChanged: 1, Source: gazetteCadence + "; size assumed"},
	},
}

// ProfileOf is the profile of a source: its kind's, for its form.
func ProfileOf(s manifest.Source) (Profile, Form) {
	form := FormOf(s)
	byForm := Profiles[s.Kind]
	if p, ok := byForm[form]; ok {
		return p, form
	}
	if form == FormXML || form == FormSheet || form == FormZip {
		if p, ok := byForm[FormPDF]; ok && form != FormXML {
			return p, form
		}
	}
	if p, ok := byForm[FormPage]; ok {
		return p, form
	}
	return Profiles[manifest.RatesPage][FormPage], form
}
