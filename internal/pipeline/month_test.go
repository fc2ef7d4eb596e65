package pipeline

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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
	"github.com/taxkernel/taxkernelbot/internal/textview"
	"github.com/taxkernel/taxkernelbot/internal/view"
)

// monthPage is one scripted page: its body on day d (0-based) and the view
// its manifest entry declares.
type monthPage struct {
	id   string
	ct   string
	view view.Spec
	body func(d int) string
}

func htmlPage(title, extra, text string) string {
	return "<!doctype html><html><head><title>" + title + "</title>" + extra + "</head><body><h1>" + title + "</h1>" + text + "</body></html>"
}

func monthPages() []monthPage {
	static := func(id, text string) monthPage {
		return monthPage{id: id, ct: "text/html; charset=utf-8", body: func(int) string { return htmlPage(id, "", "<p>"+text+"</p>") }}
	}
	return []monthPage{
		// Blinks: a CSRF token in a hidden input and a <meta> (the default
		// view drops both).
		{id: "token", ct: "text/html", body: func(d int) string {
			return htmlPage("Forms", fmt.Sprintf(`<meta name="csrf-token" content="tok-%d">`, d),
				fmt.Sprintf(`<form><input type="hidden" name="csrf" value="tok-%d"><p>File your return by 31 January.</p></form>`, d))
		}},
		// Blinks: a "generated at" stamp, which its view ignores.
		{id: "stamp", ct: "text/html", view: view.Spec{Ignore: []string{`^Page generated at .*`}}, body: func(d int) string {
			return htmlPage("Allowances", "", fmt.Sprintf("<p>Personal allowance | £12,570</p><p>Page generated at 2026-11-%02d 06:%02d:%02d</p>", d+1, d, 59-d))
		}},
		// Blinks: a rotating banner, which its view drops.
		{id: "banner", ct: "text/html", view: view.Spec{Drop: []string{"#banner"}}, body: func(d int) string {
			news := []string{"New online service", "Office closed on Friday", "Check your tax code"}[d%3]
			return htmlPage("Thresholds", "", `<div id="banner">`+news+`</div><p>VAT registration threshold | £90,000</p>`)
		}},
		// Blinks: a build id in a script (the default view drops scripts).
		{id: "build", ct: "text/html", body: func(d int) string {
			return htmlPage("Duties", fmt.Sprintf(`<script>window.BUILD="b%04d"</script>`, 1000+d), "<p>Stamp duty | 5%</p>")
		}},
		// Changes for real on day 10: the basic-rate band.
		{id: "rates", ct: "text/html", body: func(d int) string {
			band := "£37,700"
			if d >= 10 {
				band = "£37,500"
			}
			return htmlPage("Income tax rates", "", "<table><tr><th>Band</th><th>Taxable income</th></tr><tr><td>Basic rate</td><td>"+band+"</td></tr></table>")
		}},
		// Changes for real on day 20: a CSV table.
		{id: "table", ct: "text/csv", body: func(d int) string {
			rate := "20"
			if d >= 20 {
				rate = "19"
			}
			return "band,rate\nbasic," + rate + "\nhigher,40\n"
		}},
		static("guide", "How to register."),
		static("penalties", "Late filing penalty | £100"),
		static("contacts", "Write to us."),
		static("archive", "Older rates are kept here."),
	}
}

// TestScriptedMonth runs 30 daily fetches of 10 pages, 4 of which blink
// and 2 of which change for real on known days, through the real run on a
// loopback server and a fake clock. Exactly the 2 real changes reach the
// report's diff; no blob is stored for a blink; the two blinking pages
// without a declared view are found noisy, once.
func TestScriptedMonth(t *testing.T) {
	pages := monthPages()
	var day atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range pages {
			if r.URL.Path == "/"+p.id {
				w.Header().Set("Content-Type", p.ct)
				fmt.Fprint(w, p.body(int(day.Load())))
				return
			}
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()

	dir := t.TempDir()
	pol := policy.Default()
	set := &manifest.Set{Policy: pol}
	for _, p := range pages {
		u, _ := url.Parse(srv.URL + "/" + p.id)
		set.Sources = append(set.Sources, manifest.Source{
			Jurisdiction: "xx", ID: "xx-" + p.id, URL: u.String(), Parsed: u, Host: manifest.HostOf(u),
			Kind: manifest.RatesPage, Title: p.id, Recheck: 24 * time.Hour, View: p.view,
		})
	}
	st, err := store.Open(filepath.Join(dir, "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	led, err := ledger.Open(filepath.Join(dir, "ledgers"))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	ix, sta := store.NewIndex(), state.New()
	clk := clock.NewFake(time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC))
	client := fetch.New(fetch.Config{UserAgent: "TaxKernelBot-test/1", AllowPrivate: true})

	var (
		logMu sync.Mutex
		logs  []string
	)
	var prev *report.Report
	changed := map[string][]int{}   // source id → days its report entry changed
	noisyFrom := map[string][]int{} // source id → days it entered "noisy sources"
	blobsAfterDay0 := 0
	for d := 0; d < 30; d++ {
		day.Store(int64(d))
		if _, err := Run(t.Context(), Options{
			Set: set, Store: st, Index: ix, Ledger: led, State: sta, HTTP: client, Limits: Limits{Clock: clk},
			Log: func(host, msg string) { // called by the hosts at once
				logMu.Lock()
				logs = append(logs, msg)
				logMu.Unlock()
			},
		}); err != nil {
			t.Fatalf("day %d: %v", d, err)
		}
		rep := report.Build(set, sta)
		if prev != nil {
			for _, c := range report.Diff(prev, rep) {
				switch {
				case c.Kind == report.KindChanged:
					changed[c.ID] = append(changed[c.ID], d)
				case c.Kind == report.KindOther && c.Old.Noisy == nil && c.New.Noisy != nil:
					noisyFrom[c.ID] = append(noisyFrom[c.ID], d)
				default:
					t.Errorf("day %d: %s: unexpected report change %s", d, c.ID, c.Kind)
				}
			}
		}
		prev = rep
		if d == 0 {
			blobsAfterDay0 = countBlobs(t, st.Root())
		}
		clk.Advance(24 * time.Hour)
	}

	want := map[string][]int{"xx-rates": {10}, "xx-table": {20}}
	if fmt.Sprint(changed) != fmt.Sprint(want) {
		t.Errorf("changed documents by day = %v, want %v", changed, want)
	}
	// The report changes once for each blinking page without a view: on
	// its 4th fetch (day 3), the 3rd in a row with new bytes.
	if want := map[string][]int{"xx-build": {3}, "xx-token": {3}}; fmt.Sprint(noisyFrom) != fmt.Sprint(want) {
		t.Errorf("entered noisy sources by day = %v, want %v", noisyFrom, want)
	}
	if n := countBlobs(t, st.Root()); blobsAfterDay0 != 10 || n != 12 {
		t.Errorf("blobs held: %d after day 0, %d after the month; want 10 and 12 (only the 2 real changes stored)", blobsAfterDay0, n)
	}
	for _, p := range pages {
		es := ix.Entries("xx-" + p.id)
		if wantN := 1 + len(want["xx-"+p.id]); len(es) != wantN {
			t.Errorf("%s: %d index entries, want %d", p.id, len(es), wantN)
		}
		s := sta.Source("xx-" + p.id)
		noisy := p.id == "token" || p.id == "build"
		if (s.Noisy != nil) != noisy {
			t.Errorf("%s: noisy = %+v, want noisy %v", p.id, s.Noisy, noisy)
		}
		if s.Noisy != nil {
			t.Logf("%s noisy since %s: suggested drop %q, ignore %q (reads alike: %v)", p.id, s.Noisy.Since, s.Noisy.Drop, s.Noisy.Ignore, s.Noisy.Matched)
		}
		if s.Noisy != nil && s.Noisy.Since != "2026-11-04" {
			t.Errorf("%s: noisy since %s, want 2026-11-04 (its 4th fetch, the 3rd with new bytes)", p.id, s.Noisy.Since)
		}
		if len(s.TextChecks) != state.MaxTextChecks {
			t.Errorf("%s: %d text checks kept, want %d", p.id, len(s.TextChecks), state.MaxTextChecks)
		}
		// The held bytes' text is kept beside them.
		for _, e := range es {
			if _, ok, err := textview.Load(st.Root(), string(e.SHA256)); !ok || err != nil {
				t.Errorf("%s: no text kept for %.12s: %v", p.id, e.SHA256, err)
			}
		}
	}
	unchangedText := 0
	for _, l := range logs {
		if strings.Contains(l, "unchanged text") {
			unchangedText++
		}
	}
	// 4 blinking pages × 29 later days, less the 9 days the rotating
	// banner comes back to the held bytes (the same hash: no comparison).
	if want := 4*29 - 9; unchangedText != want {
		t.Errorf("%d fetches logged as unchanged text, want %d", unchangedText, want)
	}
	t.Logf("month: %d changed report entries (%v), %d blobs stored after day 0, %d same-text fetches not stored",
		len(changed["xx-rates"])+len(changed["xx-table"]), changed, countBlobs(t, st.Root())-blobsAfterDay0, unchangedText)
}

func countBlobs(t *testing.T, root string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(root, "sha256"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && len(d.Name()) == 64 {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A failing source counts its failed checks in a row, for "failing since
// DATE, N checks"; a good check resets the count.
func TestFailedChecksCount(t *testing.T) {
	var ok atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" || !ok.Load() {
			http.Error(w, "down", http.StatusNotFound)
			return
		}
		fmt.Fprint(w, "back")
	}))
	defer srv.Close()
	dir := t.TempDir()
	u, _ := url.Parse(srv.URL + "/doc")
	set := &manifest.Set{Policy: policy.Default(), Sources: []manifest.Source{{
		Jurisdiction: "xx", ID: "xx-doc", URL: u.String(), Parsed: u, Host: manifest.HostOf(u), Recheck: 24 * time.Hour,
	}}}
	st, err := store.Open(filepath.Join(dir, "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	led, err := ledger.Open(filepath.Join(dir, "ledgers"))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	sta := state.New()
	clk := clock.NewFake(time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC))
	client := fetch.New(fetch.Config{UserAgent: "TaxKernelBot-test/1", AllowPrivate: true})
	var got []int
	for d := range 4 {
		ok.Store(d == 3)
		if _, err := Run(t.Context(), Options{Set: set, Store: st, Index: store.NewIndex(), Ledger: led, State: sta, HTTP: client, Limits: Limits{Clock: clk}}); err != nil {
			t.Fatal(err)
		}
		got = append(got, sta.Source("xx-doc").FailedChecks)
		clk.Advance(24 * time.Hour)
	}
	if fmt.Sprint(got) != "[1 2 3 0]" {
		t.Errorf("failed checks after each day = %v, want [1 2 3 0]", got)
	}
	if s := sta.Source("xx-doc"); s.Status != state.Fresh {
		t.Errorf("status %s, want fresh", s.Status)
	}
}
