package session

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// TestRunWritesChangeDocuments: a run in which a rate changed writes the
// change's document under reports/changes/ (the figure 20% → 21% in the
// Basic rate row), and the source's feed links it; a first copy has
// none.
func TestRunWritesChangeDocuments(t *testing.T) {
	var rate atomic.Int32
	rate.Store(20)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<table><tr><th>Band</th><th>Rate</th></tr><tr><td>Basic rate</td><td>%d%%</td></tr></table>", rate.Load())
	})
	var out bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	o := options(t, clk, &out, [2]string{"t-a", srv.URL + "/a"})
	if _, err := Run(t.Context(), o); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	dir := filepath.Join(o.Reports, changedoc.Dir)
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("a first copy wrote a change document")
	}
	rate.Store(21)
	clk.Advance(24 * time.Hour)
	if _, err := Run(t.Context(), o); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	docs, err := filepath.Glob(filepath.Join(dir, "t-a", "2026-12-02_*.json"))
	if err != nil || len(docs) != 1 {
		t.Fatalf("change documents %v (%v), want one of 2026-12-02", docs, err)
	}
	data, err := os.ReadFile(docs[0])
	must(t, err)
	rel, _ := filepath.Rel(o.Reports, docs[0])
	d, err := changedoc.Parse(filepath.ToSlash(rel), data)
	must(t, err)
	if len(d.Figures) != 1 || d.Figures[0].Row != "Basic rate" || d.Figures[0].Column != "Rate" || d.Figures[0].Old.Text != "20%" || d.Figures[0].New.Text != "21%" {
		t.Errorf("%s:\n%s", rel, data)
	}
	feed, err := os.ReadFile(filepath.Join(o.Reports, "feeds", "sources", "t-a.atom"))
	must(t, err)
	if want := `href="https://taxkernel.com/` + filepath.ToSlash(rel) + `" rel="alternate" type="application/json"`; !strings.Contains(string(feed), want) {
		t.Errorf("t-a's feed does not link %s:\n%s", rel, feed)
	}
}
