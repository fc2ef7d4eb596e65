package law

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestAddressesAreWhatReferencesName: the two homes of a provision's
// address agree. Each address a reader gives a provision is one that
// ProvisionOfURL reads back as the same provision, so that a rules
// engine's reference to that page is matched to the provision a change
// document names; and ProvisionAddress, from the whole text's address,
// gives the same page.
func TestAddressesAreWhatReferencesName(t *testing.T) {
	type sample struct{ file, whole string }
	var samples []sample
	for act, dates := range consolidations {
		for _, d := range dates {
			samples = append(samples, sample{filepath.Join("justicecanada", act+"_"+d+".xml.gz"), "https://laws-lois.justice.gc.ca/eng/XML/" + act + ".xml"})
		}
	}
	samples = append(samples,
		sample{filepath.Join("samples", "uksi-2023-1148-excerpt.xml"), "https://www.legislation.gov.uk/uksi/2023/1148/data.xml"},
		sample{filepath.Join("samples", "ECFR-title1_current.xml.gz"), "https://www.ecfr.gov/api/versioner/v1/full/2026-01-01/title-1.xml"},
		sample{filepath.Join("samples", "114publ4-uslm.xml.gz"), ""},
		sample{filepath.Join("samples", "gii-estg-BJNR010050934.xml.gz"), ""},
		sample{filepath.Join("samples", "nz-act-synthetic.xml"), ""},
	)
	for _, s := range samples {
		raw := readSample(t, s.file)
		ps, err := Read(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		addressed, agreed := 0, 0
		for _, p := range ps {
			if p.Address == "" {
				continue
			}
			addressed++
			id, ok := ProvisionOfURL(p.Address)
			if !ok && strings.Contains(p.Address, "legislation.govt.nz") {
				// Its pages are named by an internal id (DLM…), not the
				// label: references to them are matched by address.
				agreed++
				continue
			}
			if !ok || !Covers(p.ID, id) {
				t.Errorf("%s: %s's address %s reads back as %q (%v)", s.file, p.ID, p.Address, id, ok)
				continue
			}
			if s.whole != "" {
				if a, ok := ProvisionAddress(s.whole, p.ID); ok && a != p.Address {
					t.Errorf("%s: %s is at %s by its reader, at %s by ProvisionAddress", s.file, p.ID, p.Address, a)
					continue
				}
			}
			agreed++
		}
		t.Logf("%s: %d provisions, %d with an address, %d agreed", s.file, len(ps), addressed, agreed)
	}
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		id, cited string
		want      bool
	}{
		{"s. 19", "s. 19", true},
		{"s. 19", "s. 190", false},
		{"s. 154 and 155", "s. 155", true},
		{"s. 154 and 155", "s. 156", false},
		{"s. 168 to 186", "s. 170", true},
		{"s. 168 to 186", "s. 186", true},
		{"s. 168 to 186", "s. 187", false},
		{"s. 168 to 186", "s. 168.1", true},
		{"s. 44 to 44.2", "s. 44.3", false},
		{"s. 168 to 186", "reg. 170", false},
		{"Sch. 1 para. 3", "Sch. 1 para. 3", true},
	} {
		if got := Covers(tc.id, tc.cited); got != tc.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tc.id, tc.cited, got, tc.want)
		}
	}
}

// readRows reads an Act and lists its provisions as "ID | heading |
// address", the form the format tests compare.
func readRows(t *testing.T, act string) ([]Provision, []string) {
	t.Helper()
	ps, err := Read(strings.NewReader(act))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, p := range ps {
		rows = append(rows, p.ID+" | "+p.Heading+" | "+p.Address)
	}
	return ps, rows
}

// segmentsAsRead checks that Segment of an Act's view, with the
// publisher's address as its hint, gives the provisions Read gave.
func segmentsAsRead(t *testing.T, view, hint string, read []Provision) {
	t.Helper()
	if seg := Segment(view, hint); !reflect.DeepEqual(seg, read) {
		t.Errorf("Segment of the view:\n%+v\nRead:\n%+v\nview:\n%s", seg, read, view)
	}
}
