package textview

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Floors of the built-in extractor on testdata/realpdf, as measured: a
// change that makes more files give no text, or fall below a word F1 of
// 0.8 against pdftotext, fails TestRealPDFs. Lower them when the
// extractor gets better. Before the cross-reference was rebuilt
// (repairPDF), 10 files gave no text and 8 more were below 0.8; two of
// the files it opened since give text below 0.8, hence 10.
const (
	builtinNoTextMax  = 2
	builtinBelow08Max = 10
)

// needPdftotext skips a test that compares with pdftotext when there is
// none, except in CI, where .ci/run installs poppler-utils: there a
// missing pdftotext is a broken set-up, not a reason to skip.
func needPdftotext(t *testing.T) pdfTool {
	t.Helper()
	tool := pdftotext()
	if tool.path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: CI must have poppler-utils (.ci/run and the workflows install it)", tool.why)
		}
		t.Skipf("%s: the comparison with pdftotext -layout needs it (.ci/run installs poppler-utils)", tool.why)
	}
	return tool
}

// textWords is the words of this package's text, without its [page N]
// lines and cell separators.
func textWords(text string) []string {
	var out []string
	for _, p := range pagesOf(text, false) {
		for _, l := range p {
			out = append(out, l...)
		}
	}
	return out
}

// wordF1 is the F1 score of got's words against ref's, as bags of words:
// order does not count, each word counts as often as it occurs.
func wordF1(ref, got []string) float64 {
	if len(ref) == 0 && len(got) == 0 {
		return 1
	}
	left := map[string]int{}
	for _, w := range ref {
		left[w]++
	}
	common := 0
	for _, w := range got {
		if left[w] > 0 {
			left[w]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(len(got)), float64(common)/float64(len(ref))
	return 2 * p * r / (p + r)
}

func realPDFs(t testing.TB) []string {
	files, err := filepath.Glob("testdata/realpdf/*.pdf")
	if err != nil || len(files) < 25 {
		t.Fatalf("testdata/realpdf holds %d PDFs (%v); SOURCES.md there names the 30 it should hold", len(files), err)
	}
	return files
}

// TestRealPDFs reads the real-world PDFs of testdata/realpdf (IRS forms,
// the Federal Register, government tables, PDF viewers' bug-report
// files; SOURCES.md names them) three ways: pdftotext -layout run
// directly, this package's Extract as a run uses it (pdftotext in the
// bounded child), and the built-in extractor (the fallback without
// pdftotext, in its child). The run's text must hold pdftotext's words
// (word F1 ≥ 0.99) for every file pdftotext reads; the built-in
// extractor's counts of files without text and below F1 0.8 must not pass
// their floors.
func TestRealPDFs(t *testing.T) {
	tool := needPdftotext(t)
	files := realPDFs(t)
	type row struct {
		name             string
		size             int
		ref              int
		run, builtin     float64
		runWhy, builtWhy string
	}
	var rows []row
	unread := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		out, err := exec.CommandContext(ctx, tool.path, "-layout", "-enc", "UTF-8", f, "-").Output()
		cancel()
		ref := words(string(out))
		if err != nil || len(ref) == 0 {
			t.Logf("%s: pdftotext reads no text (%v); left out", filepath.Base(f), err)
			unread++
			continue
		}
		r := row{name: filepath.Base(f), size: len(raw), ref: len(ref)}
		res := Extract(t.Context(), raw, "application/pdf", Limits{})
		r.run, r.runWhy = wordF1(ref, textWords(res.Text)), res.Reason
		if len(textWords(res.Text)) == 0 {
			t.Errorf("%s: no text through the run's pdftotext child (%s); pdftotext itself reads %d words", r.name, res.Reason, len(ref))
		} else if r.run < 0.99 {
			t.Errorf("%s: the run's text has word F1 %.3f against pdftotext's own (%s)", r.name, r.run, res.Reason)
		}
		rows = append(rows, r)
	}

	t.Setenv(PDFToTextEnv, "off")
	if e := Engine(KindPDF); !strings.HasPrefix(e, "built-in") {
		t.Fatalf("with %s=off the engine is %q", PDFToTextEnv, e)
	}
	noText, below := 0, 0
	for i := range rows {
		r := &rows[i]
		raw, err := os.ReadFile(filepath.Join("testdata/realpdf", r.name))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := exec.CommandContext(t.Context(), tool.path, "-layout", "-enc", "UTF-8", filepath.Join("testdata/realpdf", r.name), "-").Output()
		res := Extract(t.Context(), raw, "application/pdf", Limits{})
		got := textWords(res.Text)
		r.builtin, r.builtWhy = wordF1(words(string(out)), got), res.Reason
		switch {
		case len(got) == 0:
			noText++
		case r.builtin < 0.8:
			below++
		}
	}
	t.Logf("%d real PDFs, %d that pdftotext reads; word F1 against pdftotext -layout:", len(files), len(rows))
	t.Logf("  %-36s %8s %6s %6s %8s  %s", "file", "bytes", "words", "run", "built-in", "built-in's reason")
	for _, r := range rows {
		t.Logf("  %-36s %8d %6d %6.3f %8.3f  %.90s", r.name, r.size, r.ref, r.run, r.builtin, r.builtWhy)
	}
	t.Logf("built-in extractor: %d of %d give no text, %d more below F1 0.8", noText, len(rows), below)
	if unread > 0 {
		t.Logf("%d file(s) pdftotext reads no text from are left out", unread)
	}
	if noText > builtinNoTextMax {
		t.Errorf("the built-in extractor gives no text for %d real PDFs; it gave none for only %d (builtinNoTextMax)", noText, builtinNoTextMax)
	}
	if below > builtinBelow08Max {
		t.Errorf("the built-in extractor is below word F1 0.8 on %d real PDFs that give text; the floor is %d (builtinBelow08Max)", below, builtinBelow08Max)
	}
}

// BenchmarkRealPDFs extracts the whole of testdata/realpdf per iteration,
// as a run does (one bounded child per document): MB/s of PDF input,
// with pdftotext and with the built-in extractor.
//
//	go test -run '^$' -bench RealPDFs -benchtime 3x ./internal/textview
func BenchmarkRealPDFs(b *testing.B) {
	var docs [][]byte
	var total int64
	for _, f := range realPDFs(b) {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, raw)
		total += int64(len(raw))
	}
	for _, engine := range []struct{ name, setting string }{{"pdftotext", ""}, {"builtin", "off"}} {
		b.Run(engine.name, func(b *testing.B) {
			b.Setenv(PDFToTextEnv, engine.setting)
			if engine.setting == "" && pdftotext().path == "" {
				b.Skip(pdftotext().why)
			}
			b.SetBytes(total)
			for b.Loop() {
				for _, raw := range docs {
					Extract(context.Background(), raw, "application/pdf", Limits{})
				}
			}
			b.ReportMetric(float64(len(docs)), "docs")
		})
	}
}
