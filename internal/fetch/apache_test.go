package fetch

import (
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// apacheDeflate serves body as Apache 2.4 serves a static file through
// mod_deflate with its default DeflateAlterETag AddSuffix: compressed only
// when the request accepts gzip, and then with "-gzip" appended to the
// ETag (inside the quotes) and Vary: Accept-Encoding. A conditional
// request is answered by the core before the filter runs, so its
// If-None-Match is compared with the file's own ETag: one carrying the
// suffix matches nothing (Apache bug 45023), and RFC 9110 has the server
// ignore If-Modified-Since when If-None-Match is present.
type apacheDeflate struct {
	body         []byte
	etag         string // the file's, as the core makes it
	lastModified time.Time

	mu             sync.Mutex
	acceptEncoding []string // what each request said, "" for nothing
}

func (a *apacheDeflate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.acceptEncoding = append(a.acceptEncoding, r.Header.Get("Accept-Encoding"))
	a.mu.Unlock()
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	etag := a.etag
	if gz {
		etag = strings.TrimSuffix(etag, `"`) + `-gzip"`
	}
	w.Header().Set("Vary", "Accept-Encoding")
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", a.lastModified.UTC().Format(http.TimeFormat))
	w.Header().Set("Content-Type", "text/html")
	notModified := false
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		notModified = etagListMatches(inm, a.etag)
	} else if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil {
		notModified = !a.lastModified.Truncate(time.Second).After(ims)
	}
	if notModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if !gz {
		w.Write(a.body)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	zw := gzip.NewWriter(w)
	zw.Write(a.body)
	zw.Close()
}

// acceptsGzip: gzip (or *) is listed and not refused with q=0.
func acceptsGzip(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if c := strings.ToLower(strings.TrimSpace(coding)); (c == "gzip" || c == "*") && !strings.Contains(strings.ReplaceAll(params, " ", ""), "q=0") {
			return true
		}
	}
	return false
}

// etagListMatches is the weak comparison of If-None-Match.
func etagListMatches(list, etag string) bool {
	for _, tag := range strings.Split(list, ",") {
		if tag = strings.TrimSpace(tag); tag == "*" || strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}

// prose is n bytes of made-up words, which compress about as an HTML page
// of text does (a third or so), where a repeated line would compress to
// nothing and flatter gzip.
func prose(n int) []byte {
	words := strings.Fields("the rate of income tax band allowance personal taxable for above applies each year relief national insurance contributions employer employee threshold <p> </p> <td> </td> <tr> </tr> £12,570 £50,270 20% 40% 45% April 2026 to 2027 of and a is on in")
	rng := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(" \n"[rng.IntN(8)/7])
	}
	return []byte(b.String()[:n])
}

// TestApacheDeflateETag is why the client sends no Accept-Encoding. Against
// a server that behaves as Apache's mod_deflate by default, our re-check of
// an unchanged document is a 304 with no body, every time. A client that
// asks for gzip gets "abc-gzip", sends it back, matches nothing, and gets
// the whole (compressed) body on every re-check: the test measures both
// over a month of daily re-checks.
func TestApacheDeflateETag(t *testing.T) {
	const rechecks = 30
	page := prose(60 << 10)
	a := &apacheDeflate{body: page, etag: `"f000-63c1a2b4e8f00"`, lastModified: time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)}
	srv := server(t, a.ServeHTTP)

	// Ours: the validators of the first answer, sent on every re-check.
	c := newClient(nil)
	first, err := c.Get(t.Context(), Request{URL: srv.URL + "/rates.html"}, &sentSink{})
	if err != nil || first.Status != 200 {
		t.Fatalf("first check: %+v, %v", first, err)
	}
	if first.ETag != a.etag || first.Sent != nil {
		t.Errorf("first check: ETag %s, as sent %+v: want the file's ETag and its own bytes", first.ETag, first.Sent)
	}
	ours := first.Size
	for i := range rechecks {
		resp, err := c.Get(t.Context(), Request{URL: srv.URL + "/rates.html", ETag: first.ETag, LastModified: first.LastModified}, &sentSink{})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != http.StatusNotModified {
			t.Fatalf("re-check %d of an unchanged document: %d, want 304", i+1, resp.Status)
		}
		ours += resp.Size
	}
	a.mu.Lock()
	for i, ae := range a.acceptEncoding {
		if ae != "" {
			t.Errorf("request %d sent Accept-Encoding: %s", i+1, ae)
		}
	}
	a.acceptEncoding = nil
	a.mu.Unlock()

	// A client that asks for gzip, and does as we do with what it gets.
	asks := func(etag, lastModified string) (status int, etagBack, lmBack string, n int64) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/rates.html", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
			req.Header.Set("If-Modified-Since", lastModified)
		}
		resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		n, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), n
	}
	status, etag, lm, gzipped := asks("", "")
	if status != 200 || etag != `"f000-63c1a2b4e8f00-gzip"` {
		t.Fatalf("gzip asked: %d, ETag %s; want 200 with the -gzip ETag", status, etag)
	}
	theirs := gzipped
	for i := range rechecks {
		status, _, _, n := asks(etag, lm)
		if status != 200 {
			t.Fatalf("re-check %d asking gzip: %d; a server that behaves as mod_deflate answers 200", i+1, status)
		}
		theirs += n
	}
	t.Logf("a %d-byte page (%d gzipped), checked once and re-checked %d times unchanged: without Accept-Encoding %d body bytes (%d re-checks, all 304); with Accept-Encoding: gzip %d body bytes (every re-check a 200)",
		len(page), gzipped, rechecks, ours, rechecks, theirs)
}
