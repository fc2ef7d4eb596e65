package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A first fetch is an audit: the run that first fetches a source records
// what it found against what its entry promised, the coverage report
// keeps it, and the run's log names each mismatch; a later fetch leaves
// the audit of the first day as it was.
func TestFirstFetchAudit(t *testing.T) {
	landing := `<!DOCTYPE html><html><head><title>Publication 15-T (2026) | Internal Revenue Service</title></head>` +
		`<body><h1>Publication 15-T</h1><p><a href="/files/p15t.pdf">Download the PDF</a></p></body></html>`
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(body))
		}
	}
	pdf := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.7\n1 0 obj\n<< /Title (Publication 15-T \\(2026\\)) >>\nendobj\n%%EOF\n"))
	}
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt":     status(404),
		"/pub/p15t.pdf":   html(landing),
		"/files/p15t.pdf": pdf,
		"/tables/t4032":   html(`<title>Payroll tables 2026</title><a href="a.pdf">A</a><a href="b.pdf">B</a><a href="c.xlsx">C</a>`),
		"/rates-2026-27":  html(`<title>Rates 2026 to 2027</title><table><tr><td>£12,570</td></tr></table>`),
	})
	w := newWorkspace(t, testPolicy, "",
		src{"test-landing", a.url("/pub/p15t.pdf"), ""},
		src{"test-pdf", a.url("/files/p15t.pdf"), ""},
		src{"test-index", a.url("/tables/t4032"), ""},
		src{"test-table", a.url("/rates-2026-27"), ""},
	)
	// The harness lists every source as a rates page: the index is listed
	// as a tax table.
	manifest := filepath.Join(w.Manifests, "test.yaml")
	data, err := os.ReadFile(manifest)
	must(t, err)
	listed := strings.Replace(string(data), "    kind: rates-page\n    title: test-index\n", "    kind: tax-table\n    title: test-index\n", 1)
	if listed == string(data) {
		t.Fatal("the harness's manifest lists test-index otherwise than this test expects")
	}
	must(t, os.WriteFile(manifest, []byte(listed), 0o644))
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	rep := w.report()
	landed := rep["test-landing"].Audit
	if landed == nil || landed.Form != "an HTML page" || landed.Title != "Publication 15-T (2026) | Internal Revenue Service" ||
		len(landed.Mismatches) != 1 || !strings.Contains(landed.Mismatches[0], "promises a PDF, but the server sent an HTML page") {
		t.Errorf("the landing page's audit: %+v", landed)
	}
	if !strings.Contains(w.out.String(), "test-landing first fetch: the address ends in .pdf") {
		t.Errorf("the run's log does not name the mismatch:\n%s", w.out.String())
	}
	if got := rep["test-pdf"].Audit; got == nil || got.Form != "a PDF" || got.Title != "Publication 15-T (2026)" || len(got.Mismatches) != 0 {
		t.Errorf("the PDF's audit: %+v", got)
	}
	if got := rep["test-index"].Audit; got == nil || len(got.Mismatches) != 1 || !strings.Contains(got.Mismatches[0], "links 3 documents") {
		t.Errorf("the index's audit: %+v", got)
	}
	if got := rep["test-table"].Audit; got == nil || len(got.Mismatches) != 0 {
		t.Errorf("the table's audit: %+v", got)
	}

	// A later fetch is no first fetch: the audit stays the first day's.
	w.out.Reset()
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("second run: exit %d\n%s", code, w.out.String())
	}
	if again := w.report()["test-landing"].Audit; again == nil || again.Date != landed.Date || strings.Contains(w.out.String(), "first fetch:") {
		t.Errorf("the second run changed or logged the audit again: %+v\n%s", again, w.out.String())
	}
}
