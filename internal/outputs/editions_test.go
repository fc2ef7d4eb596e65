package outputs

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// texts is a Texts of fixed texts by hash.
type texts map[string]string

func (x texts) Text(_ context.Context, sum, _ string) (string, bool) {
	t, ok := x[sum]
	return t, ok
}

// TestEditionsReadsTheLinksOfHeldCopies: the held HTML copy of a yearly
// page links to next year's (a relative link, resolved against the
// address the copy was served from), and the held text of a PDF writes
// the address of the next payroll tables: both are proposed, with the
// copy and the line as evidence. A source updated in place, or one whose
// newest copy is an answer that was not the document, gives nothing.
func TestEditionsReadsTheLinksOfHeldCopies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	manifests := filepath.Join(dir, "manifests")
	must(t, os.MkdirAll(manifests, 0o755))
	must(t, os.WriteFile(filepath.Join(manifests, "uk.yaml"), []byte(`jurisdiction: uk
name: United Kingdom
timezone: Europe/London
sources:
  - {id: uk-employer-rates-2025-26, url: "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2025-to-2026", kind: withholding-schedule, title: Rates and thresholds for employers 2025 to 2026}
  - {id: uk-income-tax-rates, url: "https://www.gov.uk/income-tax-rates", kind: rates-page, title: Income Tax rates}
`), 0o644))
	must(t, os.WriteFile(filepath.Join(manifests, "ca.yaml"), []byte(`jurisdiction: ca
name: Canada
timezone: America/Toronto
sources:
  - {id: ca-t4032-on-2025, url: "https://www.canada.ca/content/dam/cra-arc/t4032/2025/t4032-on-1-25eng.pdf", kind: tax-table, title: "T4032-ON, effective January 1, 2025"}
`), 0o644))
	set, diags := manifest.Load(manifests)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s, err := store.Open(filepath.Join(dir, "snapshots"))
	must(t, err)
	ix := store.NewIndex()
	hold := func(id, body, contentType, finalURL, notDocument string) string {
		sum, size, err := s.Put(ctx, strings.NewReader(body))
		must(t, err)
		ix.Add(id, store.Entry{SHA256: sum, Size: size, ContentType: contentType, FinalURL: finalURL, FirstSeen: "2026-01-30", NotDocument: notDocument}, "")
		return string(sum)
	}
	page := hold("uk-employer-rates-2025-26", "<html>\n<body>\n<a href=\"rates-and-thresholds-for-employers-2026-to-2027\">2026 to 2027</a>\n</body>\n</html>\n",
		"text/html; charset=utf-8", "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2025-to-2026", "")
	pdf := hold("ca-t4032-on-2025", "%PDF-1.7 the bytes", "application/pdf", "https://www.canada.ca/content/dam/cra-arc/t4032/2025/t4032-on-1-25eng.pdf", "")
	// A challenge page linking to next year's is no held copy of the document.
	hold("uk-income-tax-rates", `<a href="https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2027-to-2028">x</a>`, "text/html", "https://www.gov.uk/income-tax-rates", "a bot challenge")

	got := Editions(ctx, set, ix, LocalBlobs(filepath.Join(dir, "snapshots")), texts{
		pdf: "Payroll Deductions Tables\nThe tables for January 2026: www.canada.ca/content/dam/cra-arc/t4032/2026/t4032-on-1-26eng.pdf.",
	})
	if len(got) != 2 {
		t.Fatalf("Editions proposed %d, want 2: %+v", len(got), got)
	}
	ca, uk := got[0], got[1]
	if ca.URL != "https://www.canada.ca/content/dam/cra-arc/t4032/2026/t4032-on-1-26eng.pdf" || ca.Evidence.SHA256 != pdf || ca.Evidence.Line != 2 {
		t.Errorf("ca: %+v", ca)
	}
	if uk.URL != "https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2026-to-2027" || uk.Evidence.SHA256 != page || uk.Evidence.Line != 3 || uk.ID != "uk-employer-rates-2026-27" {
		t.Errorf("uk: %+v", uk)
	}

	// The feeds rendered from a Derived over the store announce the
	// edition of the HTML page (the PDF's text is not kept there).
	fi := Input{Set: set, Index: ix, Texts: Derived{Snapshots: filepath.Join(dir, "snapshots")}}.feedInput(ctx)
	if p, ok := fi.Editions["uk-employer-rates-2025-26"]; !ok || p.URL != uk.URL {
		t.Errorf("the feeds' input announces %+v, want %s's", fi.Editions, uk.URL)
	}
	// A copy held nowhere is passed over.
	none := func(string) (io.ReadCloser, int64, error) { return nil, 0, os.ErrNotExist }
	if got := Editions(ctx, set, ix, none, nil); len(got) != 0 {
		t.Errorf("with no bytes at hand: %+v", got)
	}
}

// TestRunEndAnnouncesEditionsFoundDuringTheRun: the page that links to
// the next edition is held only once the run has begun, after the writer
// wrote the source's feed: the end writes that feed again, announcing it,
// as the report command would render it from the same store.
func TestRunEndAnnouncesEditionsFoundDuringTheRun(t *testing.T) {
	const id = "t-rates-2025-26"
	o := newFixture(t, id)
	src, _ := o.set.Source(id)
	ix := store.NewIndex()
	w := Start(o.d, nil, o.set, state.New(), ix)
	w.SourceDone(id)
	begun(t, w)

	s, err := store.Open(o.d.Snapshots)
	must(t, err)
	sum, size, err := s.Put(context.Background(), strings.NewReader("<html>\n<a href=\"t-rates-2026-27\">next year</a>\n</html>\n"))
	must(t, err)
	ix.Add(id, store.Entry{SHA256: sum, Size: size, ContentType: "text/html", FinalURL: src.URL, FirstSeen: "2026-12-01"}, "")
	must(t, w.End(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)))

	feed, err := os.ReadFile(filepath.Join(o.d.Reports, "feeds", "sources", id+".atom"))
	must(t, err)
	if !strings.Contains(string(feed), "a new edition is available") || !strings.Contains(string(feed), strings.TrimSuffix(src.URL, "2025-26")+"2026-27") {
		t.Errorf("the source's feed does not announce the edition found during the run:\n%s", feed)
	}
}
