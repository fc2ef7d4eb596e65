package law

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomAct writes a Justice Canada Act of random sections: numbers
// that increase with inserted ones (12.1, 12.01), marginal notes or
// none, subsections and paragraphs, definitions, sentences that begin
// with a year or an amount, repealed sections, Part headings, a table,
// quoted text of an amendment, and related provisions of another Act.
func randomAct(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><Statute xmlns:lims="http://justice.gc.ca/lims" lims:id="1" xml:lang="en"><Identification><ShortTitle>Random Act</ShortTitle><Chapter><ConsolidatedNumber official="yes">R-1</ConsolidatedNumber></Chapter></Identification><Body>`)
	sentence := func() string {
		// Sentences that begin with a figure: a year, an amount, a
		// number that is also a section's ("5 per cent"). One that
		// begins with the number of the section after its own, when it
		// is the last of a part ("12 months after …" as the text of
		// section 11, the Act's last), reads in any text as that
		// section: no reader of the text can tell, so none is made.
		starts := []string{"The Minister", "2024 is the year in which", "5 per cent of", "$1,000 is", "Subject to section 3,", "90 days after", "12 months after"}
		return starts[r.IntN(len(starts))] + " " + strings.Repeat("the amount payable ", 1+r.IntN(4)) + "."
	}
	last := 10 + r.IntN(40)
	n := 0
	for i := 1; i <= last; i++ {
		labels := []string{fmt.Sprint(i)}
		if r.IntN(4) == 0 {
			labels = append(labels, fmt.Sprintf("%d.01", i), fmt.Sprintf("%d.1", i))
		}
		for _, label := range labels {
			n++
			if n%9 == 0 {
				fmt.Fprintf(&b, `<Heading level="1"><Label>PART %d</Label><TitleText>Part %d</TitleText></Heading>`, n/9, n/9)
			}
			b.WriteString(`<Section lims:id="x">`)
			if r.IntN(3) > 0 {
				fmt.Fprintf(&b, `<MarginalNote>Note on %s</MarginalNote>`, label)
			}
			fmt.Fprintf(&b, `<Label>%s</Label>`, label)
			// The last section's text begins with no number of the
			// next (see sentence).
			text := func() string {
				for {
					if t := sentence(); i < last || !strings.HasPrefix(t, fmt.Sprint(i+1)+" ") {
						return t
					}
				}
			}
			switch r.IntN(6) {
			case 0:
				b.WriteString(`<Text><Repealed>[Repealed, 2019, c. 29, s. 10]</Repealed></Text>`)
			case 1:
				fmt.Fprintf(&b, `<Text>%s</Text><TableGroup><table><tgroup><tbody><row><entry>2019</entry><entry>1.9</entry></row><row><entry>2020 and later</entry><entry>4.95</entry></row></tbody></tgroup></table></TableGroup>`, text())
			case 2:
				fmt.Fprintf(&b, `<Text>Section 4 is replaced by the following:</Text><AmendedText><Section><Label>4</Label><Text>%s</Text></Section></AmendedText>`, text())
			default:
				for k := 1; k <= 1+r.IntN(3); k++ {
					fmt.Fprintf(&b, `<Subsection><Label>(%d)</Label><Text>%s</Text>`, k, text())
					if r.IntN(2) == 0 {
						fmt.Fprintf(&b, `<Paragraph><Label>(a)</Label><Text>%s</Text></Paragraph>`, text())
					}
					b.WriteString(`</Subsection>`)
				}
			}
			b.WriteString(`<HistoricalNote><HistoricalNoteSubItem>2012, c. 19, s. 1</HistoricalNoteSubItem></HistoricalNote></Section>`)
		}
	}
	b.WriteString(`</Body><Schedule><RelatedOrNotInForce><Heading><TitleText>AMENDMENTS NOT IN FORCE</TitleText></Heading>`)
	for k := range r.IntN(3) {
		fmt.Fprintf(&b, `<BillPiece><Heading><TitleText>— 2024, c. 17, s. %d</TitleText></Heading><Section><Label>%d</Label><Text>%s</Text></Section></BillPiece>`, 300-k*50, 300-k*50, sentence())
	}
	b.WriteString(`</RelatedOrNotInForce></Schedule></Statute>`)
	return b.String()
}

// TestRandomActsRoundTrip: of random Acts, Segment of the text view
// gives exactly the provisions Read gives.
func TestRandomActsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 1))
	for round := range 200 {
		act := randomAct(r)
		read, err := Read(strings.NewReader(act))
		if err != nil {
			t.Fatal(err)
		}
		view := viewOf(t, []byte(act))
		seg := Segment(view, "https://laws-lois.justice.gc.ca/eng/XML/R-1.xml")
		if !reflect.DeepEqual(read, seg) {
			for i := 0; i < len(read) && i < len(seg); i++ {
				if !reflect.DeepEqual(read[i], seg[i]) {
					t.Fatalf("round %d: provision %d:\nRead    %+v\nSegment %+v\nview:\n%s", round, i, read[i], seg[i], view)
				}
			}
			t.Fatalf("round %d: Read gives %d provisions, Segment %d\nview:\n%s", round, len(read), len(seg), view)
		}
	}
}
