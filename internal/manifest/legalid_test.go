package manifest

import (
	"net/url"
	"testing"
)

// TestEditionOfURL holds each publisher's rule of docs/manifests.md to
// an address of that publisher.
func TestEditionOfURL(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://www.legislation.gov.uk/ukpga/2007/3/contents", "current"},
		{"https://www.legislation.gov.uk/ukpga/2024/3/body/enacted", "as-enacted"},
		{"https://www.legislation.gov.uk/uksi/2023/38/made", "as-enacted"},
		{"https://www.legislation.gov.uk/ukpga/2007/3/section/35/2024-04-06", "point-in-time 2024-04-06"},
		{"https://www.legislation.govt.nz/act/public/2007/97/en/latest/", "current"},
		{"https://www.legislation.govt.nz/act/public/2007/97/en/2024-03-31/", "point-in-time 2024-03-31"},
		{"https://www.legislation.govt.nz/act/public/2007/0097/238.0/DLM1512301.html", ""},
		// The XML and PDF of a version are its address with the format
		// appended: latest.xml, 2024-03-31.pdf.
		{"https://www.legislation.govt.nz/act/public/2007/97/en/latest.xml", "current"},
		{"https://www.legislation.govt.nz/act/public/2007/97/en/latest.xml/", "current"},
		{"https://www.legislation.govt.nz/secondary-legislation/pco-drafted/2018/202/en/2024-03-31.pdf", "point-in-time 2024-03-31"},
		{"https://www.legislation.govt.nz/act/public/2007/97/en/latest.zip", ""},
		{"https://www.legislation.gov.au/C2004A05138/latest/text", "current"},
		{"https://www.legislation.gov.au/F2025L01060/asmade/text", "as-enacted"},
		{"https://www.legislation.gov.au/C2004A05138/2024-07-01/text", "point-in-time 2024-07-01"},
		{"https://www.irishstatutebook.ie/eli/1997/act/39/section/15/enacted/en/html", "as-enacted"},
		{"https://www.irishstatutebook.ie/eli/isbc/1997_39.html", ""},
		{"https://revisedacts.lawreform.ie/eli/2010/act/31/revised/en/html", "current"},
		{"https://laws-lois.justice.gc.ca/eng/acts/E-5.6/section-66-20130307.html", "point-in-time 2013-03-07"},
		{"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/", "current"},
		// The whole consolidation as XML or PDF: Justice Laws serves the
		// current one only at these addresses.
		{"https://laws-lois.justice.gc.ca/eng/XML/I-3.3.xml", "current"},
		{"https://laws-lois.justice.gc.ca/eng/XML/C.R.C.,_c._945.xml", "current"},
		{"https://laws-lois.justice.gc.ca/PDF/I-3.3.pdf", "current"},
		{"https://laws-lois.justice.gc.ca/eng/XML/Legis.xml", ""},
		{"https://www.boe.es/buscar/act.php?id=BOE-A-2006-20764", "current"},
		{"https://www.boe.es/buscar/act.php?id=BOE-A-2022-22684&p=20221228&tn=0", "point-in-time 2022-12-28"},
		{"https://www.boe.es/diario_boe/txt.php?id=BOE-A-1992-28925", "as-enacted"},
		{"https://www.boe.es/diario_boe/", ""},
		{"https://www.gesetze-im-internet.de/estg/__32a.html", "current"},
		{"https://www.ecfr.gov/current/title-26/chapter-I/subchapter-C/part-31", "current"},
		{"https://www.ecfr.gov/on/2024-01-01/title-26/part-31", "point-in-time 2024-01-01"},
		{"https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section1&num=0&edition=prelim", "current"},
		{"https://www.gov.uk/income-tax-rates", ""},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if e := EditionOfURL(u); e != nil {
			got = e.String()
			if !e.FromURL {
				t.Errorf("%s: edition %s not marked as read from the URL", tt.url, got)
			}
		}
		if got != tt.want {
			t.Errorf("EditionOfURL(%s) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

// TestLegalIDSchemes accepts one identifier of each scheme as its
// publisher writes it.
func TestLegalIDSchemes(t *testing.T) {
	for _, id := range []LegalID{
		{SchemeELI, "http://www.legislation.gov.uk/id/ukpga/2007/3"},
		{SchemeELI, "http://data.europa.eu/eli/dir/2006/112/oj"},
		{SchemeURNLex, "urn:lex:it:stato:legge:2006-05-14;52"},
		{SchemeURNLex, "urn:lex:br;sao.paulo:estadual:lei:2000-01-01;1"},
		{SchemeUSLM, "/us/usc/t26/s1"},
		{SchemeUSLM, "/us/cfr/t26/s31.3402-1"},
		{SchemeCELEX, "32006L0112"},
		{SchemeCELEX, "02006L0112-20240101"},
		{SchemeFedReg, "2013-28411"},
		{"ie-isb", "1997/act/39"},
	} {
		if p, _ := legalIDProblem(id.Scheme, id.ID, "ie"); p != "" {
			t.Errorf("%s %s refused: %s", id.Scheme, id.ID, p)
		}
	}
}

func TestFRBRLevels(t *testing.T) {
	s := Source{Legal: &LegalID{SchemeUSLM, "/us/usc/t26/s1"}, Edition: &Edition{Type: EditionNow}}
	f := s.FRBR("text/html; charset=utf-8", "ab")
	if f.Work.ID != "/us/usc/t26/s1" || f.Expression.Type != EditionNow || f.Manifestation.MediaType != "text/html" || f.Item.SHA256 != "ab" {
		t.Errorf("FRBR = %+v", f)
	}
	if (Source{}).FRBR("text/html", "ab") != nil {
		t.Error("a source with neither work nor expression known has FRBR levels")
	}
}

func TestLegalIDOfURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://www.legislation.gov.uk/ukpga/2007/3/section/35":                                                "eli http://www.legislation.gov.uk/id/ukpga/2007/3",
		"https://www.legislation.gov.uk/uksi/2023/38/made":                                                      "eli http://www.legislation.gov.uk/id/uksi/2023/38",
		"https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3402&num=0&edition=prelim": "uslm /us/usc/t26/s3402",
		"https://www.govinfo.gov/content/pkg/FR-2013-11-29/html/2013-28411.htm":                                 "federal-register 2013-28411",
		"https://www.federalregister.gov/documents/2014/01/29/2014-01619/rules-relating-to-additional-medicare": "federal-register 2014-01619",
		"https://www.federalregister.gov/agencies/internal-revenue-service":                                     "",
		"https://www.gov.uk/income-tax-rates":                                                                   "",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if id := LegalIDOfURL(u); id != nil {
			got = id.Scheme + " " + id.ID
		}
		if got != want {
			t.Errorf("LegalIDOfURL(%s) = %q, want %q", raw, got, want)
		}
	}
}
