package law

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// sample reads a file of testdata/samples (gunzipped when it ends in
// .gz); see testdata/samples/README.md for where each comes from.
func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// samples are a document of each form, with the address it is served
// at and what the reader must find in it.
var samples = []struct {
	file   string
	format Format
	hint   string
	// first provisions expected: ID, heading, address.
	want [][3]string
	// segmentKnowsAddress: Read's address is one Segment can make of the
	// text (not for New Zealand, whose provision pages are named by ids
	// the text does not hold, nor Germany, whose XML does not name the
	// law's pages: Segment makes those of the source's address).
	segmentKnowsAddress bool
}{
	{"uksi-2023-1148-excerpt.xml", CLML, "https://www.legislation.gov.uk/uksi/2023/1148/data.xml", [][3]string{
		{"reg. 1", "Citation, commencement and interpretation", "https://www.legislation.gov.uk/uksi/2023/1148/regulation/1"},
		{"reg. 2", "Amendments to the Income Tax (Earnings and Pensions) Act 2003: Scottish carer support payment", "https://www.legislation.gov.uk/uksi/2023/1148/regulation/2"},
		{"reg. 4", "Modification to the Income Tax (Earnings and Pensions) Act 2003: exemption of social security benefit", "https://www.legislation.gov.uk/uksi/2023/1148/regulation/4"},
	}, true},
	{"ECFR-title1_current.xml.gz", ECFR, "https://www.ecfr.gov/api/versioner/v1/full/2024-02-12/title-1.xml", [][3]string{
		{"§ 1.1", "Definitions.", "https://www.ecfr.gov/current/title-1/section-1.1"},
		{"§ 2.1", "Scope and purpose.", "https://www.ecfr.gov/current/title-1/section-2.1"},
	}, true},
	{"114publ4-uslm.xml.gz", USLM, "https://www.govinfo.gov/content/pkg/PLAW-114publ4/uslm/PLAW-114publ4.xml", [][3]string{
		{"sec. 501", "", ""},
		{"sec. 502", "", ""},
	}, true},
	{"nz-act-synthetic.xml", NewZealand, "https://www.legislation.govt.nz/act/public/2007/0097/latest/whole.html", [][3]string{
		{"s. AA 1", "Purpose of this Act", "https://www.legislation.govt.nz/act/public/2007/0097/latest/DLM1512305.html"},
		{"s. RD 10", "Amount of tax for PAYE income payment", "https://www.legislation.govt.nz/act/public/2007/0097/latest/DLM1512321.html"},
		{"s. RD 11", "Repealed", "https://www.legislation.govt.nz/act/public/2007/0097/latest/DLM1512330.html"},
	}, false},
	{"gii-skaufg-BJNR055429995.xml", GII, "https://www.gesetze-im-internet.de/skaufg/xml.zip", [][3]string{
		{"Art 1", "", ""},
		{"Art 2", "", ""},
		{"Art 2 § 1", "Allgemeine Voraussetzungen", ""},
		{"Art 2 § 2", "Grenzübertritt, Einreise", ""},
	}, false},
	{"gii-estg-BJNR010050934.xml.gz", GII, "https://www.gesetze-im-internet.de/estg/xml.zip", [][3]string{
		{"§ 1", "Steuerpflicht", ""},
		{"§ 1a", "", ""},
		{"§ 2", "Umfang der Besteuerung, Begriffsbestimmungen", ""},
	}, false},
}

// TestFormats: each form is told by its root element, read into its
// provisions with their publisher's addresses, and its text view holds
// no markup; Segment of the view gives the provisions Read gives.
func TestFormats(t *testing.T) {
	for _, s := range samples {
		raw := sample(t, s.file)
		if got := Sniff(raw[:min(len(raw), 4096)]); got != s.format {
			t.Errorf("%s: sniffed %q, want %q", s.file, got, s.format)
		}
		read, err := Read(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		if len(read) < len(s.want) {
			t.Fatalf("%s: %d provisions, want at least %d", s.file, len(read), len(s.want))
		}
		for i, w := range s.want {
			if got := [3]string{read[i].ID, read[i].Heading, read[i].Address}; got != w {
				t.Errorf("%s: provision %d is %q, want %q", s.file, i, got, w)
			}
		}
		view := viewOf(t, raw)
		if strings.Contains(view, "<") || strings.Contains(view, "/>") {
			t.Errorf("%s: markup in the text view", s.file)
		}
		seg := Segment(view, s.hint)
		if !s.segmentKnowsAddress {
			// Read has no address to give; Segment gives the one the
			// publisher's pages have, from the source's address, and a
			// reference to that page reads back as the provision.
			for i := range read {
				read[i].Address = ""
			}
			for i, p := range seg {
				want, _ := ProvisionAddress(s.hint, p.ID)
				if p.Address != want {
					t.Errorf("%s: %s is at %q by Segment, at %q by ProvisionAddress", s.file, p.ID, p.Address, want)
				}
				if id, ok := ProvisionOfURL(p.Address); p.Address != "" && (!ok || !Covers(p.ID, id)) {
					t.Errorf("%s: %s's address %s reads back as %q", s.file, p.ID, p.Address, id)
				}
				seg[i].Address = ""
			}
		}
		if !reflect.DeepEqual(read, seg) {
			t.Errorf("%s: Segment of the view differs from Read:\n%+v\n%+v", s.file, read, seg)
		}
	}
}

// TestRepealedProvisions: a provision that holds only its repeal note is
// Repealed, in each form's words.
func TestRepealedProvisions(t *testing.T) {
	for file, ids := range map[string][]string{
		"nz-act-synthetic.xml":          {"s. RD 11"},
		"gii-estg-BJNR010050934.xml.gz": {"§ 7e", "§ 7f", "§ 7k", "§ 10h", "§ 10i"},
	} {
		ps, err := Read(bytes.NewReader(sample(t, file)))
		if err != nil {
			t.Fatal(err)
		}
		repealed := map[string]bool{}
		for _, p := range ps {
			repealed[p.ID] = p.Repealed
		}
		for _, id := range ids {
			if !repealed[id] {
				t.Errorf("%s: %s is not read as repealed", file, id)
			}
		}
		if repealed["§ 1"] || repealed["s. RD 10"] {
			t.Errorf("%s: a provision in force is read as repealed", file)
		}
	}
}

// TestMetadataAloneIsNoChange is the control of each form: a document
// whose metadata alone changed has the same text view.
func TestMetadataAloneIsNoChange(t *testing.T) {
	for _, c := range []struct{ file, old, new string }{
		{"uksi-2023-1148-excerpt.xml", "<dc:modified>2024-05-08</dc:modified>", "<dc:modified>2026-01-02</dc:modified>"},
		{"ECFR-title1_current.xml.gz", "<AMDDATE>Dec. 29, 2022(fm)", "<AMDDATE>Feb. 2, 2026"},
		{"114publ4-uslm.xml.gz", "<processedDate>2018-10-04</processedDate>", "<processedDate>2026-01-02</processedDate>"},
		{"nz-act-synthetic.xml", `date.as.at="2026-04-01"`, `date.as.at="2026-07-01"`},
		{"nz-act-synthetic.xml", "Reprint as at 1 April 2026", "Reprint as at 1 July 2026"},
		{"gii-estg-BJNR010050934.xml.gz", "zuletzt geändert durch Art. 6 G v. 12.8.2020 I 1879", "zuletzt geändert durch Art. 5 G v. 1.1.2026 I Nr. 1"},
		{"gii-estg-BJNR010050934.xml.gz", `builddate="20200818213018"`, `builddate="20260202000000"`},
		{"gii-skaufg-BJNR055429995.xml", "Zuletzt geändert durch Art. 191 V v. 19.6.2020 I 1328", "Zuletzt geändert durch Art. 7 G v. 1.2.2026 I Nr. 9"},
	} {
		raw := string(sample(t, c.file))
		changed := strings.ReplaceAll(raw, c.old, c.new)
		if changed == raw {
			t.Fatalf("%s: %q is not in the sample", c.file, c.old)
		}
		if viewOf(t, []byte(raw)) != viewOf(t, []byte(changed)) {
			t.Errorf("%s: changing %q to %q changed the text", c.file, c.old, c.new)
		}
	}
}

// ecfrTruth reads each DIV8 section of an eCFR XML with encoding/xml,
// independently of the code under test: its number as its HEAD writes
// it ("§ 1.1" of "§ 1.1   Definitions.", "§§ 457.104-457.109" of a
// reserved range) and its canonical text (all its character data, white
// space collapsed), as eCFR's section pages show it. The N attribute is
// not the key: in these files it changed where the text did not.
func ecfrTruth(t testing.TB, raw []byte) map[string]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.Strict = false
	out := map[string]string{}
	depth, at, headAt := 0, -1, -1
	var text, head strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			if at < 0 && e.Name.Local == "DIV8" {
				at = depth
				text.Reset()
				head.Reset()
			}
			if at >= 0 && depth == at+1 && e.Name.Local == "HEAD" {
				headAt = depth
			}
		case xml.EndElement:
			if depth == headAt {
				headAt = -1
			}
			if depth == at {
				h := strings.TrimSpace(head.String())
				if i := strings.Index(h, "   "); i > 0 {
					h = h[:i]
				}
				h, _, _ = strings.Cut(h, " [")
				h = strings.TrimSuffix(strings.Replace(strings.Replace(h, "§§", "§§ ", 1), "§ ", "§ ", 1), ".")
				out[strings.Join(strings.Fields(h), " ")] = strings.Join(strings.Fields(text.String()), " ")
				at = -1
			}
			depth--
		case xml.CharData:
			if at >= 0 {
				text.WriteString(string(e))
				text.WriteByte(' ')
			}
			if headAt >= 0 {
				head.WriteString(string(e))
			}
		}
	}
	return out
}

// TestRealECFRChange: GPO's two copies of Title 1 (en dashes made
// hyphens, in its sample files of March 2024) differ in the sections the
// XML's own DIV8s say, precision and recall 1.
func TestRealECFRChange(t *testing.T) {
	oldRaw, newRaw := sample(t, "ECFR-title1_current.xml.gz"), sample(t, "ECFR-title1_updated.xml.gz")
	truth := changedByTruth(ecfrTruth(t, oldRaw), ecfrTruth(t, newRaw))
	oldP, err := Read(bytes.NewReader(oldRaw))
	if err != nil {
		t.Fatal(err)
	}
	newP, err := Read(bytes.NewReader(newRaw))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range Diff(oldP, newP) {
		got = append(got, c.ID)
	}
	sort.Strings(got)
	p, r := precisionRecall(got, truth)
	t.Logf("eCFR title 1: %d sections changed in the XML %v; reported %v; precision %.2f recall %.2f", len(truth), truth, got, p, r)
	if len(truth) == 0 || p != 1 || r != 1 {
		t.Errorf("precision %.2f, recall %.2f", p, r)
	}
}

// TestBounded: a document nested deeper than any legislation is refused
// with an error that says so, not followed.
func TestBounded(t *testing.T) {
	doc := `<Statute xmlns:lims="http://justice.gc.ca/lims"><Body>` + strings.Repeat("<Section>", MaxDepth+10) + "x"
	err := WriteText(strings.NewReader(doc), func(string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("error %v", err)
	}
	if _, err := Read(strings.NewReader("<html><body>not law</body></html>")); err == nil || !strings.Contains(err.Error(), "<html>") {
		t.Errorf("a page that is no legislation: error %v", err)
	}
}

// TestSegmentPublishersPages: texts of the publishers' HTML and PDF
// pages (as textview derives them) are cut at their own heading
// patterns, a figure at a line's start taken for no section.
func TestSegmentPublishersPages(t *testing.T) {
	for _, c := range []struct {
		hint, text string
		want       []string
	}{
		{"https://laws-lois.justice.gc.ca/eng/acts/O-9/FullText.html",
			"Old Age Security Act\nAmount of supplement\n19 (1) Subject to this Act, a supplement may be paid.\n2024 was the year.\n(2) The amount is $1,000.\n20 (1) The Minister may waive.\n117 Regulations\n",
			[]string{"s. 19 https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html", "s. 20 https://laws-lois.justice.gc.ca/eng/acts/O-9/section-20.html", "s. 117 https://laws-lois.justice.gc.ca/eng/acts/O-9/section-117.html"}},
		// The same number twice: the line that reads as a provision's
		// first starts it; an unconfirmed leap that reads as a sentence
		// is none.
		{"https://laws-lois.justice.gc.ca/eng/acts/X-1/FullText.html",
			"11 Note\n12 months after the date, the amount is due.\n12 Rates\n(1) The rate is 5%.\n13\n13 per cent is the rate.\n14 Last\n90 days after that, it ends.\n",
			[]string{"s. 11 https://laws-lois.justice.gc.ca/eng/acts/X-1/section-11.html", "s. 12 https://laws-lois.justice.gc.ca/eng/acts/X-1/section-12.html", "s. 13 https://laws-lois.justice.gc.ca/eng/acts/X-1/section-13.html", "s. 14 https://laws-lois.justice.gc.ca/eng/acts/X-1/section-14.html"}},
		{"https://www.legislation.gov.uk/ukpga/2007/3/contents",
			"Income Tax Act 2007\nSection 10 Income charged at the basic rate\n10 This section applies.\n1 The first subsection.\nSection 11 Income charged at the higher rate\n",
			[]string{"s. 10 https://www.legislation.gov.uk/ukpga/2007/3/section/10", "s. 11 https://www.legislation.gov.uk/ukpga/2007/3/section/11"}},
		{"https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3402&num=0&edition=prelim",
			"§ 3402. Income tax collected at source\n(a) Requirement of withholding\n§ 3403. Liability for tax\n",
			[]string{"§ 3402 https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3402&num=0&edition=prelim", "§ 3403 https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3403&num=0&edition=prelim"}},
		{"https://www.gesetze-im-internet.de/estg/__32a.html",
			"§ 32 Kinder, Freibeträge für Kinder\n(1) Text.\n§ 3 gilt entsprechend.\n§ 32a Einkommensteuertarif\n(1) Die tarifliche Einkommensteuer.\n",
			[]string{"§ 32 https://www.gesetze-im-internet.de/estg/__32.html", "§ 32a https://www.gesetze-im-internet.de/estg/__32a.html"}},
		{"https://www.legislation.govt.nz/act/public/2007/0097/latest/DLM1512301.html",
			"RD 10 Amount of tax for PAYE income payment\n(1) The amount.\nRD 11 Repealed\n[Repealed]\n",
			[]string{"s. RD 10 ", "s. RD 11 "}},
	} {
		var got []string
		for _, p := range Segment(c.text, c.hint) {
			got = append(got, p.ID+" "+p.Address)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.hint, got, c.want)
		}
	}
	if Segment("19 (1) Text.\n", "https://www.example.gov/act") != nil {
		t.Error("a text of no known publisher is segmented")
	}
}
