package pipeline

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textbomb"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// textRig is a run on a loopback server whose documents a test sets.
type textRig struct {
	t    testing.TB
	mu   sync.Mutex
	docs map[string]servedDoc
	encs map[string]string // Content-Encoding of a doc whose body is coded
	set  *manifest.Set
	st   *store.Store
	ix   *store.Index
	sta  *state.State
	led  *ledger.Ledger
	clk  *clock.Fake
	http *fetch.Client
	logs []string
}

type servedDoc struct {
	ct   string
	body []byte
}

func newTextRig(t testing.TB, docs map[string]servedDoc) *textRig {
	r := &textRig{t: t, docs: docs}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		d, ok := r.docs[strings.TrimPrefix(req.URL.Path, "/")]
		enc := r.encs[strings.TrimPrefix(req.URL.Path, "/")]
		r.mu.Unlock()
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", d.ct)
		if enc != "" {
			w.Header().Set("Content-Encoding", enc)
		}
		w.Write(d.body)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	r.set = &manifest.Set{Policy: policy.Default()}
	for id := range docs {
		u, _ := url.Parse(srv.URL + "/" + id)
		r.set.Sources = append(r.set.Sources, manifest.Source{
			Jurisdiction: "xx", ID: "xx-" + id, URL: u.String(), Parsed: u, Host: manifest.HostOf(u),
			Kind: manifest.TaxTable, Title: id, Recheck: 24 * time.Hour,
		})
	}
	var err error
	if r.st, err = store.Open(filepath.Join(dir, "snapshots")); err != nil {
		t.Fatal(err)
	}
	if r.led, err = ledger.Open(filepath.Join(dir, "ledgers")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.led.Close() })
	r.ix, r.sta = store.NewIndex(), state.New()
	r.clk = clock.NewFake(time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC))
	r.http = fetch.New(fetch.Config{UserAgent: "TaxKernelBot-test/1", AllowPrivate: true})
	return r
}

func (r *textRig) serve(id string, d servedDoc) {
	r.mu.Lock()
	r.docs[id] = d
	r.mu.Unlock()
}

// run is one day's run; it returns the report.
func (r *textRig) run() *report.Report {
	r.t.Helper()
	if _, err := Run(r.t.Context(), Options{
		Set: r.set, Store: r.st, Index: r.ix, Ledger: r.led, State: r.sta, HTTP: r.http, Limits: Limits{Clock: r.clk},
		Log: func(host, msg string) { // called concurrently
			r.mu.Lock()
			r.logs = append(r.logs, msg)
			r.mu.Unlock()
		},
	}); err != nil {
		r.t.Fatal(err)
	}
	r.clk.Advance(24 * time.Hour)
	return report.Build(r.set, r.sta)
}

// TestRunSurvivesBombs: with documents made to exhaust an extractor among
// its sources, a run ends normally: every source is fresh, its bytes held
// and indexed, the bombs' texts kept with the reason they have none, and
// the ordinary document's text kept whole.
func TestRunSurvivesBombs(t *testing.T) {
	old := textLimits
	textLimits = textview.Limits{MaxCPU: 4 * time.Second, Timeout: 30 * time.Second}
	defer func() { textLimits = old }()
	r := newTextRig(t, map[string]servedDoc{
		"pdf-bomb":  {"application/pdf", textbomb.PDF(512 << 20)},
		"xlsx-bomb": {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", textbomb.XLSX(4, 60<<20)},
		"pages":     {"application/pdf", textbomb.Pages(20000)},
		"rates":     {"application/pdf", textbomb.Plain([]string{"Band | Rate", "Basic rate | 20%"}, "a")},
	})
	rep := r.run()
	for _, e := range rep.Sources {
		if e.Status != state.Fresh || e.SHA256 == "" {
			t.Errorf("%s: %s %q, want fresh and held", e.ID, e.Status, e.Detail)
		}
		res, ok, err := textview.Load(r.st.Root(), e.SHA256)
		if !ok || err != nil {
			t.Errorf("%s: no text kept (%v)", e.ID, err)
			continue
		}
		t.Logf("%s: %d bytes of text, reason %q", e.ID, len(res.Text), res.Reason)
		if (e.ID == "xx-rates") != (res.Reason == "") {
			t.Errorf("%s: reason %q", e.ID, res.Reason)
		}
		if e.ID == "xx-rates" && !strings.Contains(res.Text, "Basic rate") {
			t.Errorf("%s: text %q", e.ID, res.Text)
		}
	}
	if n := len(rep.Sources); n != 4 {
		t.Errorf("%d report entries, want 4", n)
	}
}

// TestEngineSwitchIsQuiet: the PDF engine changes under a held PDF (the
// built-in extractor, then pdftotext). The next run, on the same bytes,
// derives the text again with the new engine and changes nothing in the
// report or the index; nor does a later run whose new bytes say the same.
func TestEngineSwitchIsQuiet(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed: there is no engine to switch to (.ci/run installs poppler-utils)")
	}
	t.Setenv(textview.PDFToTextEnv, "off")
	lines := []string{"Income tax rates 2026", "Band | Taxable income | Rate", "Basic rate | 12,571 to 50,270 | 20%", "Higher rate | 50,271 to 125,140 | 40%"}
	r := newTextRig(t, map[string]servedDoc{"rates": {"application/pdf", textbomb.Plain(lines, "edition-1")}})
	before := r.run()
	sum := before.Sources[0].SHA256
	builtIn, ok, _ := textview.Load(r.st.Root(), sum)
	if !ok || !strings.HasPrefix(builtIn.Engine, "built-in") {
		t.Fatalf("first run: text %+v, kept %v", builtIn, ok)
	}

	t.Setenv(textview.PDFToTextEnv, "")
	after := r.run()
	if d := report.Diff(before, after); len(d) != 0 {
		t.Errorf("same bytes, new engine: the report changed: %+v", d)
	}
	res, ok, _ := textview.Load(r.st.Root(), sum)
	if !ok || !strings.HasPrefix(res.Engine, "pdftotext ") || !strings.Contains(res.Text, "Basic rate | 12,571 to 50,270 | 20%") {
		t.Errorf("the held bytes' text was not derived again by pdftotext: %+v", res)
	}

	r.serve("rates", servedDoc{"application/pdf", textbomb.Plain(lines, "edition-2")})
	again := r.run()
	if d := report.Diff(after, again); len(d) != 0 {
		t.Errorf("new bytes, same text: the report changed: %+v", d)
	}
	if es := r.ix.Entries("xx-rates"); len(es) != 1 {
		t.Errorf("%d index entries, want the one held", len(es))
	}
}

// A change extracts the text of the new bytes once, and reads the held
// bytes' text where it is kept: recording a change of a long text costs
// one extraction, as its first capture does (before, three: the held
// bytes again, the new ones for the comparison, and again to keep them).
func TestChangeExtractsTheNewBytesOnce(t *testing.T) {
	r := newTextRig(t, map[string]servedDoc{"act": {"text/plain", []byte("Section 1. The rate is 20%.\n")}})
	before := textview.Extractions()
	r.run()
	if n := textview.Extractions() - before; n != 1 {
		t.Errorf("the first capture extracted %d texts, want 1", n)
	}
	r.serve("act", servedDoc{"text/plain", []byte("Section 1. The rate is 21%.\n")})
	before = textview.Extractions()
	rep := r.run()
	if n := textview.Extractions() - before; n != 1 {
		t.Errorf("the change extracted %d texts, want 1", n)
	}
	e := rep.Sources[0]
	res, ok, err := textview.Load(r.st.Root(), e.SHA256)
	if !ok || err != nil || res.Text != "Section 1. The rate is 21%.\n" {
		t.Errorf("the new bytes' text kept: %q, %v, %v", res.Text, ok, err)
	}
	if h := r.ix.History("xx-act"); len(h) != 2 {
		t.Errorf("history %+v, want the first capture and the change", h)
	}
}

// A change reads the new bytes' text once for the hash of its default
// view (the blink history's): the comparison's hash is the one recorded,
// not computed again over a text of megabytes when it is kept.
func TestChangeHashesTheNewTextOnce(t *testing.T) {
	r := newTextRig(t, map[string]servedDoc{"act": {"text/plain", []byte("Section 1. The rate is 20%.\n")}})
	before := textview.NormalizedHashes()
	r.run()
	if n := textview.NormalizedHashes() - before; n != 1 {
		t.Errorf("the first capture hashed %d texts, want 1", n)
	}
	r.serve("act", servedDoc{"text/plain", []byte("Section 1. The rate is 21%.\n")})
	before = textview.NormalizedHashes()
	r.run()
	if n := textview.NormalizedHashes() - before; n != 1 {
		t.Errorf("the change hashed %d texts, want 1", n)
	}
	want := (*textview.View)(nil).NormalizedHash("Section 1. The rate is 21%.\n")
	if s := r.sta.Source("xx-act"); len(s.TextChecks) == 0 || s.TextChecks[len(s.TextChecks)-1].View != want {
		t.Errorf("the change's blink history: %+v, want its last view %s", s.TextChecks, want)
	}
}
