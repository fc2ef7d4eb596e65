package textview

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestBuiltinReadsDamagedPDFs holds the built-in extractor to real files
// its library refuses as they are (testdata/realpdf): each must give the
// text named, through the rebuilt cross-reference.
func TestBuiltinReadsDamagedPDFs(t *testing.T) {
	t.Parallel()
	junk := func(name string) func() []byte {
		return func() []byte {
			raw, err := os.ReadFile("testdata/realpdf/" + name)
			if err != nil {
				t.Fatal(err)
			}
			// What a server that sends its HTTP header twice leaves
			// before the document.
			return append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n"), raw...)
		}
	}
	for _, c := range []struct {
		file, want string
		raw        func() []byte
	}{
		{file: "prefilled_f1040.pdf", want: "U.S. Individual Income Tax Return"}, // "unexpected keyword xref"
		{file: "issue17492.pdf", want: "PDF Form Example"},                       // the same, from OpenOffice
		{file: "tracemonkey_a11y.pdf", want: "Trace-based Just-in-Time"},
		{file: "issue6069.pdf", want: "Missing value for startxref and junk before magic header"},
		{file: "with_update_sections.pdf + HTTP header", want: "Form 1040-V", raw: junk("with_update_sections.pdf")},
		{file: "bug1937438_af_from_latex.pdf", want: "Some inline math"}, // %PDF-2.0
		{file: "helloworld-bad.pdf", want: "Hello, world!"},
		{file: "xref_command_missing.pdf", want: "Reduced test-case"},
		{file: "bug1250079.pdf", want: "Bug 1250079"}, // no %%EOF
	} {
		t.Run(c.file, func(t *testing.T) {
			var raw []byte
			if c.raw != nil {
				raw = c.raw()
			} else {
				var err error
				if raw, err = os.ReadFile("testdata/realpdf/" + c.file); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			o := extractHere(ctx, KindPDF, raw, "application/pdf", nil, DefaultLimits)
			if o.err != nil || o.panic != nil {
				t.Fatalf("built-in extractor: %v %v", o.err, o.panic)
			}
			if got := strings.Join(strings.Fields(o.text), " "); !strings.Contains(got, c.want) {
				t.Errorf("text lacks %q:\n%.600s", c.want, o.text)
			}
		})
	}
}

// TestRepairPDFRefusesNothing: bytes with no object, or no catalog, are
// not rebuilt.
func TestRepairPDFRefusesNothing(t *testing.T) {
	for _, raw := range []string{"", "%PDF-1.4\n%%EOF\n", "%PDF-1.4\n1 0 obj\n<< /Type /Page >>\nendobj\n"} {
		if _, ok := repairPDF([]byte(raw)); ok {
			t.Errorf("repairPDF(%q) rebuilt something", raw)
		}
	}
}
