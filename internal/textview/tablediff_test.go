package textview

import (
	"bytes"
	"compress/zlib"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of this package's tests")

// editPDF returns raw with the literal string (old) of a page's content
// stream shown as (new) instead, through an incremental update: the
// stream's object is appended again, uncompressed and changed, with a
// cross-reference section for it, as a PDF editor saves a change. The
// original bytes stay as they are.
func editPDF(t *testing.T, raw []byte, old, new string) []byte {
	t.Helper()
	objRe := regexp.MustCompile(`(?s)(\d+) 0 obj\s*(<<.{0,1000}?)stream\r?\n`)
	edited := map[string][]byte{} // object number → its changed stream
	var order []string
	for _, m := range objRe.FindAllSubmatchIndex(raw, -1) {
		if !bytes.Contains(raw[m[4]:m[5]], []byte("FlateDecode")) {
			continue
		}
		zr, err := zlib.NewReader(bytes.NewReader(raw[m[1]:]))
		if err != nil {
			continue
		}
		data, _ := io.ReadAll(zr)
		if !bytes.Contains(data, []byte("("+old+")")) {
			continue
		}
		num := string(raw[m[2]:m[3]])
		if _, ok := edited[num]; !ok {
			order = append(order, num)
		}
		edited[num] = bytes.Replace(data, []byte("("+old+")"), []byte("("+new+")"), 1)
	}
	if len(order) == 0 {
		t.Fatalf("no content stream shows (%s)", old)
	}
	last := func(re string) string {
		all := regexp.MustCompile(re).FindAllSubmatch(raw, -1)
		if len(all) == 0 {
			t.Fatalf("no %s in the PDF", re)
		}
		return string(all[len(all)-1][1])
	}
	root, size, prev := last(`/Root (\d+ \d+ R)`), last(`/Size (\d+)`), last(`startxref\s+(\d+)`)
	out := bytes.Clone(raw)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	offsets := map[string]int{}
	for _, num := range order {
		offsets[num] = len(out)
		out = fmt.Appendf(out, "%s 0 obj\n<< /Length %d >>\nstream\n%s\nendstream\nendobj\n", num, len(edited[num])+1, edited[num])
	}
	xref := len(out)
	out = fmt.Appendf(out, "xref\n0 1\n0000000000 65535 f \n")
	for _, num := range order {
		out = fmt.Appendf(out, "%s 1\n%010d 00000 n \n", num, offsets[num])
	}
	out = fmt.Appendf(out, "trailer\n<< /Size %s /Root %s /Prev %s >>\nstartxref\n%d\n%%%%EOF\n", size, root, prev, xref)
	return out
}

// TestTableChangeGolden: a figure changed in a real table (ICDAR 2013
// us-009, a budget table: the "Total Costs" row's 257,672 becomes 257,872)
// shows in the pull request's diff as its row, with the row's other
// cells, on the old side and on the new.
func TestTableChangeGolden(t *testing.T) {
	if tool := pdftotext(); tool.path == "" {
		t.Skipf("%s: the table diff is that of pdftotext's text (.ci/run installs poppler-utils)", tool.why)
	}
	raw, err := os.ReadFile("testdata/icdar2013/us-009.pdf")
	if err != nil {
		t.Fatal(err)
	}
	changed := editPDF(t, raw, "     257,672 ", "     257,872 ") // as the stream sets it
	c := Compare(t.Context(), nil, Doc{Raw: raw, ContentType: "application/pdf"}, Doc{Raw: changed, ContentType: "application/pdf"},
		"us-009.pdf", "us-009-changed.pdf", Limits{}, DiffOptions{})
	if !c.Changed || c.Diff.Added != 1 || c.Diff.Removed != 1 {
		t.Fatalf("changed %v (%s): %d added, %d removed:\n%s", c.Changed, c.Why, c.Diff.Added, c.Diff.Removed, c.Diff.Unified)
	}
	row := "Total Costs | 3,088,000 | 378,900 | 870,038 | 1,839,062 | %s | 1,581,390"
	for _, want := range []string{"-" + fmt.Sprintf(row, "257,672") + "\n", "+" + fmt.Sprintf(row, "257,872") + "\n"} {
		if !strings.Contains(c.Diff.Unified, want) {
			t.Errorf("the diff has no line %q:\n%s", want, c.Diff.Unified)
		}
	}
	const golden = "testdata/us-009-table-change.diff.md"
	if *update {
		if err := os.WriteFile(golden, []byte(c.Diff.Markdown), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestTableChangeGolden -update writes it)", err)
	}
	if c.Diff.Markdown != string(want) {
		t.Errorf("the diff differs from %s:\n%s", golden, Diff("want", "got", string(want), c.Diff.Markdown, DiffOptions{}).Unified)
	}
}
