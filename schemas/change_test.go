package schemas_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestChangeSchema checks the change documents of changedoc's golden
// files and ones with every field the code writes (figures on one side,
// lines left out, no text), and that the schema is not one that accepts
// anything.
func TestChangeSchema(t *testing.T) {
	sch := schema(t, "change.schema.json")
	golden, err := filepath.Glob(filepath.Join("..", "internal", "changedoc", "testdata", "*.json"))
	if err != nil || len(golden) == 0 {
		t.Fatalf("no golden change documents: %v", err)
	}
	for _, p := range golden {
		if err := sch.Validate(jsonFile(t, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	in := func(oldText, newText string) changedoc.Input {
		return changedoc.Input{
			Source: "uk-rates", URL: "https://www.gov.uk/rates?a=1&b=2", Date: "2026-11-04", Returned: true,
			Old:     store.Entry{SHA256: sumOf([]byte(oldText)), Size: int64(len(oldText)), ContentType: "text/html", FirstSeen: "2026-10-01"},
			New:     store.Entry{SHA256: sumOf([]byte(newText)), Size: int64(len(newText)), FirstSeen: "2026-09-01"},
			OldText: oldText, NewText: newText, TextOK: true,
		}
	}
	var big, big2 strings.Builder
	for i := range 2500 {
		fmt.Fprintf(&big, "row %d | £%d,000 | %d%%\n", i, i, i%40)
		fmt.Fprintf(&big2, "row %d | £%d,500 | %d%%\n", i, i, i%40)
	}
	unreadable := in("a\n", "b\n")
	unreadable.TextOK = false
	docs := []changedoc.Input{
		in("Band | Rate\nBasic rate | 20%\nOld row | -£5 | 2.1.3\n", "Band | Rate\nBasic rate | 21 %\nNew row | 1.234,56 EUR | 3\n"),
		in("", "everything new\n"),
		in("all gone\n", ""),
		in("same\n", "same\n"),
		unreadable,
		in(big.String(), big2.String()),
		in("<Act>"+strings.Repeat("<Text>up to $1,000</Text>", 400)+"\n", "<Act>"+strings.Repeat("<Text>up to $1,050</Text>", 400)+"\n"),
	}
	sawOmitted, sawLong := false, false
	for i, c := range docs {
		d := changedoc.Of(c)
		sawOmitted = sawOmitted || d.OmittedLines > 0 && d.OmittedFigures > 0
		for _, h := range d.Hunks {
			for _, l := range h.Lines {
				sawLong = sawLong || l.OmittedBytes > 0
			}
		}
		data, err := d.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(jsonBytes(t, data)); err != nil {
			t.Errorf("document %d is refused: %v\n%.2000s", i, err, data)
		}
	}
	if !sawOmitted || !sawLong {
		t.Errorf("no example leaves lines and figures out (%v), or a long line's end (%v)", sawOmitted, sawLong)
	}
	good, err := changedoc.Of(docs[0]).JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to string }{
		{`"version": 1`, `"version": 2`},
		{`"text": "changed"`, `"text": "differs"`},
		{`"op": "removed"`, `"op": "-"`},
		{`"value": "21"`, `"value": "2,1"`},
		{`"date": "2026-11-04"`, `"date": "4 Nov 2026"`},
		{`"returned": true`, `"returned": true, "extra": 1`},
		{`"op": "added",`, `"op": "added", "old": 3,`},
	} {
		if !strings.Contains(string(good), tc.from) {
			t.Fatalf("%q is not in the example:\n%s", tc.from, good)
		}
		bad := strings.Replace(string(good), tc.from, tc.to, 1)
		if err := sch.Validate(jsonBytes(t, []byte(bad))); err == nil {
			t.Errorf("%s → %s: accepted", tc.from, tc.to)
		}
	}
}

// TestChangeSchemaProvisions checks a change document of legislation:
// provisions amended (with a figure), added and repealed, each with its
// address; and that the schema refuses a provision's change it does not
// name, or one without its id.
func TestChangeSchemaProvisions(t *testing.T) {
	sch := schema(t, "change.schema.json")
	oldText := "# Part I\n113 Appeal\nAn appeal lies within 30 days.\n662\nSection 113 is replaced.\n663 Payment\nBenefits are paid.\n"
	newText := "# Part I\n113 Appeal\nAn appeal lies within 45 days.\n663 Payment\nBenefits are paid.\n664 New\nA new section.\n"
	d := changedoc.Of(changedoc.Input{
		Source: "ca-ei-act", URL: "https://laws-lois.justice.gc.ca/eng/XML/E-5.6.xml", Date: "2026-05-29",
		Old:     store.Entry{SHA256: sumOf([]byte(oldText)), Size: int64(len(oldText)), ContentType: "application/xml", FirstSeen: "2025-07-31"},
		New:     store.Entry{SHA256: sumOf([]byte(newText)), Size: int64(len(newText)), ContentType: "application/xml", FirstSeen: "2026-05-29"},
		OldText: oldText, NewText: newText, TextOK: true,
	})
	if got := d.ProvisionSummary(0); got != "s. 113 amended; s. 662 repealed; s. 664 added" {
		t.Fatalf("provisions: %s", got)
	}
	good, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(jsonBytes(t, good)); err != nil {
		t.Fatalf("refused: %v\n%s", err, good)
	}
	for _, tc := range []struct{ from, to string }{
		{`"change": "amended"`, `"change": "changed"`},
		{`"id": "s. 113",`, ``},
	} {
		if !strings.Contains(string(good), tc.from) {
			t.Fatalf("%q is not in the example:\n%s", tc.from, good)
		}
		bad := strings.Replace(string(good), tc.from, tc.to, 1)
		if err := sch.Validate(jsonBytes(t, []byte(bad))); err == nil {
			t.Errorf("%s → %s: accepted", tc.from, tc.to)
		}
	}
}
