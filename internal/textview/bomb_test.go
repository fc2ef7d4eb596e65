package textview_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/textbomb"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// TestExtractionBombs: documents made to exhaust an extractor (a content
// stream that inflates a thousandfold, sheets that inflate to hundreds of
// MiB, nesting thousands deep, a hundred thousand pages) each end their
// extraction with a reason, under bounds smaller than the defaults so the
// test is quick; the test process itself is never at risk. Both PDF
// engines are tried. A child ended at a bound leaves nothing behind in the
// temp directory (excelize spills a large sheet to a temp file there).
func TestExtractionBombs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	lim := textview.Limits{MaxMemory: 256 << 20, MaxCPU: 4 * time.Second, Timeout: 30 * time.Second, MaxText: 4 << 20}
	bombs := []struct {
		name, ct string
		raw      []byte
		// want is what the reason may say (one of them).
		want []string
	}{
		{"pdf inflating to 512 MiB", "application/pdf", textbomb.PDF(512 << 20), []string{"memory bound", "CPU time bound", "text cut", "did not finish in time"}},
		{"pdf of 100,000 pages", "application/pdf", textbomb.Pages(100000), []string{"first 5000 pages only"}},
		{"pdf nested 100,000 deep", "application/pdf", textbomb.Nested(100000), []string{"", "cannot read", "failed on these bytes"}},
		{"xlsx of 4 sheets of 60 MiB", "", textbomb.XLSX(4, 60<<20), []string{"memory bound", "CPU time bound", "text cut", "did not finish in time"}},
		{"xlsx of 4 sheets of 200 MiB", "", textbomb.XLSX(4, 200<<20), []string{"unzip size exceeds"}},
		{"html nested 200,000 deep", "text/html", textbomb.HTML(200000), []string{"", "text cut", "memory bound", "cannot read the html"}},
	}
	for _, engine := range []string{"", "off"} {
		t.Setenv(textview.PDFToTextEnv, engine)
		for _, b := range bombs {
			if engine == "off" && !strings.HasPrefix(b.name, "pdf") {
				continue
			}
			start := time.Now()
			res := textview.Extract(t.Context(), b.raw, b.ct, lim)
			t.Logf("%s (%d bytes), %s: %.1fs, %d bytes of text, reason %q", b.name, len(b.raw), textview.Engine(res.Kind), time.Since(start).Seconds(), len(res.Text), res.Reason)
			ok := false
			for _, w := range b.want {
				if w == "" && res.Reason == "" || w != "" && strings.Contains(res.Reason, w) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s, %s: reason %q, want one saying %q", b.name, textview.Engine(res.Kind), res.Reason, b.want)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("%s, %s: the extraction left %s in the temp directory", b.name, textview.Engine(res.Kind), left[0].Name())
				for _, e := range left {
					os.RemoveAll(filepath.Join(tmp, e.Name()))
				}
			}
		}
	}
}
