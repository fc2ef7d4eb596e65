package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// The pages below stand in for the document on a later check, each with
// the markers the vendor's or the server's real page carries.
const (
	cloudflareChallenge = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots" content="noindex,nofollow"></head><body><div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">www.example.gov</h1><h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2><noscript><div id="challenge-error-title">Enable JavaScript and cookies to continue</div></noscript></div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "www.example.gov",cType: 'managed'};var a = document.createElement('script');a.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1b2c3d4e5f6789';document.getElementsByTagName('head')[0].appendChild(a);}());</script></body></html>`
	akamaiDenied        = `<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>
 
You don't have permission to access "http&#58;&#47;&#47;www&#46;example&#46;gov&#47;rates" on this server.<P>
Reference&#32;&#35;18&#46;5f1c1002&#46;1732608011&#46;2a6b7c1
<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;5f1c1002&#46;1732608011&#46;2a6b7c1</P>
</BODY>
</HTML>`
	f5Rejected       = `<html><head><title>Request Rejected</title></head><body>The requested URL was rejected. Please consult with your administrator.<br><br>Your support ID is: 11223344556677889900<br><br><a href='javascript:history.back();'>[Go Back]</a></body></html>`
	incapsulaBlocked = `<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW"><meta name="format-detection" content="telephone=no"><meta name="viewport" content="initial-scale=1.0"><meta http-equiv="X-UA-Compatible" content="IE=edge,chrome=1"></head><body style="margin:0px;height:100%"><iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=23&xinfo=6-12345678-0%200NNN%20RT%281732608011%20123%29&incident_id=123000450012345678-987654321012345678&edet=22&cinfo=04000000&rpinfo=0&mth=GET" frameborder=0 width="100%" height="100%" marginheight="0px" marginwidth="0px">Request unsuccessful. Incapsula incident ID: 123000450012345678-987654321012345678</iframe></body></html>`
	softNotFound     = `<!doctype html><html lang="en"><head><title>Page not found - Example Revenue Office</title></head><body><header><nav><a href="/">Home</a> <a href="/individuals">Individuals</a></nav></header><main><h1>Page not found</h1><p>The page you are looking for may have been moved or deleted. Try the search box or go to the home page.</p></main></body></html>`
	maintenancePage  = `<!doctype html><html><head><title>Down for maintenance</title></head><body><h1>We're down for maintenance</h1><p>This service is undergoing scheduled maintenance and will be back soon. Thank you for your patience.</p></body></html>`
	refreshStub      = `<!doctype html><html><head><meta http-equiv="refresh" content="0; url=/2027/rates.pdf"><title>Redirecting</title></head><body><p>This page has moved to <a href="/2027/rates.pdf">/2027/rates.pdf</a>.</p></body></html>`
	htmlErrorPage    = `<!doctype html><html><head><title>Error</title></head><body><h1>Something went wrong</h1><p>An unexpected error occurred while processing your request. Please try again later.</p></body></html>`
	ratesPage        = `<!doctype html><html><head><title>Income tax rates</title></head><body><h1>Income tax rates</h1><table><tr><th>Band</th><th>Rate</th></tr><tr><td>Basic rate</td><td>20%%</td></tr><tr><td>Higher rate</td><td>40%%</td></tr></table><p>%s</p></body></html>`
)

// pdfBytes is a small PDF whose content stream says text; the bytes of a
// shorter text are a smaller PDF.
func pdfBytes(text string) []byte {
	stream := "BT /F1 12 Tf 72 720 Td (" + text + ") Tj ET"
	return []byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj\n" +
		fmt.Sprintf("4 0 obj << /Length %d >> stream\n%s\nendstream endobj\n", len(stream), stream) +
		"5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
}

// xlsxLike is enough of a spreadsheet for its type and magic to say so.
var xlsxLike = append([]byte("PK\x03\x04"), bytes.Repeat([]byte("xl/worksheets/sheet1.xml"), 40)...)

// answerCase is one later answer to a source that first served a real
// document.
type answerCase struct {
	name      string
	first     func(w http.ResponseWriter, r *http.Request)
	later     func(w http.ResponseWriter, r *http.Request)
	status    state.Status // after the later answer
	words     string       // in the detail
	evidence  bool         // the later bytes are indexed as evidence
	cited     bool         // the later bytes become the citation (a real change)
	backedOff bool         // the host is backed off after it
}

func serve(ct string, body []byte, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", ct)
		if code := w.Header().Get("X-Test-Status"); code != "" {
			w.Header().Del("X-Test-Status")
			var n int
			fmt.Sscan(code, &n)
			w.WriteHeader(n)
		}
		w.Write(body)
	}
}

func redirectTo(code int, to string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, code) }
}

func answerCases() []answerCase {
	html := "text/html; charset=utf-8"
	page := serve(html, fmt.Appendf(nil, ratesPage, "Updated 6 April 2026."))
	pdf := serve("application/pdf", pdfBytes("Withholding schedule 2026: weekly tax table, 52 rows of figures"))
	return []answerCase{
		{name: "cloudflare-challenge", first: page, later: serve(html, []byte(cloudflareChallenge), "Server", "cloudflare", "CF-Ray", "8a1b2c3d4e5f6789-LHR"), status: state.Failing, words: "Cloudflare", evidence: true},
		{name: "akamai-denied", first: page, later: serve(html, []byte(akamaiDenied), "Server", "AkamaiGHost"), status: state.Failing, words: "Akamai", evidence: true},
		{name: "f5-rejected", first: page, later: serve(html, []byte(f5Rejected)), status: state.Failing, words: "F5", evidence: true},
		{name: "imperva-incapsula", first: page, later: serve(html, []byte(incapsulaBlocked)), status: state.Failing, words: "Incapsula", evidence: true},
		{name: "redirect-home", first: page, later: redirectTo(http.StatusMovedPermanently, "/"), status: state.Failing, words: "redirected to the site's home page"},
		{name: "redirect-sign-in", first: page, later: redirectTo(http.StatusFound, "/login?next=%2Frates"), status: state.Failing, words: "redirected to a sign-in page"},
		{name: "soft-404", first: page, later: serve(html, []byte(softNotFound)), status: state.Failing, words: "page-not-found", evidence: true},
		{name: "maintenance", first: page, later: serve(html, []byte(maintenancePage), "Retry-After", "3600"), status: state.Failing, words: "maintenance", evidence: true, backedOff: true},
		{name: "refresh-stub", first: page, later: serve(html, []byte(refreshStub)), status: state.Moved, words: "the server points to /2027/rates.pdf", evidence: true},
		{name: "html-where-xlsx-was", first: serve("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", xlsxLike), later: serve(html, []byte(htmlErrorPage)), status: state.Failing, words: "where the source held", evidence: true},
		{name: "403-cloudflare-challenge", first: page, later: serve(html, []byte(cloudflareChallenge), "Server", "cloudflare", "cf-mitigated", "challenge", "X-Test-Status", "403"), status: state.Failing, words: "Cloudflare"},

		// Real changes, which must never be held back.
		{name: "smaller-pdf", first: pdf, later: serve("application/pdf", pdfBytes("Withholding schedule 2027")), status: state.Fresh, cited: true},
		{name: "changed-figures", first: page, later: serve(html, []byte(strings.ReplaceAll(fmt.Sprintf(ratesPage, "Updated 6 April 2026."), "20%", "21%"))), status: state.Fresh, cited: true},
		{name: "rewritten-page", first: page, later: serve(html, []byte(`<!doctype html><html><head><title>Rates of Income Tax for 2026 to 2027</title></head><body><h1>Rates of Income Tax</h1><p>The basic rate is 20 per cent on taxable income up to the basic rate limit; the higher rate is 40 per cent above it.</p></body></html>`)), status: state.Fresh, cited: true},
		{name: "genuine-move", first: page, later: redirectTo(http.StatusMovedPermanently, "/2027/rates"), status: state.Fresh, cited: true},
	}
}

// TestNotTheDocumentIsNeverCited: a source holds a real document; on the
// next check the server answers with something standing in its place. The
// source keeps citing what it held, its detail names the cause, and the
// bytes are kept as evidence. Real changes stay changes.
func TestNotTheDocumentIsNeverCited(t *testing.T) {
	t.Parallel()
	for _, c := range answerCases() {
		t.Run(c.name, func(t *testing.T) {
			var later atomic.Bool
			a := newAuthority(t, map[string]http.HandlerFunc{
				"/robots.txt": status(404),
				"/rates": func(w http.ResponseWriter, r *http.Request) {
					if later.Load() {
						c.later(w, r)
						return
					}
					c.first(w, r)
				},
				"/2027/rates": text(fmt.Sprintf(ratesPage, "Moved here in 2027.")),
				"/":           text("<!doctype html><html><head><title>Example Revenue Office</title></head><body><h1>Welcome</h1></body></html>"),
				"/login":      text("<!doctype html><html><head><title>Sign in</title></head><body><form><input name=user><input type=password name=pw></form></body></html>"),
			})
			w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
			if code := w.run(ctx); code != 0 {
				t.Fatalf("first run exit %d:\n%s", code, w.out.String())
			}
			held := w.report()["t-rates"]
			later.Store(true)
			w.run(ctx)
			got := w.report()["t-rates"]
			if got.Status != c.status {
				t.Errorf("status %s (%s), want %s", got.Status, got.Detail, c.status)
			}
			if c.words != "" && !strings.Contains(got.Detail, c.words) {
				t.Errorf("detail %q does not say %q", got.Detail, c.words)
			}
			if c.cited == (got.SHA256 == held.SHA256) {
				t.Errorf("cited %s after %s (real change: %v)", got.SHA256, held.SHA256, c.cited)
			}
			var ix struct {
				Sources map[string][]store.Entry `json:"sources"`
			}
			data, err := os.ReadFile(w.indexPath())
			must(t, err)
			must(t, json.Unmarshal(data, &ix))
			var evidence []store.Entry
			for _, e := range ix.Sources["t-rates"] {
				if e.NotDocument != "" {
					evidence = append(evidence, e)
				}
			}
			if c.evidence != (len(evidence) == 1) || len(evidence) > 1 {
				t.Errorf("evidence in the index: %+v, want %v", evidence, c.evidence)
			}
			md, err := os.ReadFile(w.Reports + "/coverage.md")
			must(t, err)
			if strings.Contains(string(md), "update the manifest to") && !c.cited && c.status != state.Moved {
				t.Errorf("the report advises pointing the manifest elsewhere after a non-document answer:\n%s", md)
			}
			st, err := state.Load(w.State)
			must(t, err)
			if backedOff := st.Host(a.host()).BackoffUntil.After(st.Source("t-rates").LastCheck); backedOff != c.backedOff {
				t.Errorf("host backed off: %v, want %v", backedOff, c.backedOff)
			}
		})
	}
}

// A bot challenge served with a 200 is a refusal: after pause_after_403
// of them in a row the host is paused, as after 403s.
func TestChallengesCountTowardsThePause(t *testing.T) {
	challenge := serve("text/html; charset=utf-8", []byte(cloudflareChallenge), "Server", "cloudflare")
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": challenge})
	var srcs []src
	for i := range 5 {
		srcs = append(srcs, src{fmt.Sprintf("t-%d", i), a.url(fmt.Sprintf("/doc/%d", i)), ""})
	}
	w := newWorkspace(t, testPolicy, "", srcs...)
	w.run(ctx)
	if n := a.count("/doc/0") + a.count("/doc/1") + a.count("/doc/2") + a.count("/doc/3") + a.count("/doc/4"); n != 3 {
		t.Errorf("%d documents requested, want 3: the host pauses after the third challenge", n)
	}
	for id, e := range w.report() {
		if e.Status != state.Paused && e.Status != state.Failing {
			t.Errorf("%s: %s, want paused (or failing for a challenged one)", id, e.Status)
		}
		if e.SHA256 != "" {
			t.Errorf("%s cites the challenge page %s", id, e.SHA256)
		}
	}
}

// A reviewer who finds that the page really was replaced by a notice that
// reads like a missing page accepts its hash in the manifest: it is then
// the document.
func TestAcceptedAnswerIsTheDocument(t *testing.T) {
	notice := []byte(`<!doctype html><html><head><title>Page not found</title></head><body><h1>Page not found</h1><p>The 2025 tables were withdrawn on 1 December 2026.</p></body></html>`)
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/tables": serve("text/html", notice)})
	w := newWorkspace(t, testPolicy, "", src{"t-tables", a.url("/tables"), ""})
	w.run(ctx)
	first := w.report()["t-tables"]
	if first.Status != state.Failing || first.SHA256 != "" {
		t.Fatalf("before acceptance: %s %q, want failing citing nothing", first.Status, first.SHA256)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(notice))
	w.writeManifest("", src{"t-tables", a.url("/tables"), "    accept: [" + sum + "]\n"})
	w.run(ctx)
	got := w.report()["t-tables"]
	if got.Status != state.Fresh || got.SHA256 != sum {
		t.Errorf("after acceptance: %s %s (%s), want fresh citing the notice", got.Status, got.SHA256, got.Detail)
	}
	data, err := os.ReadFile(w.indexPath())
	must(t, err)
	if bytes.Contains(data, []byte("not_document")) {
		t.Errorf("the accepted bytes are still marked as evidence:\n%s", data)
	}
}

// TestNoStandInIsEverCited drives one source through seeded random
// sequences of answers — the document, a real change of it, bot
// challenges, redirects to the home or a sign-in page, soft 404s,
// maintenance pages, outages — a day apart, and after every step holds
// the record to two rules: what the source cites is always bytes a real
// document was served as, and a real change served in that step is what
// it cites.
func TestNoStandInIsEverCited(t *testing.T) {
	t.Parallel()
	html := "text/html; charset=utf-8"
	standIns := []func(http.ResponseWriter, *http.Request){
		serve(html, []byte(cloudflareChallenge), "Server", "cloudflare"),
		serve(html, []byte(akamaiDenied), "Server", "AkamaiGHost"),
		serve(html, []byte(f5Rejected)),
		serve(html, []byte(incapsulaBlocked)),
		serve(html, []byte(softNotFound)),
		serve(html, []byte(maintenancePage), "Retry-After", "120"),
		redirectTo(http.StatusMovedPermanently, "/"),
		redirectTo(http.StatusFound, "/login?next=%2Frates"),
		serve(html, []byte("<html><body>Service Unavailable</body></html>"), "X-Test-Status", "503"),
		serve(html, []byte(cloudflareChallenge), "cf-mitigated", "challenge", "X-Test-Status", "403"),
	}
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 31))
			var current atomic.Pointer[func(http.ResponseWriter, *http.Request)]
			a := newAuthority(t, map[string]http.HandlerFunc{
				"/robots.txt": status(404),
				"/rates":      func(w http.ResponseWriter, r *http.Request) { (*current.Load())(w, r) },
				"/":           text("<!doctype html><html><head><title>Home</title></head><body><h1>Welcome</h1></body></html>"),
				"/login":      text("<!doctype html><html><head><title>Sign in</title></head><body><form><input type=password></form></body></html>"),
			})
			w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
			fake := clock.NewFake(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC))
			w.clock = fake
			documents := map[string]bool{} // hashes of real versions served
			version, changesSeen, standInsSeen := 0, 0, 0
			for step := range 40 {
				var served string // the real version's hash, when this step serves one
				if rng.IntN(3) == 0 {
					if rng.IntN(2) == 0 || version == 0 {
						version++
					}
					body := fmt.Appendf(nil, ratesPage, fmt.Sprintf("Version %d: the basic rate band is £%d.", version, 37000+version))
					served = fmt.Sprintf("%x", sha256.Sum256(body))
					documents[served] = true
					h := serve(html, body)
					current.Store(&h)
				} else {
					h := standIns[rng.IntN(len(standIns))]
					current.Store(&h)
				}
				before := a.count("/rates")
				w.run(ctx)
				asked := a.count("/rates") > before
				got := w.report()["t-rates"]
				if got.SHA256 != "" && !documents[got.SHA256] {
					t.Fatalf("step %d: cites %s, which no real document was served as (%s: %s)", step, got.SHA256, got.Status, got.Detail)
				}
				switch {
				case asked && served != "":
					changesSeen++
				case asked:
					standInsSeen++
				}
				if served != "" && asked && got.SHA256 != served {
					t.Fatalf("step %d: a real change was served but %s is cited (%s: %s)", step, got.SHA256, got.Status, got.Detail)
				}
				fake.Advance(25 * time.Hour) // past any pause or backoff
			}
			if changesSeen < 5 || standInsSeen < 10 {
				t.Errorf("the schedule served %d real versions and %d stand-ins: too few to say anything", changesSeen, standInsSeen)
			}
		})
	}
}

// A host that keeps challenging us adds one piece of evidence for the
// spell, not a blob a day: each challenge page has a ray id of its own.
func TestOneEvidencePerSpell(t *testing.T) {
	var n atomic.Int32
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			if n.Add(1) == 1 {
				fmt.Fprintf(w, ratesPage, "")
				return
			}
			fmt.Fprint(w, strings.Replace(cloudflareChallenge, "8a1b2c3d4e5f6789", fmt.Sprintf("ray%013d", n.Load()), 1))
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	for range 4 {
		w.run(ctx)
	}
	data, err := os.ReadFile(w.indexPath())
	must(t, err)
	if got := bytes.Count(data, []byte(`"not_document"`)); got != 1 {
		t.Errorf("%d pieces of evidence for one spell of challenges, want 1:\n%s", got, data)
	}
	blobs := 0
	filepath.WalkDir(filepath.Join(w.Snapshots, "sha256"), func(_ string, d fs.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			blobs++
		}
		return nil
	})
	if blobs != 2 {
		t.Errorf("%d blobs held, want 2 (the document and the first challenge)", blobs)
	}
}
