package cli

import (
	"net/http"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Each version a run indexes carries the Software Heritage identifier of
// its bytes, a document's and a piece of evidence's alike.
func TestRunIndexesSWHID(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/rates": text("Personal Allowance £12,570")})
	w := newWorkspace(t, testPolicy, "", src{"test-rates", a.url("/rates"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	ix, err := store.LoadIndex(w.indexPath())
	must(t, err)
	es := ix.Entries("test-rates")
	if len(es) != 1 || es[0].SWHID != store.SWHIDOf([]byte("Personal Allowance £12,570")) {
		t.Errorf("index entries %+v, want one with the SWHID of the bytes served", es)
	}
	code, out, stderr := runMain(t, nil, "cite", "test-rates", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State)
	if code != ExitOK || !strings.Contains(out, "swhid:        "+store.SWHIDOf([]byte("Personal Allowance £12,570"))+"\n") {
		t.Errorf("cite: exit %d, no swhid line\n%s%s", code, out, stderr)
	}
}
