package changedoc

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/law"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// realAct is a real consolidation of a Canadian Act as Justice Canada
// serves it (package law's testdata).
func realAct(tb testing.TB, name string) []byte {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "law", "testdata", "justicecanada", name+".xml.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func lawText(tb testing.TB, raw []byte) string {
	tb.Helper()
	res := textview.Extract(context.Background(), raw, "application/xml", textview.Limits{})
	if !res.OK() || res.Kind != textview.KindLaw {
		tb.Fatalf("kind %s: %s", res.Kind, res.Reason)
	}
	return res.Text
}

func lawInput(url, oldText, newText string) Input {
	a, b := sumOf(oldText), sumOf(newText)
	return Input{
		Source: "ca-act", URL: url, Date: "2026-05-29",
		Old:     store.Entry{SHA256: a, Size: int64(len(oldText)), ContentType: "application/xml", FirstSeen: "2025-07-31"},
		New:     store.Entry{SHA256: b, Size: int64(len(newText)), ContentType: "application/xml", FirstSeen: "2026-05-29"},
		OldText: oldText, NewText: newText, TextOK: true,
	}
}

// TestRealActsChangeDocuments: the change documents of the real pairs
// name the provisions the XML's own sections say changed (package law's
// TestRealConsolidationsChangedProvisions computes them from the XML),
// with the publisher's address of each, and a consolidation that changed
// no section is TextSame.
func TestRealActsChangeDocuments(t *testing.T) {
	for _, c := range []struct {
		act, from, to string
		want          string
	}{
		// 44.2 held only its repeal note before; 187 to 194 are sections
		// of 2024, c. 17 that came into force, so the consolidation no
		// longer reproduces them as amendments not in force.
		{"C-8", "2024-09-10", "2025-02-06", "s. 42 amended; s. 44.2 added; s. 57 amended; s. 59 amended; s. 73 amended; s. 76 amended; 2024, c. 17, s. 187 repealed; 2024, c. 17, s. 188 repealed; 2024, c. 17, s. 189 repealed; 2024, c. 17, s. 190 repealed; 2024, c. 17, s. 192 repealed; 2024, c. 17, s. 194 repealed"},
		{"O-9", "2025-07-31", "2025-11-04", "s. 11 amended; s. 19 amended; s. 21 amended; 2014, c. 20, s. 371 repealed; 2014, c. 20, s. 372 repealed; 2014, c. 20, s. 373 repealed"},
		{"E-5.6", "2025-07-31", "2026-05-29", "s. 113 amended; s. 114 amended; 2023, c. 26, s. 662 repealed; 2023, c. 26, s. 663 amended"},
		{"C-8", "2025-02-06", "2025-07-31", ""},
	} {
		url := "https://laws-lois.justice.gc.ca/eng/XML/" + c.act + ".xml"
		d := Of(lawInput(url, lawText(t, realAct(t, c.act+"_"+c.from)), lawText(t, realAct(t, c.act+"_"+c.to))))
		if got := d.ProvisionSummary(0); got != c.want {
			t.Errorf("%s %s → %s:\n got %s\nwant %s", c.act, c.from, c.to, got, c.want)
		}
		if c.want == "" {
			if d.Text != TextSame {
				t.Errorf("%s %s → %s changed no section: text %q, want %q", c.act, c.from, c.to, d.Text, TextSame)
			}
			continue
		}
		for _, p := range d.Provisions {
			if strings.HasPrefix(p.ID, "s. ") && p.Address != "https://laws-lois.justice.gc.ca/eng/acts/"+c.act+"/section-"+strings.TrimPrefix(p.ID, "s. ")+".html" {
				t.Errorf("%s: address %q", p.ID, p.Address)
			}
			if p.Old == p.New {
				t.Errorf("%s: the same text on both sides", p.ID)
			}
		}
		for _, f := range d.Figures {
			if strings.Contains(f.Row, "lims") {
				t.Errorf("a figure of markup: %+v", f)
			}
		}
	}
}

// TestProvisionFiguresAreTheProvisions: a rate changed in one section is
// that section's figure, on the line of the whole text it is on.
func TestProvisionFiguresAreTheProvisions(t *testing.T) {
	old := "# Part 1\n1 Short title\nThis is the Act.\n2 Rate\nThe rate is 5% of the amount.\n3 Limit\nThe limit is $1,000.\n"
	cur := strings.Replace(old, "5%", "6%", 1)
	d := Of(lawInput("https://laws-lois.justice.gc.ca/eng/acts/X-1/FullText.html", old, cur))
	if len(d.Provisions) != 1 || d.Provisions[0].ID != "s. 2" || d.Provisions[0].Change != law.Amended {
		t.Fatalf("provisions %+v", d.Provisions)
	}
	fs := d.Provisions[0].Figures
	if len(fs) != 1 || fs[0].Old.Text != "5%" || fs[0].New.Text != "6%" || fs[0].Old.Line != 5 || fs[0].New.Line != 5 {
		t.Errorf("figures %+v", fs)
	}
	if d.Provisions[0].Address != "https://laws-lois.justice.gc.ca/eng/acts/X-1/section-2.html" {
		t.Errorf("address %q", d.Provisions[0].Address)
	}
	// The document names the provisions before its hunks.
	data, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if p, h := bytes.Index(data, []byte(`"provisions"`)), bytes.Index(data, []byte(`"hunks"`)); p < 0 || p > h {
		t.Errorf("provisions at %d, hunks at %d:\n%s", p, h, data)
	}
	// A text of no known publisher is not read as law.
	if d := Of(example("xx", old, cur)); d.Provisions != nil {
		t.Errorf("provisions of a page that is no legislation: %+v", d.Provisions)
	}
}

// synthAct writes a Justice Canada Act of the given sections (label →
// text), in order, with the markup and metadata of the real ones.
func synthAct(sections []synthSection, consolidated string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="utf-8"?><Statute lims:pit-date="%s" lims:current-date="%s" lims:fid="1" lims:id="1" xml:lang="en" xmlns:lims="http://justice.gc.ca/lims">`, consolidated, consolidated)
	fmt.Fprintf(&b, `<Identification><ShortTitle status="official">Synthetic Act</ShortTitle><BillHistory><Stages stage="consolidation"><Date><YYYY>%s</YYYY></Date></Stages></BillHistory><Chapter><ConsolidatedNumber official="yes">S-1</ConsolidatedNumber></Chapter></Identification><Body>`, consolidated[:4])
	for i, s := range sections {
		if i%7 == 0 {
			fmt.Fprintf(&b, `<Heading level="1" lims:fid="h%d"><Label>PART %d</Label><TitleText>Part %d</TitleText></Heading>`, i, i/7+1, i/7+1)
		}
		fmt.Fprintf(&b, `<Section lims:fid="%d%s" lims:lastAmendedDate="%s"><MarginalNote>Note %s</MarginalNote><Label>%s</Label>`, i, consolidated, consolidated, s.label, s.label)
		if s.repealed {
			fmt.Fprintf(&b, `<Text><Repealed>[Repealed, 2025, c. 1, s. %s]</Repealed></Text></Section>`, s.label)
			continue
		}
		for k, sub := range s.subs {
			fmt.Fprintf(&b, `<Subsection lims:id="%d"><Label>(%d)</Label><Text>%s</Text></Subsection>`, k, k+1, sub)
		}
		fmt.Fprintf(&b, `<HistoricalNote><HistoricalNoteSubItem>2019, c. 5, s. %s</HistoricalNoteSubItem></HistoricalNote></Section>`, s.label)
	}
	b.WriteString(`</Body><RecentAmendments><Amendment><AmendmentCitation>2025, c. 1</AmendmentCitation><AmendmentDate>` + consolidated + `</AmendmentDate></Amendment></RecentAmendments></Statute>`)
	return b.String()
}

type synthSection struct {
	label    string
	subs     []string
	repealed bool
}

func synthSentence(r *rand.Rand) string {
	words := []string{"the", "amount", "of", "benefit", "payable", "Minister", "shall", "under", "subsection", "for", "each", "year", "person", "income", "2019", "$1,500", "5%", "section 12", "paragraph (a)"}
	n := 4 + r.IntN(20)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[r.IntN(len(words))]
	}
	return strings.Join(ws, " ") + "."
}

// TestSyntheticActsProperty: random amendments, insertions and repeals
// of random Acts (and a new consolidation date and new lims ids on every
// section) are reported as exactly those provisions, each with its kind.
func TestSyntheticActsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2026))
	for round := range 40 {
		var sections []synthSection
		for i := 1; i <= 20+r.IntN(60); i++ {
			s := synthSection{label: fmt.Sprint(i)}
			for range 1 + r.IntN(4) {
				s.subs = append(s.subs, synthSentence(r))
			}
			sections = append(sections, s)
			if r.IntN(5) == 0 { // an inserted section of the Act's history
				sections = append(sections, synthSection{label: fmt.Sprintf("%d.1", i), subs: []string{synthSentence(r)}})
			}
		}
		want := map[string]string{}
		next := slices.Clone(sections)
		for i := range next {
			next[i].subs = slices.Clone(next[i].subs)
		}
		var inserted []synthSection
		for i := range next {
			id := "s. " + next[i].label
			switch r.IntN(12) {
			case 0:
				k := r.IntN(len(next[i].subs))
				next[i].subs[k] = synthSentence(r) + " As amended."
				want[id] = law.Amended
			case 1:
				next[i].repealed = true
				want[id] = law.Repealed
			case 2:
				ins := synthSection{label: next[i].label + ".01", subs: []string{synthSentence(r)}}
				if !strings.Contains(next[i].label, ".") && !slices.ContainsFunc(next, func(s synthSection) bool { return s.label == ins.label }) {
					inserted = append(inserted, ins)
					want["s. "+ins.label] = law.Added
				}
			}
		}
		for _, ins := range inserted {
			at := slices.IndexFunc(next, func(s synthSection) bool { return s.label+".01" == ins.label })
			next = slices.Insert(next, at+1, ins)
		}
		if r.IntN(3) == 0 && len(next) > 3 { // a section dropped from the consolidation
			k := 1 + r.IntN(len(next)-2)
			if _, touched := want["s. "+next[k].label]; !touched {
				want["s. "+next[k].label] = law.Repealed
				next = slices.Delete(next, k, k+1)
			}
		}
		oldText := lawText(t, []byte(synthAct(sections, "2025-07-31")))
		newText := lawText(t, []byte(synthAct(next, "2026-05-29")))
		d := Of(lawInput("https://laws-lois.justice.gc.ca/eng/XML/S-1.xml", oldText, newText))
		got := map[string]string{}
		for _, p := range d.Provisions {
			got[p.ID] = p.Change
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d:\n got %v\nwant %v", round, got, want)
		}
		if len(want) == 0 && d.Text != TextSame {
			t.Fatalf("round %d: no provision changed, but the text did", round)
		}
	}
}
