package demo

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Authorities is the set of running demo servers.
type Authorities struct {
	// edition is which version of the scripted pages is served: the
	// budget page's rate changes and the forms page's token turns over
	// with each NextEdition.
	edition atomic.Int64
	servers []*authority
	keys    *keyDirectory // set by ServeKeyDirectory
	checks  signatureChecks
}

type authority struct {
	name   string
	srv    *httptest.Server
	mu     sync.Mutex
	hits   []time.Time
	checks *signatureChecks
}

func (a *authority) host() string { return strings.TrimPrefix(a.srv.URL, "http://") }

func (a *authority) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits = append(a.hits, time.Now())
		a.mu.Unlock()
		a.checks.check(r)
		h.ServeHTTP(w, r)
	})
}

const ratesBody = "<html><body><h1>Income tax rates 2026-27</h1><table><tr><td>Basic</td><td>20%</td></tr></table></body></html>\n"

// Start starts one server per behaviour.
func Start() *Authorities {
	a := &Authorities{}
	lastMod := time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)

	// A well-behaved tax office: validators, a redirect, a missing page.
	a.add("revenue", func(mux *http.ServeMux) {
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		})
		doc := func(body, etag string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("ETag", etag)
				w.Header().Set("Last-Modified", lastMod)
				if r.Header.Get("If-None-Match") == etag {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, body)
			}
		}
		mux.HandleFunc("/income-tax-rates", doc(ratesBody, `"rates-2026"`))
		mux.HandleFunc("/paye-tables.csv", doc("band,from,to,rate\nbasic,12571,50270,20\n", `"paye-7"`))
		mux.HandleFunc("/rates", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/income-tax-rates-2026", http.StatusMovedPermanently)
		})
		mux.HandleFunc("/income-tax-rates-2026", doc(ratesBody+"<!-- 2026 -->\n", `"rates-2026b"`))
		mux.HandleFunc("/old-table", http.NotFound)
		// A page whose rate changes between the demo's runs (NextEdition).
		mux.HandleFunc("/budget-rates", func(w http.ResponseWriter, r *http.Request) {
			band := "£37,700"
			if a.edition.Load() > 0 {
				band = "£37,500"
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<html><body><h1>Budget rates 2027-28</h1><table><tr><th>Band</th><th>Taxable income</th><th>Rate</th></tr>"+
				"<tr><td>Basic rate</td><td>up to %s</td><td>20%%</td></tr><tr><td>Higher rate</td><td>over %s</td><td>40%%</td></tr></table></body></html>\n", band, band)
		})
		// A page that blinks: a new form token and generation time at every
		// request, the same text.
		mux.HandleFunc("/forms", func(w http.ResponseWriter, r *http.Request) {
			n := a.edition.Load()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><head><meta name="generated" content="2026-12-0%dT06:00:00Z"><meta name="csrf-token" content="tok-%d"></head>`+
				`<body><h1>Forms</h1><form><input type="hidden" name="csrf" value="tok-%d"><p>File your return by 31 January.</p></form></body></html>`+"\n",
				n+1, 7919*(n+1), 7919*(n+1))
		})
	})
	// A legislature whose robots.txt keeps drafts out and asks for spacing.
	a.add("legislature", func(mux *http.ServeMux) {
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "User-agent: *\nDisallow: /drafts/\nCrawl-delay: 0.05\n")
		})
		mux.HandleFunc("/acts/income-tax-act", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "Income Tax Act, consolidated to 2026-10-01.\n")
		})
		mux.HandleFunc("/drafts/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "never requested", http.StatusTeapot)
		})
	})
	// A gazette whose robots.txt is down: nothing else may be requested.
	a.add("gazette", func(mux *http.ServeMux) {
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
		})
	})
	// A statistics office that rate-limits.
	a.add("statistics", func(mux *http.ServeMux) {
		mux.HandleFunc("/robots.txt", http.NotFound)
		mux.HandleFunc("/withholding", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		})
	})
	// A portal that refuses us.
	a.add("portal", func(mux *http.ServeMux) {
		mux.HandleFunc("/robots.txt", http.NotFound)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "forbidden", http.StatusForbidden)
		})
	})
	return a
}

// NextEdition makes the scripted pages change: the budget page's rate
// for real, the forms page only in its token.
func (a *Authorities) NextEdition() { a.edition.Add(1) }

func (a *Authorities) add(name string, routes func(*http.ServeMux)) {
	mux := http.NewServeMux()
	routes(mux)
	au := &authority{name: name, checks: &a.checks}
	au.srv = httptest.NewServer(au.record(mux))
	a.servers = append(a.servers, au)
}

func (a *Authorities) byName(name string) *authority {
	for _, s := range a.servers {
		if s.name == name {
			return s
		}
	}
	panic("demo: no authority " + name)
}

// Close stops every server.
func (a *Authorities) Close() {
	for _, s := range a.servers {
		s.srv.Close()
	}
	if a.keys != nil {
		a.keys.srv.Close()
	}
}

// WriteManifests writes policy.yaml (millisecond delays, private networks
// allowed) and one manifest naming the servers into dir.
func (a *Authorities) WriteManifests(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	policy := `# Demo policy: millisecond spacing is allowed only because every host is on loopback.
user_agent: "TaxKernelBot/1.0 (+https://taxkernel.com/bot)"
from: contact@taxkernel.com
delay: {min: 20ms, max: 40ms}
daily_cap: 50
backoff_max: 2s
pause_after_403: 2
robots_ttl: 24h
timeout: 5s
max_body: 1MiB
allow_private_networks: true
`
	if a.keys != nil {
		policy += "sign: {directory: \"" + a.keys.url + "\"}\n"
	}
	u := func(name, path string) string { return a.byName(name).srv.URL + path }
	manifest := fmt.Sprintf(`jurisdiction: demo
name: Demo Republic
timezone: UTC
sources:
  - id: demo-income-tax-rates
    url: %s
    kind: rates-page
    title: Income tax rates
    recheck: 1ms
    encodes: [demo.income-tax.bands]
  - id: demo-paye-tables
    url: %s
    kind: tax-table
    title: PAYE tables
    recheck: 1ms
  - id: demo-rates-redirect
    url: %s
    kind: rates-page
    title: Rates (old address, redirects)
    recheck: 1ms
  - id: demo-old-table
    url: %s
    kind: tax-table
    title: Withdrawn table
    recheck: 1ms
  - id: demo-budget-rates
    url: %s
    kind: rates-page
    title: Budget rates 2027-28
    recheck: 1ms
    encodes: [demo.income-tax.bands-2027]
  - id: demo-forms
    url: %s
    kind: rates-page
    title: Forms and deadlines
    recheck: 1ms
  - id: demo-income-tax-act
    url: %s
    kind: legislation
    title: Income Tax Act (consolidated)
    recheck: 1ms
    gaps: ["Schedule 3 not encoded yet"]
  - id: demo-draft-bill
    url: %s
    kind: legislation
    title: Draft Finance Bill
    recheck: 1ms
  - id: demo-gazette-notice
    url: %s
    kind: gazette
    title: Gazette notice 2026/41
    recheck: never
  - id: demo-withholding
    url: %s
    kind: withholding-schedule
    title: Withholding schedule
    recheck: 1ms
  - id: demo-portal-rates
    url: %s
    kind: rates-page
    title: Portal rates
    recheck: 1ms
  - id: demo-portal-tables
    url: %s
    kind: tax-table
    title: Portal tables
    recheck: 1ms
  - id: demo-portal-schedule
    url: %s
    kind: withholding-schedule
    title: Portal schedule
    recheck: 1ms
`,
		u("revenue", "/income-tax-rates"), u("revenue", "/paye-tables.csv"), u("revenue", "/rates"),
		u("revenue", "/old-table"), u("revenue", "/budget-rates"), u("revenue", "/forms"), u("legislature", "/acts/income-tax-act"), u("legislature", "/drafts/finance-bill"),
		u("gazette", "/notices/2026-41"), u("statistics", "/withholding"),
		u("portal", "/rates"), u("portal", "/tables"), u("portal", "/schedule"))
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(policy), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "demo.yaml"), []byte(manifest), 0o644)
}

// Seen describes, per server, what it received: the operator's view.
func (a *Authorities) Seen() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %-17s %8s  %s\n", "server", "host", "requests", "shortest gap between two arrivals")
	names := make([]string, 0, len(a.servers))
	for _, s := range a.servers {
		names = append(names, s.name)
	}
	sort.Strings(names)
	for _, n := range names {
		s := a.byName(n)
		s.mu.Lock()
		gap := "-"
		if len(s.hits) > 1 {
			shortest := s.hits[1].Sub(s.hits[0])
			for i := 2; i < len(s.hits); i++ {
				shortest = min(shortest, s.hits[i].Sub(s.hits[i-1]))
			}
			gap = shortest.Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "%-12s %-17s %8d  %s\n", n, s.host(), len(s.hits), gap)
		s.mu.Unlock()
	}
	return b.String()
}
