package cli

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
)

// After a change of bytes that leaves the text as it was (a build stamp in
// a comment), the held bytes stay the citation, but the next check must
// ask with the new answer's validators: with the old ones, every later
// check costs the whole body again.
func TestValidatorsFollowTheLastAnswer(t *testing.T) {
	var build atomic.Int32
	build.Store(1)
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates": func(w http.ResponseWriter, r *http.Request) {
			etag := fmt.Sprintf(`"build-%d"`, build.Load())
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<html><body><!-- build %d --><h1>Rates</h1><p>Basic rate 20%%</p></body></html>", build.Load())
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	w.run(ctx)
	cited := w.report()["t-rates"].SHA256
	build.Store(2)
	w.run(ctx) // 200: new bytes, the same text
	if got := w.report()["t-rates"].SHA256; got != cited {
		t.Fatalf("a comment-only change moved the citation from %s to %s", cited, got)
	}
	a.reset()
	w.run(ctx)
	w.run(ctx)
	for _, s := range a.seen() {
		if s.Path != "/rates" {
			continue
		}
		if got := s.Header.Get("If-None-Match"); got != `"build-2"` {
			t.Errorf("re-check after a bytes-only change sent If-None-Match %q, want the last answer's \"build-2\"", got)
		}
	}
	for _, l := range w.ledgerLines() {
		if l.URL == a.url("/rates") && l.Status == 200 && l.SHA256 != "" && l.Time.After(a.seen()[0].Arrived.Add(-1)) {
			t.Errorf("a later check of unchanged bytes cost a whole body: %+v", l)
		}
	}
	if got := w.report()["t-rates"]; got.SHA256 != cited || got.Status != "fresh" {
		t.Errorf("after the 304s: %s %s, want fresh with the held %s", got.Status, got.SHA256, cited)
	}
}
