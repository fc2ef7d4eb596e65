package law

import "testing"

// The provision pages below are cited by public rules repositories and
// code (policyengine-canada, openfisca-aotearoa and others), or are the
// manifests' own addresses.
func TestProvisionOfURL(t *testing.T) {
	for _, tc := range []struct{ url, id string }{
		// Justice Canada.
		{"https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html", "s. 19"},
		{"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/section-117.html", "s. 117"},
		{"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/section-122.7.html", "s. 122.7"},
		{"https://laws-lois.justice.gc.ca/eng/acts/E-5.6/section-66-20130307.html", "s. 66"},
		{"https://laws-lois.justice.gc.ca/eng/regulations/C.R.C.,_c._945/section-7305.1-20231124.html", "s. 7305.1"},
		{"http://laws-lois.justice.gc.ca/eng/regulations/SOR-96-433/FullText.html#s-401.05", "s. 401.05"},
		{"https://laws-lois.justice.gc.ca/eng/regulations/SOR-2008-120/FullText.html#s-15", "s. 15"},
		{"https://laws-lois.justice.gc.ca/fra/lois/O-9/article-19.html", "art. 19"},
		// legislation.gov.uk.
		{"https://www.legislation.gov.uk/ukpga/2003/1/section/23", "s. 23"},
		{"https://www.legislation.gov.uk/ukpga/2003/1/section/23/enacted", "s. 23"},
		{"https://www.legislation.gov.uk/ukpga/2007/3/section/10/2024-04-06", "s. 10"},
		{"https://www.legislation.gov.uk/uksi/2003/2682/regulation/85", "reg. 85"},
		{"https://www.legislation.gov.uk/uksi/2003/2682/regulation/67B", "reg. 67B"},
		{"https://www.legislation.gov.uk/ukpga/2003/1/schedule/2", "Sch. 2"},
		{"https://www.legislation.gov.uk/ukpga/2003/1/schedule/2/paragraph/3", "Sch. 2 para. 3"},
		// The US Code.
		{"https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3402&num=0&edition=prelim", "§ 3402"},
		{"https://uscode.house.gov/view.xhtml?req=(title:26%20section:32%20edition:prelim)", "§ 32"},
		{"https://www.law.cornell.edu/uscode/text/26/36B", "§ 36b"},
		{"https://www.govinfo.gov/link/uscode/26/3402?link-type=html", "§ 3402"},
		// The CFR.
		{"https://www.ecfr.gov/current/title-26/section-1.72-5", "§ 1.72-5"},
		{"https://www.ecfr.gov/current/title-26/chapter-I/subchapter-F/part-301/section-301.6226-3", "§ 301.6226-3"},
		{"https://www.ecfr.gov/current/title-26/chapter-I/subchapter-A/part-1/subject-group-ECFR31749dec6d4756f/section-1.6050P-1", "§ 1.6050P-1"},
		{"https://www.ecfr.gov/current/title-26/section-31.3402(f)(1)-1", "§ 31.3402(f)(1)-1"},
		{"https://www.law.cornell.edu/cfr/text/26/31.3402(f)(1)-1", "§ 31.3402(f)(1)-1"},
		// gesetze-im-internet.de.
		{"https://www.gesetze-im-internet.de/estg/__32a.html", "§ 32a"},
		{"https://www.gesetze-im-internet.de/ustg_1980/__12.html", "§ 12"},
		{"https://www.gesetze-im-internet.de/gg/art_20.html", "Art. 20"},
	} {
		id, ok := ProvisionOfURL(tc.url)
		if !ok || id != tc.id {
			t.Errorf("ProvisionOfURL(%s) = %q, %v; want %q", tc.url, id, ok, tc.id)
		}
	}
	// Pages that address no one provision by its label.
	for _, u := range []string{
		"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/page-89.html#docCont",
		"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/page-96.html#h-299725",
		"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/",
		"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/FullText.html",
		"https://laws-lois.justice.gc.ca/PDF/I-3.3.pdf",
		"https://www.legislation.gov.uk/ukpga/2007/3/contents",
		"https://www.legislation.gov.uk/ukpga/2003/1/data.xml",
		"http://www.legislation.govt.nz/act/public/2007/0097/latest/DLM1518477.html",
		"https://www.ecfr.gov/current/title-26/chapter-I/subchapter-A/part-1",
		"https://www.gesetze-im-internet.de/estg/xml.zip",
		"https://www.gesetze-im-internet.de/estg/",
		"https://www.gov.uk/income-tax-rates",
		"not a url",
	} {
		if id, ok := ProvisionOfURL(u); ok {
			t.Errorf("ProvisionOfURL(%s) = %q, want none", u, id)
		}
	}
}

// ProvisionAddress gives back the provision page of a held whole text,
// which ProvisionOfURL reads as the same provision.
func TestProvisionAddress(t *testing.T) {
	for _, tc := range []struct{ whole, id, want string }{
		{"https://laws-lois.justice.gc.ca/eng/XML/O-9.xml", "s. 19", "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html"},
		{"https://laws-lois.justice.gc.ca/eng/acts/I-3.3/FullText.html", "s. 122.7", "https://laws-lois.justice.gc.ca/eng/acts/I-3.3/section-122.7.html"},
		{"https://laws-lois.justice.gc.ca/PDF/I-3.3.pdf", "s. 117", "https://laws-lois.justice.gc.ca/eng/acts/I-3.3/section-117.html"},
		{"https://laws-lois.justice.gc.ca/eng/regulations/C.R.C.,_c._945/", "s. 7306", "https://laws-lois.justice.gc.ca/eng/regulations/C.R.C.,_c._945/section-7306.html"},
		{"https://www.legislation.gov.uk/ukpga/2003/1/data.xml", "s. 23", "https://www.legislation.gov.uk/ukpga/2003/1/section/23"},
		{"https://www.legislation.gov.uk/uksi/2003/2682/data.xml", "reg. 67B", "https://www.legislation.gov.uk/uksi/2003/2682/regulation/67B"},
		{"https://www.legislation.gov.uk/ukpga/2003/1/data.xml", "Sch. 2 para. 3", "https://www.legislation.gov.uk/ukpga/2003/1/schedule/2/paragraph/3"},
		{"https://www.ecfr.gov/api/versioner/v1/full/2026-01-01/title-26.xml?part=31", "§ 31.3402(f)(1)-1", "https://www.ecfr.gov/current/title-26/section-31.3402(f)(1)-1"},
		{"https://www.gesetze-im-internet.de/estg/xml.zip", "§ 32a", "https://www.gesetze-im-internet.de/estg/__32a.html"},
		{"https://uscode.house.gov/download/releasepoints/us/pl/119/103/xml_usc26@119-103.zip", "§ 3402", "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3402&num=0&edition=prelim"},
		{"https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3401&num=0&edition=prelim", "§ 3402", "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3402&num=0&edition=prelim"},
	} {
		got, ok := ProvisionAddress(tc.whole, tc.id)
		if !ok || got != tc.want {
			t.Errorf("ProvisionAddress(%s, %q) = %q, %v; want %q", tc.whole, tc.id, got, ok, tc.want)
			continue
		}
		if id, ok := ProvisionOfURL(got); !ok || id != tc.id {
			t.Errorf("ProvisionOfURL(ProvisionAddress(%s, %q)) = %q, %v", tc.whole, tc.id, id, ok)
		}
	}
	for _, tc := range []struct{ whole, id string }{
		{"https://www.legislation.govt.nz/act/public/2007/97/en/latest/", "s. YA 1"},
		{"https://laws-lois.justice.gc.ca/eng/XML/O-9.xml", "§ 19"},
		{"https://www.gesetze-im-internet.de/estg/xml.zip", "s. 1/../x"},
		{"https://www.gov.uk/income-tax-rates", "s. 1"},
	} {
		if got, ok := ProvisionAddress(tc.whole, tc.id); ok {
			t.Errorf("ProvisionAddress(%s, %q) = %q, want none", tc.whole, tc.id, got)
		}
	}
}
