package textview

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// realAct is a real consolidation of a Canadian Act, as Justice Canada
// serves it (package law's testdata).
func realAct(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "law", "testdata", "justicecanada", name+".xml.gz"))
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

// TestLawXMLIsReadAsLaw: Justice Canada's XML, however it is served, is
// the law's text: no markup, no lims ids, each section on a line that
// starts with its label.
func TestLawXMLIsReadAsLaw(t *testing.T) {
	raw := realAct(t, "O-9_2025-11-04")
	for _, ct := range []string{"application/xml", "text/xml; charset=utf-8", "", "application/octet-stream", "text/plain"} {
		res := Extract(context.Background(), raw, ct, Limits{})
		if !res.OK() || res.Kind != KindLaw {
			t.Fatalf("%q: kind %s, reason %q", ct, res.Kind, res.Reason)
		}
		for _, bad := range []string{"<Section", "lims:", "387582", "</"} {
			if strings.Contains(res.Text, bad) {
				t.Errorf("%q: the text holds %q", ct, bad)
			}
		}
		for _, want := range []string{"\n19 ", "\n44.2 ", "\n1 Short title\nThis Act may be cited as the Old Age Security Act.\n"} {
			if !strings.Contains(res.Text, want) {
				t.Errorf("%q: no line %q in the text", ct, want)
			}
		}
	}
}

// TestLawMetadataAloneIsNoChange is the control: a consolidation whose
// metadata alone differs (dates, lims ids, the list of recent
// amendments) has the same text, both as a rewrite of a real Act's
// metadata and between two real consolidations that changed no section.
func TestLawMetadataAloneIsNoChange(t *testing.T) {
	raw := string(realAct(t, "O-9_2025-11-04"))
	meta := regexp.MustCompile(`lims:(fid|id|current-date|pit-date|lastAmendedDate|inforce-start-date)="[^"]*"`)
	rewritten := meta.ReplaceAllStringFunc(raw, func(a string) string {
		name, _, _ := strings.Cut(a, "=")
		return name + `="9` + a[len(name)+2:]
	})
	rewritten = strings.Replace(rewritten, "<YYYY>2025</YYYY><MM>10</MM><DD>15</DD>", "<YYYY>2026</YYYY><MM>01</MM><DD>02</DD>", 1)
	rewritten = strings.Replace(rewritten, "<AmendmentDate>2025-10-01</AmendmentDate>", "<AmendmentDate>2025-10-02</AmendmentDate>", 1)
	if rewritten == raw {
		t.Fatal("the rewrite changed nothing")
	}
	a := Extract(context.Background(), []byte(raw), "application/xml", Limits{})
	b := Extract(context.Background(), []byte(rewritten), "application/xml", Limits{})
	if !a.OK() || a.Text == "" || a.Text != b.Text {
		t.Errorf("a change of metadata alone changed the text (%q, %q)", a.Reason, b.Reason)
	}

	older := Extract(context.Background(), realAct(t, "C-8_2025-02-06"), "application/xml", Limits{})
	newer := Extract(context.Background(), realAct(t, "C-8_2025-07-31"), "application/xml", Limits{})
	if !older.OK() || older.Text != newer.Text {
		t.Errorf("CPP 2025-02-06 → 2025-07-31 changed no section, but the texts differ")
	}
	if older.Text == "" {
		t.Error("no text")
	}
}

// TestOtherXMLStaysText: XML that is no legislation is text as before.
func TestOtherXMLStaysText(t *testing.T) {
	res := Extract(context.Background(), []byte(`<?xml version="1.0"?><rates><rate>20%</rate></rates>`), "application/xml", Limits{})
	if res.Kind != KindText {
		t.Errorf("kind %s", res.Kind)
	}
}

// TestZippedLawIsReadAsLaw: gesetze-im-internet.de's xml.zip (a ZIP of
// one XML file; here the real Einkommensteuergesetz) is read as the law
// inside it, served as a ZIP or as bytes of no type; an archive
// inflating past the limit is refused.
func TestZippedLawIsReadAsLaw(t *testing.T) {
	gz, err := os.Open(filepath.Join("..", "law", "testdata", "samples", "gii-estg-BJNR010050934.xml.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	xml, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("BJNR010050934.xml")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(xml)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ct := range []string{"application/zip", "application/octet-stream", ""} {
		res := Extract(context.Background(), buf.Bytes(), ct, Limits{})
		if !res.OK() || res.Kind != KindLaw || !strings.Contains(res.Text, "\n§ 32a Einkommensteuertarif\n") {
			t.Errorf("%q: kind %s, reason %q, text %.200q", ct, res.Kind, res.Reason, res.Text)
		}
	}
	res := Extract(context.Background(), buf.Bytes(), "application/zip", Limits{MaxInput: 1 << 20})
	if res.OK() || !strings.Contains(res.Reason, "inflates past 1048576 bytes") {
		t.Errorf("an archive inflating past the limit: %+v", res)
	}
}
