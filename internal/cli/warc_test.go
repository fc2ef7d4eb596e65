package cli

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc/v3"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestWarcAfterRuns: two runs (a 200, then a 304) and `warc` export the
// capture with the response headers kept in the index, and a revisit.
func TestWarcAfterRuns(t *testing.T) {
	const etag = `"v1"`
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/doc": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", etag)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Set-Cookie", "track=1")
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, "<p>rates</p>")
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	w.run(ctx)
	w.run(ctx)

	ix, err := store.LoadIndex(w.indexPath())
	must(t, err)
	es := ix.Entries("t-doc")
	if len(es) != 1 || es[0].Status != 200 || es[0].Fetched == "" || es[0].Header["ETag"] != etag ||
		es[0].Header["Date"] == "" || es[0].Header["Content-Length"] != "12" || es[0].Header["Set-Cookie"] != "" {
		t.Fatalf("index entry does not keep the replay headers: %+v", es)
	}

	out := filepath.Join(t.TempDir(), "export.warc.gz")
	code, _, stderr := runMain(t, nil, "warc", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "-o", out)
	if code != ExitOK {
		t.Fatalf("warc: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "1 capture(s) (request and response), 1 revisit(s), 1 source(s)") {
		t.Errorf("summary: %s", stderr)
	}
	r, err := gowarc.NewWarcFileReader(out, 0, gowarc.WithStrictValidation())
	must(t, err)
	defer r.Close()
	var got []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		must(t, err)
		wr := rec.WarcRecord
		line := wr.Type().String()
		if len(rec.Validation) > 0 {
			t.Errorf("%s: %v", wr, rec.Validation)
		}
		if wr.Type() == gowarc.Response {
			hb := wr.Block().(gowarc.HttpResponseBlock)
			line += " " + hb.HttpHeader().Get("ETag") + " " + wr.WarcHeader().Get(gowarc.WarcPayloadDigest)
		}
		if wr.Type() == gowarc.Revisit {
			line += " " + wr.WarcHeader().Get(gowarc.WarcProfile)
		}
		got = append(got, line)
		rec.Close()
	}
	want := []string{
		"warcinfo", "request",
		"response " + etag + " sha256:" + es[0].SHA256.String(),
		"revisit " + gowarc.ProfileServerNotModifiedV1_1,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if code, _, stderr := runMain(t, nil, "warc", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State); code != ExitUsage {
		t.Errorf("without -o: exit %d (%s), want 2", code, stderr)
	}
	if code, _, _ := runMain(t, nil, "warc", "--manifests", w.Manifests, "--since", "yesterday", "-o", out); code != ExitUsage {
		t.Errorf("bad --since: exit %d, want 2", code)
	}
}
