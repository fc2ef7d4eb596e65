package law

import (
	"reflect"
	"strings"
	"testing"
)

// uscTitle is a piece of Title 26 as uscode.house.gov's USLM writes it:
// sections with identifiers, subsections, a source credit, the editors'
// notes, and a section quoting an amendment.
const uscTitle = `<?xml version="1.0" encoding="UTF-8"?>
<uscDoc xmlns="http://xml.house.gov/schemas/uslm/1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" identifier="/us/usc/t26">
<meta><dc:title>Title 26</dc:title><docPublicationName>Online@119-46</docPublicationName><dcterms:created xmlns:dcterms="http://purl.org/dc/terms/">2026-01-12T10:00:00</dcterms:created></meta>
<main><title identifier="/us/usc/t26"><num value="26">Title 26—</num><heading>INTERNAL REVENUE CODE</heading>
<chapter identifier="/us/usc/t26/stC/ch24"><num value="24">CHAPTER 24—</num><heading>COLLECTION OF INCOME TAX AT SOURCE ON WAGES</heading>
<section identifier="/us/usc/t26/s3401"><num value="3401">§ 3401.</num><heading> Definitions</heading>
<subsection identifier="/us/usc/t26/s3401/a"><num value="a">(a)</num><heading> Wages</heading><content>For purposes of this chapter, the term “wages” means all remuneration.</content></subsection>
<sourceCredit>(Aug. 16, 1954, ch. 736, 68A Stat. 455.)</sourceCredit>
<notes type="uscNote"><note topic="amendments"><heading>Amendments</heading><p>2026—Subsec. (a). Pub. L. 119–46 substituted text.</p></note></notes></section>
<section identifier="/us/usc/t26/s3402"><num value="3402">§ 3402.</num><heading> Income tax collected at source</heading>
<subsection identifier="/us/usc/t26/s3402/a"><num value="a">(a)</num><heading> Requirement of withholding</heading>
<paragraph identifier="/us/usc/t26/s3402/a/1"><num value="1">(1)</num><content>Every employer making payment of wages shall deduct and withhold upon such wages a tax of 22 percent.</content></paragraph></subsection>
<subsection identifier="/us/usc/t26/s3402/b"><num value="b">(b)</num><chapeau>Section 3401 is amended to read:</chapeau><quotedContent><section><num>§ 3403.</num><heading>Quoted</heading><content>Not a section of this title.</content></section></quotedContent></subsection>
<sourceCredit>(Aug. 16, 1954, ch. 736, 68A Stat. 456; Pub. L. 119–46.)</sourceCredit></section>
<section identifier="/us/usc/t26/s3402A" status="repealed"><num value="3402A">§ 3402A.</num><heading> Repealed.</heading></section>
<section identifier="/us/usc/t26/s3403"><num value="3403">§ 3403.</num><heading> Liability for tax</heading><content>The employer shall be liable for the payment of the tax.</content></section>
</chapter></title></main></uscDoc>`

// TestUSCodeTitle: the sections of a Title of the Code are read by
// their identifiers ("§ 3402"), addressed at uscode.house.gov, without
// the editors' notes and publication metadata; a section quoted in an
// amendment is none of the title's; Segment of the view agrees.
func TestUSCodeTitle(t *testing.T) {
	ps, got := readRows(t, uscTitle)
	want := []string{
		"§ 3401 | Definitions | https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3401&num=0&edition=prelim",
		"§ 3402 | Income tax collected at source | https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3402&num=0&edition=prelim",
		"§ 3402A | Repealed. | https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3402A&num=0&edition=prelim",
		"§ 3403 | Liability for tax | https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section3403&num=0&edition=prelim",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("provisions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !ps[2].Repealed || ps[1].Repealed {
		t.Errorf("repealed: § 3402 %v, § 3402A %v", ps[1].Repealed, ps[2].Repealed)
	}
	view := viewOf(t, []byte(uscTitle))
	for _, bad := range []string{"Pub. L. 119–46 substituted", "Online@119-46", "2026-01-12"} {
		if strings.Contains(view, bad) {
			t.Errorf("the view holds %q:\n%s", bad, view)
		}
	}
	if !strings.Contains(view, "\n(1) Every employer making payment of wages shall deduct and withhold upon such wages a tax of 22 percent.\n") {
		t.Errorf("the view:\n%s", view)
	}
	segmentsAsRead(t, view, "https://uscode.house.gov/download/releasepoints/us/pl/119/46/xml_usc26@119-46.zip", ps)
}
