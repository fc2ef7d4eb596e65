package law

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzWriteText: no bytes make a reader panic, and what it reads holds
// together: lines without line ends, each provision's text starting with
// its label on the line it says.
func FuzzWriteText(f *testing.F) {
	for _, s := range samples {
		raw := sample(f, s.file)
		f.Add(raw[:min(len(raw), 8<<10)])
	}
	f.Add([]byte(`<Statute xmlns:lims="http://justice.gc.ca/lims"><Body><Section><MarginalNote>Note</MarginalNote><Label>1</Label><Text>Text <Repealed>[Repealed]</Repealed></Text><Subsection><Label>(1)</Label><Text>a</Text></Subsection></Section><Section><Label>* 2 and 3</Label></Section></Body></Statute>`))
	f.Add([]byte(`<dokumente><norm><metadaten><enbez>§ 1</enbez></metadaten><textdaten><text><Content><P>x<BR/>y</P></Content></text></textdaten></norm></dokumente>`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var lines []string
		err := WriteText(bytes.NewReader(raw), func(l string) error {
			if strings.Contains(l, "\n") {
				t.Fatalf("a line with a line end: %q", l)
			}
			lines = append(lines, l)
			return nil
		})
		ps, errRead := Read(bytes.NewReader(raw))
		if (err == nil) != (errRead == nil) {
			t.Fatalf("WriteText: %v; Read: %v", err, errRead)
		}
		for _, p := range ps {
			if p.Line < 1 || p.Line > len(lines) || !strings.HasPrefix(p.Text, lines[p.Line-1]) || !strings.HasPrefix(p.Text, p.Label) {
				t.Fatalf("provision %+v does not start on its line", p)
			}
		}
	})
}

// FuzzSegment: no text makes Segment panic; each provision is a run of
// the text's lines starting with its label.
func FuzzSegment(f *testing.F) {
	f.Add("19 (1) Subject to this Act.\n2024 was the year.\n20 Text\n# PART II\n21 More\n", "https://laws-lois.justice.gc.ca/eng/acts/O-9/FullText.html")
	f.Add("Section 10 Basic rate\n10 text\n# SCHEDULE 1\n1 Para\n", "https://www.legislation.gov.uk/ukpga/2007/3/contents")
	f.Add("§ 3402. Income tax\n§ 3403.\n", "https://uscode.house.gov/download")
	f.Add("§§ 1.1-1.9 [Reserved]\n§ 1.10 Text\n", "https://www.ecfr.gov/current/title-26")
	f.Add("§ 32a Tarif\n> § 33 quoted\n", "https://www.gesetze-im-internet.de/estg/")
	f.Fuzz(func(t *testing.T, text, hint string) {
		for _, p := range Segment(text, hint) {
			if !strings.Contains(text, p.Text) || !strings.HasPrefix(p.Text, p.Label) {
				t.Fatalf("provision %+v is not a run of the text starting with its label", p)
			}
		}
	})
}
