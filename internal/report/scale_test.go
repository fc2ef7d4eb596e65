package report

import (
	"fmt"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// large is a report of n sources over 50 jurisdictions, one in ten
// failing, with the fields a real source fills.
func large(n int) *Report {
	set := &manifest.Set{}
	st := state.New()
	for i := range n {
		j := fmt.Sprintf("j%02d", i%50)
		id := fmt.Sprintf("%s-source-%06d", j, i)
		s := src(j, id, fmt.Sprintf("https://www.tax-office-%02d.example/rates/%06d/income-tax-rates-and-allowances", i%50, i), manifest.RatesPage, "Income tax rates and allowances, table "+id)
		s.Encodes = []string{j + ".income-tax.bands"}
		set.Sources = append(set.Sources, s)
		ss := state.Source{Status: state.Fresh, Since: "2026-11-02", HTTPStatus: 200, SHA256: store.Sum(fmt.Sprintf("%064x", i*7919)), Size: 48213, ContentType: "text/html; charset=utf-8"}
		if i%10 == 0 {
			ss.Status, ss.HTTPStatus, ss.Detail = state.Failing, 503, "HTTP 503 Service Unavailable; older bytes held"
		}
		st.PutSource(id, ss)
	}
	return Build(set, st)
}

// Past SplitAt the top-level coverage.md stays short and every
// jurisdiction's file stays under GitHub's rendering limit; a small
// report is one file, as before; a report that shrinks removes the files
// it no longer has.
func TestLargeReportIsSplitByJurisdiction(t *testing.T) {
	const githubRenders = 512 << 10
	r := large(5000)
	files := r.MarkdownFiles()
	if len(files) != 51 {
		t.Fatalf("%d Markdown files, want coverage.md and 50 jurisdictions", len(files))
	}
	top := string(files["coverage.md"])
	if len(top) > 64<<10 {
		t.Errorf("top-level coverage.md is %d bytes; it should stay short", len(top))
	}
	for _, want := range []string{"## Summary", "## Gaps and failures", "… and 450 more", "[j07](coverage/j07.md): 100 sources"} {
		if !strings.Contains(top, want) {
			t.Errorf("top-level coverage.md lacks %q", want)
		}
	}
	for name, data := range files {
		if len(data) > githubRenders {
			t.Errorf("%s is %d bytes, past what GitHub renders", name, len(data))
		}
	}
	if j := string(files["coverage/j07.md"]); !strings.Contains(j, "| `j07-source-000007` |") || !strings.HasPrefix(j, "# Coverage: j07") {
		t.Errorf("coverage/j07.md lacks its sources:\n%.500s", j)
	}

	dir := t.TempDir()
	if _, err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "coverage", "j49.md")); err != nil {
		t.Fatal(err)
	}
	if small := large(10).MarkdownFiles(); len(small) != 1 {
		t.Errorf("a small report has %d Markdown files, want coverage.md alone", len(small))
	}
	if _, err := large(10).Write(dir); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "coverage", "*.md")); len(left) != 0 {
		t.Errorf("a report that shrank left %d per-jurisdiction files", len(left))
	}
}

// BenchmarkCoverageAt100k reports the size of coverage.json and of the
// Markdown files for 100,000 sources.
func BenchmarkCoverageAt100k(b *testing.B) {
	r := large(100_000)
	var js []byte
	var md map[string][]byte
	for b.Loop() {
		var err error
		if js, err = r.JSON(); err != nil {
			b.Fatal(err)
		}
		md = r.MarkdownFiles()
	}
	largest := 0
	for _, d := range md {
		largest = max(largest, len(d))
	}
	b.ReportMetric(float64(len(js)), "json-bytes")
	b.ReportMetric(float64(len(md["coverage.md"])), "top-md-bytes")
	b.ReportMetric(float64(largest), "largest-md-bytes")
}

// BenchmarkCoverageAt1k is the reports a run of 1,000 sources writes
// after its last answer: coverage.json and coverage.md.
//
//	go test -run '^$' -bench CoverageAt1k -benchmem ./internal/report
func BenchmarkCoverageAt1k(b *testing.B) {
	r := large(1000)
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.JSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("markdown", func(b *testing.B) {
		for b.Loop() {
			r.MarkdownFiles()
		}
	})
}

// BenchmarkWriteAt1k is a first run's Write of its reports at 1,000
// sources: every file new.
//
//	go test -run '^$' -bench WriteAt1k -benchmem ./internal/report
func BenchmarkWriteAt1k(b *testing.B) {
	r := large(1000)
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		if _, err := r.Write(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSummaryAt1k is the counts index.html shows, at 1,000 sources.
func BenchmarkSummaryAt1k(b *testing.B) {
	r := large(1000)
	for b.Loop() {
		r.Summary()
	}
}
