package textview

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

func TestExtractHTMLGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/rates.html")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/rates.html.txt")
	if err != nil {
		t.Fatal(err)
	}
	res := Extract(t.Context(), raw, "text/html; charset=utf-8", Limits{})
	if res.Kind != KindHTML || !res.OK() {
		t.Fatalf("kind %s, reason %q", res.Kind, res.Reason)
	}
	if res.Text != string(want) {
		t.Errorf("text view differs from testdata/rates.html.txt:\n%s", Diff("want", "got", string(want), res.Text, DiffOptions{}).Markdown)
	}
	for _, never := range []string{"csrf", "a6f8e4c6d5cf", "buildId", "color: red", "rendered by node", "Draft", "Loading", "zz9", "search", "Enable JavaScript"} {
		if strings.Contains(res.Text, never) {
			t.Errorf("text view holds %q, which no reader sees", never)
		}
	}
}

func TestExtractHTMLCharset(t *testing.T) {
	// Latin-1 bytes for "£37,700", declared in the Content-Type only.
	raw := []byte("<p>Basic rate limit: \xa337,700</p>")
	res := Extract(t.Context(), raw, "text/html; charset=iso-8859-1", Limits{})
	if res.Text != "Basic rate limit: £37,700\n" {
		t.Errorf("got %q", res.Text)
	}
}

// TestExtractPDF is the built-in extractor, used where pdftotext is not.
func TestExtractPDF(t *testing.T) {
	t.Setenv(PDFToTextEnv, "off")
	raw := makePDF(t, tablePage, columnsPage, mixedPage)
	res := Extract(t.Context(), raw, "application/pdf", Limits{})
	if !res.OK() || res.Kind != KindPDF {
		t.Fatalf("kind %s, reason %q", res.Kind, res.Reason)
	}
	lines := strings.Split(res.Text, "\n")
	index := func(s string, from int) int {
		for i := from; i < len(lines); i++ {
			if lines[i] == s {
				return i
			}
		}
		return -1
	}
	// Table rows keep their figures on the label's line.
	for _, row := range []string{
		"Band | Taxable income | Tax rate",
		"Basic rate | £12,571 to £50,270 | 20%",
		"Additional rate | over £125,140 | 45%",
	} {
		if index(row, 0) < 0 {
			t.Errorf("no line %q in:\n%s", row, res.Text)
		}
	}
	// Two columns: the whole left column comes before the right one, on
	// page 2 and on page 3 (under a heading, above a table).
	for _, page := range []string{"[page 2]", "[page 3]"} {
		p := index(page, 0)
		left := index("The basic rate applies to taxable income above the", p)
		leftEnd := index("total.", left)
		right := index("Employers deduct tax through the payroll each", p)
		if p < 0 || left < 0 || leftEnd < 0 || right < 0 || !(p < left && left < leftEnd && leftEnd < right) {
			t.Errorf("%s: columns not read in order (page %d, left %d..%d, right %d):\n%s", page, p, left, leftEnd, right, res.Text)
		}
	}
	if p3, tbl := index("[page 3]", 0), index("Guidance and rates", 0); tbl != p3+1 {
		t.Errorf("page 3 does not start with its heading:\n%s", res.Text)
	}
}

func TestExtractPlainAndCSV(t *testing.T) {
	tests := []struct {
		ct   string
		raw  string
		kind Kind
		want string
	}{
		{"text/csv", "band,rate\r\nbasic,20%\r\n\"higher, over £50,270\",40%\r\n", KindCSV, "band,rate\nbasic,20%\n\"higher, over £50,270\",40%\n"},
		{"text/tab-separated-values", "band\trate\nbasic\t20%", KindTSV, "band\trate\nbasic\t20%\n"},
		{"text/plain; charset=windows-1252", "Allowance \xa312,570", KindText, "Allowance £12,570\n"},
		{"text/plain", "\ufeffone\rtwo\n\nthree\n", KindText, "one\ntwo\n\nthree\n"},
		{"", "plain words, no type\n", KindText, "plain words, no type\n"},
	}
	for _, tt := range tests {
		res := Extract(t.Context(), []byte(tt.raw), tt.ct, Limits{})
		if res.Kind != tt.kind || res.Text != tt.want || !res.OK() {
			t.Errorf("%q: got %s %q (reason %q), want %s %q", tt.ct, res.Kind, res.Text, res.Reason, tt.kind, tt.want)
		}
	}
}

func TestExtractXLSX(t *testing.T) {
	raw := makeXLSX(t)
	for _, ct := range []string{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/octet-stream"} {
		res := Extract(t.Context(), raw, ct, Limits{})
		want := "[sheet Rates]\nBand | Rate | Threshold\nBasic | 20% | 12571\nHigher | 40% | 50271\n[sheet Notes]\n | Scottish rates differ\n"
		if res.Kind != KindXLSX || res.Text != want || !res.OK() {
			t.Errorf("%s: got %s %q (reason %q), want %q", ct, res.Kind, res.Text, res.Reason, want)
		}
	}
}

func makeXLSX(t testing.TB) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "Rates"); err != nil {
		t.Fatal(err)
	}
	rows := [][]any{{"Band", "Rate", "Threshold"}, {"Basic", "20%", 12571}, {"Higher", "40%", 50271}}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Rates", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.NewSheet("Notes"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetCellValue("Notes", "B1", "Scottish   rates differ"); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestExtractNoText(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	tests := []struct {
		ct, raw, reason string
	}{
		{"image/png", string(png), "no text extractor for image/png"},
		{"application/msword", "\xd0\xcf\x11\xe0", "no text extractor for application/msword"},
		{"application/octet-stream", string(png), "they look like image/png"},
		{"application/pdf", "%PDF-1.7\nnot really a pdf", "cannot read the pdf"},
		{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "PK\x03\x04broken", "cannot read the xlsx"},
	}
	for _, tt := range tests {
		res := Extract(t.Context(), []byte(tt.raw), tt.ct, Limits{})
		if res.Text != "" || !strings.Contains(res.Reason, tt.reason) {
			t.Errorf("%s: got text %q, reason %q; want a reason with %q", tt.ct, res.Text, res.Reason, tt.reason)
		}
	}
}

func TestExtractLimits(t *testing.T) {
	page := []byte(strings.Repeat("<p>Basic rate 20%</p>\n", 100))
	res := Extract(t.Context(), page, "text/html", Limits{MaxInput: 100})
	if res.Text != "" || !strings.Contains(res.Reason, "over the 100-byte limit") {
		t.Errorf("MaxInput: got %q, %q", res.Text, res.Reason)
	}
	res = Extract(t.Context(), page, "text/html", Limits{MaxText: 50})
	if res.Text != "Basic rate 20%\nBasic rate 20%\nBasic rate 20%\n" || !res.Truncated || !strings.Contains(res.Reason, "text cut after 45 bytes") {
		t.Errorf("MaxText: got %q, truncated %v, %q", res.Text, res.Truncated, res.Reason)
	}
	res = Extract(t.Context(), makePDF(t, tablePage, tablePage, tablePage), "application/pdf", Limits{MaxPages: 2})
	if strings.Count(res.Text, "[page ") != 2 || !res.Truncated || !strings.Contains(res.Reason, "first 2 pages") {
		t.Errorf("MaxPages: got %q, truncated %v, %q", res.Text, res.Truncated, res.Reason)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res = Extract(ctx, page, "text/html", Limits{})
	if res.Text != "" || !strings.Contains(res.Reason, "did not finish in time") && !strings.Contains(res.Reason, "stopped") {
		t.Errorf("cancelled: got %q, %q", res.Text, res.Reason)
	}
}

// TestExtractAbandonsStuckExtractor: an extractor that never returns (a
// library looping on damaged bytes) costs the caller the deadline, not the
// run.
func TestExtractAbandonsStuckExtractor(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	stuck := func(context.Context, []byte, string, *View, Limits, *lines) error {
		close(started)
		<-release // ignores its context, as a library does
		return nil
	}
	old := extractors[KindPDF]
	extractors[KindPDF] = stuck
	isolate = false
	t.Setenv(PDFToTextEnv, "off")
	defer func() { extractors[KindPDF], isolate = old, true }()

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started // stopped while extracting, not before
		cancel()
	}()
	res := Extract(ctx, []byte("%PDF-1.7"), "application/pdf", Limits{})
	if res.Text != "" || !strings.Contains(res.Reason, "did not finish in time") {
		t.Errorf("got %q, %q", res.Text, res.Reason)
	}
}

func TestExtractRecoversPanics(t *testing.T) {
	old := extractors[KindHTML]
	extractors[KindHTML] = func(context.Context, []byte, string, *View, Limits, *lines) error {
		var m map[string]int
		//lint:ignore SA5000 a nil-map panic, as a library bug would
		m["boom"]++
		return nil
	}
	isolate = false
	defer func() { extractors[KindHTML], isolate = old, true }()
	res := Extract(t.Context(), []byte("<p>x</p>"), "text/html", Limits{})
	if res.Text != "" || !strings.Contains(res.Reason, "the html extractor failed on these bytes") {
		t.Errorf("got %q, %q", res.Text, res.Reason)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add([]byte("<table><tr><td>a<td>b</table>"), "text/html")
	f.Add(makePDF(f, tablePage), "application/pdf")
	f.Add([]byte("a,b\n1,2"), "text/csv")
	f.Add([]byte(`<Statute xmlns:lims="http://justice.gc.ca/lims"><Body><Section><Label>1</Label><Text>x</Text></Section></Body></Statute>`), "application/xml")
	f.Add([]byte("PK\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00a.xml"), "")
	f.Fuzz(func(t *testing.T, raw []byte, ct string) {
		res := Extract(t.Context(), raw, ct, Limits{MaxText: 1 << 20})
		if res.Text == "" && res.Reason == "" && res.Kind == KindNone {
			t.Errorf("kind none without a reason")
		}
		if len(res.Text) > 1<<20 {
			t.Errorf("text over the limit: %d bytes", len(res.Text))
		}
	})
}

// TestExtractHTMLNoBreakSpaceBetweenElements: a no-break space that opens
// or closes a text node still separates words ("£50,271&nbsp;to").
func TestExtractHTMLNoBreakSpaceBetweenElements(t *testing.T) {
	raw := []byte("<p><span>£50,271</span>&nbsp;to&nbsp;<span>£125,140</span></p>")
	if res := Extract(t.Context(), raw, "text/html", Limits{}); res.Text != "£50,271 to £125,140\n" {
		t.Errorf("got %q", res.Text)
	}
}

// A library's panic may quote the damaged bytes (the PDF library's
// "malformed hex string" does, whole); the Reason, kept beside the text
// and shown in pull requests, quotes only the start of it, as text.
func TestExtractPanicReasonIsShort(t *testing.T) {
	old := extractors[KindHTML]
	extractors[KindHTML] = func(context.Context, []byte, string, *View, Limits, *lines) error {
		panic("malformed hex string " + strings.Repeat("\x10\xff\xfe binary ", 2000))
	}
	isolate = false
	defer func() { extractors[KindHTML], isolate = old, true }()
	res := Extract(t.Context(), []byte("<p>x</p>"), "text/html", Limits{})
	if !strings.Contains(res.Reason, "malformed hex string") || len(res.Reason) > 600 || !utf8.ValidString(res.Reason) {
		t.Errorf("reason of %d bytes (valid UTF-8: %v): %.300q", len(res.Reason), utf8.ValidString(res.Reason), res.Reason)
	}
}

// A plain text extracted in a child process is collected in one buffer
// of its size, not grown line by line into it (a text of 20 MB was copied
// five times over): about twice its size, with the lines as read.
func TestPlainTextFromTheChildIsHeldOnce(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "Section %d. The rate of tax for the year is 20 per cent.\n", i)
	}
	raw := []byte(b.String())
	var res Result
	n := allocatedBy(func() {
		res = ExtractDoc(context.Background(), Doc{Raw: raw, ContentType: "text/plain; charset=utf-8"}, Limits{})
	})
	if !res.OK() || len(res.Text) < len(raw)*9/10 {
		t.Fatalf("extracted %d bytes (%s), want about %d", len(res.Text), res.Reason, len(raw))
	}
	if n > uint64(len(raw))*3 {
		t.Errorf("allocated %d bytes to collect a text of %d bytes from the child", n, len(res.Text))
	}
}

// Whether a text served as text/plain or XML is legislation is told from
// its first bytes (sniffSize), not by reading the whole of a long text
// with no markup as one run of character data.
func TestKindOfReadsTheFirstBytesOnly(t *testing.T) {
	raw := []byte(strings.Repeat("Section 1. The rate of tax for the year is 20 per cent.\n", 100_000))
	for _, ct := range []string{"text/plain", "application/xml"} {
		var kind Kind
		n := allocatedBy(func() { kind, _ = kindOf(raw, ct) })
		if kind != KindText {
			t.Errorf("%s: kind %s, want %s", ct, kind, KindText)
		}
		if n > 16*sniffSize {
			t.Errorf("%s: allocated %d bytes to tell the kind of %d bytes: it reads more than the first %d", ct, n, len(raw), sniffSize)
		}
	}
}
