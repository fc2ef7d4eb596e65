package cli

// Hostile servers: each case is a scripted loopback authority that
// misbehaves in one way; the run must end within its bound, store nothing
// that was not served whole, say in the report what happened, and bend no
// operating rule.

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blobs lists the files under the store's sha256/ (temp files included).
func (w *workspace) blobs() []string {
	w.t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(w.Snapshots, "sha256"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestHostilePartialContentIsFailingNothingStored(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/doc": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-9/1000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write([]byte("0123456789"))
		},
		"/empty": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
	})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""}, src{"t-empty", a.url("/empty"), ""})
	if code := w.run(ctx); code != ExitFailures {
		t.Errorf("exit %d, want 1 (failures recorded)\n%s", code, w.out.String())
	}
	for id, code := range map[string]string{"t-doc": "206", "t-empty": "204"} {
		e := w.report()[id]
		if e.Status != "failing" || e.SHA256 != "" || !strings.Contains(e.Detail, code) {
			t.Errorf("%s: %+v, want failing with a detail naming the %s and no hash", id, e, code)
		}
	}
	if b := w.blobs(); len(b) != 0 {
		t.Errorf("store holds %v after a 206 and a 204, want nothing", b)
	}
}

func TestHostileGzipRobotsIsObeyed(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("User-agent: *\nDisallow: /private/\n"))
	zw.Close()
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip") // as S3 serves it
			w.Write(gz.Bytes())
		},
		"/private/doc": text("secret"),
		"/public":      text("public"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-private", a.url("/private/doc"), ""}, src{"t-public", a.url("/public"), ""})
	w.run(ctx)
	if n := a.count("/private/doc"); n != 0 || w.status("t-private") != "blocked-robots" {
		t.Errorf("t-private: %s after %d requests, want blocked-robots and never requested", w.status("t-private"), n)
	}
	if got := w.status("t-public"); got != "fresh" {
		t.Errorf("t-public: %s, want fresh", got)
	}
}
