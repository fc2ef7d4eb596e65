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

// consolidations are the real consecutive consolidations in
// testdata/justicecanada (see its README), oldest first per Act.
var consolidations = map[string][]string{
	"C-8":   {"2024-09-10", "2025-02-06", "2025-07-31"},
	"O-9":   {"2025-07-31", "2025-11-04"},
	"E-5.6": {"2025-07-31", "2026-05-29"},
}

func realAct(t testing.TB, act, date string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "justicecanada", act+"_"+date+".xml.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func viewOf(t testing.TB, raw []byte) string {
	t.Helper()
	var b strings.Builder
	if err := WriteText(bytes.NewReader(raw), func(l string) error {
		b.WriteString(l)
		b.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRealActsRoundTrip: of every real consolidation, Segment of the
// text view gives exactly the provisions Read gives, addresses included,
// and the view holds no markup and no lims ids.
func TestRealActsRoundTrip(t *testing.T) {
	for act, dates := range consolidations {
		for _, date := range dates {
			raw := realAct(t, act, date)
			read, err := Read(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			view := viewOf(t, raw)
			hint := "https://laws-lois.justice.gc.ca/eng/XML/" + act + ".xml"
			seg := Segment(view, hint)
			if len(read) < 50 {
				t.Fatalf("%s %s: %d provisions read", act, date, len(read))
			}
			if !reflect.DeepEqual(read, seg) {
				for i := 0; i < len(read) && i < len(seg); i++ {
					if !reflect.DeepEqual(read[i], seg[i]) {
						t.Fatalf("%s %s: provision %d differs:\nRead    %+v\nSegment %+v", act, date, i, read[i], seg[i])
					}
				}
				t.Fatalf("%s %s: Read gives %d provisions, Segment %d", act, date, len(read), len(seg))
			}
			for _, bad := range []string{"<", "lims", "fid="} {
				if strings.Contains(view, bad) {
					t.Errorf("%s %s: the text view holds %q", act, date, bad)
				}
			}
		}
	}
}

// groundTruth reads the outermost <Section>s of a Justice Canada XML
// with encoding/xml, independently of the code under test: each
// section's key (its Label, numbered by occurrence) and its canonical
// text (every character of its content, white space collapsed, no
// attributes).
func groundTruth(t testing.TB, raw []byte) map[string]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff"))))
	out := map[string]string{}
	count := map[string]int{}
	depth, secDepth := 0, -1
	var text strings.Builder
	label, wantLabel := "", false
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
			if secDepth < 0 && e.Name.Local == "Section" {
				secDepth, label = depth, ""
				text.Reset()
			}
			if secDepth >= 0 && depth == secDepth+1 && e.Name.Local == "Label" {
				wantLabel = true
			}
		case xml.EndElement:
			if depth == secDepth {
				count[label]++
				key := label
				if n := count[label]; n > 1 {
					key += "#" + string(rune('0'+n))
				}
				out[key] = strings.Join(strings.Fields(text.String()), " ")
				secDepth = -1
			}
			depth--
			wantLabel = false
		case xml.CharData:
			if wantLabel {
				label += string(e)
			}
			if secDepth >= 0 {
				text.WriteString(string(e))
				text.WriteByte(' ')
			}
		}
	}
	return out
}

// changedByTruth lists the keys of sections whose text differs, or that
// only one side has.
func changedByTruth(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// changedByCode lists the provisions Diff reports, by label and
// occurrence, as groundTruth keys them.
func changedByCode(old, new []Provision) []string {
	keys := map[*Provision]string{}
	for _, ps := range [][]Provision{old, new} {
		count := map[string]int{}
		for i := range ps {
			label := ps[i].Label
			count[label]++
			key := label
			if n := count[label]; n > 1 {
				key += "#" + string(rune('0'+n))
			}
			keys[&ps[i]] = key
		}
	}
	var out []string
	for _, c := range Diff(old, new) {
		p := c.New
		if p == nil {
			p = c.Old
		}
		out = append(out, keys[p])
	}
	sort.Strings(out)
	return out
}

// TestRealConsolidationsChangedProvisions holds Diff of the provisions
// read to the sections whose XML changed, for every consecutive pair:
// precision and recall 1.
func TestRealConsolidationsChangedProvisions(t *testing.T) {
	for _, act := range []string{"C-8", "O-9", "E-5.6"} {
		dates := consolidations[act]
		for i := 0; i+1 < len(dates); i++ {
			oldRaw, newRaw := realAct(t, act, dates[i]), realAct(t, act, dates[i+1])
			truth := changedByTruth(groundTruth(t, oldRaw), groundTruth(t, newRaw))
			oldP, err := Read(bytes.NewReader(oldRaw))
			if err != nil {
				t.Fatal(err)
			}
			newP, err := Read(bytes.NewReader(newRaw))
			if err != nil {
				t.Fatal(err)
			}
			got := changedByCode(oldP, newP)
			p, r := precisionRecall(got, truth)
			t.Logf("%s %s → %s: %d changed sections in the XML %v; reported %v; precision %.2f recall %.2f", act, dates[i], dates[i+1], len(truth), truth, got, p, r)
			if p != 1 || r != 1 {
				t.Errorf("%s %s → %s: precision %.2f, recall %.2f", act, dates[i], dates[i+1], p, r)
			}
		}
	}
}

func precisionRecall(got, want []string) (float64, float64) {
	in := map[string]bool{}
	for _, w := range want {
		in[w] = true
	}
	hit := 0
	for _, g := range got {
		if in[g] {
			hit++
		}
	}
	p, r := 1.0, 1.0
	if len(got) > 0 {
		p = float64(hit) / float64(len(got))
	}
	if len(want) > 0 {
		r = float64(hit) / float64(len(want))
	}
	return p, r
}
