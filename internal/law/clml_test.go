package law

import (
	"reflect"
	"strings"
	"testing"
)

// clmlAct is an Act as legislation.gov.uk's data.xml writes one: its
// provisions carry IdURI, a Part heads some, a schedule numbers its
// paragraphs anew, one section is repealed, one amends another Act.
const clmlAct = `<?xml version="1.0" encoding="UTF-8"?>
<Legislation xmlns="http://www.legislation.gov.uk/namespaces/legislation" xmlns:ukm="http://www.legislation.gov.uk/namespaces/metadata" xmlns:dc="http://purl.org/dc/elements/1.1/" DocumentURI="http://www.legislation.gov.uk/ukpga/2007/3" IdURI="http://www.legislation.gov.uk/id/ukpga/2007/3" RestrictStartDate="2026-04-06">
<ukm:Metadata><dc:identifier>http://www.legislation.gov.uk/ukpga/2007/3</dc:identifier><dc:modified>2026-04-06</dc:modified><ukm:PrimaryMetadata><ukm:DocumentClassification><ukm:DocumentCategory Value="primary"/></ukm:DocumentClassification></ukm:PrimaryMetadata></ukm:Metadata>
<Primary><PrimaryPrelims><Title>Income Tax Act 2007</Title><Number>2007 CHAPTER 3</Number></PrimaryPrelims>
<Body>
<Part id="part-2" IdURI="http://www.legislation.gov.uk/id/ukpga/2007/3/part/2"><Number>PART 2</Number><Title>Basic provisions</Title>
<P1group><Title>Income charged at the basic rate</Title>
<P1 id="section-10" IdURI="http://www.legislation.gov.uk/id/ukpga/2007/3/section/10" RestrictStartDate="2026-04-06"><Pnumber>10</Pnumber>
<P1para><P2 id="section-10-1"><Pnumber>1</Pnumber><P2para><Text>Income up to the basic rate limit of <Addition ChangeId="x" CommentaryRef="c1">£37,700</Addition> is charged at the basic rate.</Text></P2para></P2>
<P2 id="section-10-2"><Pnumber>2</Pnumber><P2para><Text>10 per cent of it is exempt.</Text></P2para></P2></P1para></P1></P1group>
<P1group><Title>Section 10A</Title><P1 id="section-10A" IdURI="http://www.legislation.gov.uk/id/ukpga/2007/3/section/10A"><Pnumber>10A</Pnumber><P1para><Text>(Repealed)</Text></P1para></P1></P1group>
<P1group><Title>Amendment of ITEPA 2003</Title><P1 id="section-11" IdURI="http://www.legislation.gov.uk/id/ukpga/2007/3/section/11"><Pnumber>11</Pnumber><P1para><Text>After section 5 insert—</Text>
<BlockAmendment><P1group><Title>New</Title><P1><Pnumber>5A</Pnumber><P1para><Text>12 Text of the new section.</Text></P1para></P1></P1group></BlockAmendment></P1para></P1></P1group>
</Part></Body>
<Schedules><Schedule id="schedule-1" IdURI="http://www.legislation.gov.uk/id/ukpga/2007/3/schedule/1"><Number>SCHEDULE 1</Number><TitleBlock><Title>Minor amendments</Title></TitleBlock>
<ScheduleBody><P1group><Title>First</Title><P1 id="schedule-1-paragraph-1" IdURI="http://www.legislation.gov.uk/id/ukpga/2007/3/schedule/1/paragraph/1"><Pnumber>1</Pnumber><P1para><Text>In section 10, for "£37,500" substitute "£37,700".</Text></P1para></P1></P1group>
<P1group><Title>Second</Title><P1 id="schedule-1-paragraph-2" IdURI="http://www.legislation.gov.uk/id/ukpga/2007/3/schedule/1/paragraph/2"><Pnumber>2</Pnumber><P1para><Text>Omit section 10A.</Text></P1para></P1></P1group></ScheduleBody></Schedule></Schedules>
</Primary>
<Commentaries><Commentary id="c1"><Para><Text>Words in s. 10(1) substituted (6.4.2026) by Finance Act 2026.</Text></Para></Commentary></Commentaries>
</Legislation>`

// TestCLMLAct: an Act in CLML is read as its sections and its
// schedule's paragraphs, named and addressed as legislation.gov.uk
// does, the editors' commentaries left out; Segment of its view gives
// the same.
func TestCLMLAct(t *testing.T) {
	ps, got := readRows(t, clmlAct)
	want := []string{
		"s. 10 | Income charged at the basic rate | https://www.legislation.gov.uk/ukpga/2007/3/section/10",
		"s. 10A | Section 10A | https://www.legislation.gov.uk/ukpga/2007/3/section/10A",
		"s. 11 | Amendment of ITEPA 2003 | https://www.legislation.gov.uk/ukpga/2007/3/section/11",
		"Sch. 1 para. 1 | First | https://www.legislation.gov.uk/ukpga/2007/3/schedule/1/paragraph/1",
		"Sch. 1 para. 2 | Second | https://www.legislation.gov.uk/ukpga/2007/3/schedule/1/paragraph/2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("provisions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !ps[1].Repealed || ps[0].Repealed {
		t.Errorf("repealed: %v %v", ps[0].Repealed, ps[1].Repealed)
	}
	view := viewOf(t, []byte(clmlAct))
	for _, bad := range []string{"substituted (6.4.2026)", "2026-04-06", "<"} {
		if strings.Contains(view, bad) {
			t.Errorf("the view holds %q:\n%s", bad, view)
		}
	}
	if !strings.Contains(view, "\n10 Income charged at the basic rate\n(1) Income up to the basic rate limit of £37,700 is charged at the basic rate.\n(2) 10 per cent of it is exempt.\n") {
		t.Errorf("section 10 reads:\n%s", view)
	}
	segmentsAsRead(t, view, "https://www.legislation.gov.uk/ukpga/2007/3/data.xml", ps)
}
