package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
)

// A state.json whose hash was cut to one character (a hand edit, a bad
// merge) stops ci with an error that names the file and the field, never a
// panic.
func TestCIRefusesAShortHashInState(t *testing.T) {
	t.Parallel()
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/doc": text("x")})
	p := newPipelineRepo(t)
	sources := []src{{"t-doc", a.url("/doc"), ""}}
	p.seedMainReport(t, newWorkspace(t, testPolicy, "", sources...))
	w := newWorkspace(t, testPolicy, "", sources...)
	if code := p.ci(w, "100-1"); code != ExitOK {
		t.Fatalf("first ci: exit %d\n%s", code, w.out.String())
	}
	// Break the state on the cache branch, as a bad merge would.
	st := p.file(t, botrepo.CacheBranch, "state.json")
	i := strings.Index(st, `"sha256": "`)
	if i < 0 {
		t.Fatalf("no sha256 in the cache branch state:\n%s", st)
	}
	j := i + len(`"sha256": "`)
	broken := st[:j] + "a" + st[j+64:]
	p.git.Commit(t, "acme/tax.git", botrepo.CacheBranch, "break", map[string][]byte{"state.json": []byte(broken)})
	w2 := newWorkspace(t, testPolicy, "", sources...)
	// Not due again, so the run keeps the broken hash rather than replacing it.
	mf := filepath.Join(w2.Manifests, "test.yaml")
	b, err := os.ReadFile(mf)
	must(t, err)
	must(t, os.WriteFile(mf, []byte(strings.ReplaceAll(string(b), "recheck: 1ms", "recheck: 24h")), 0o644))
	var code int
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("ci panicked on a 1-character hash: %v", r)
			}
		}()
		code = p.ci(w2, "101-1")
	}()
	out := w2.out.String()
	if code != ExitCannot || !strings.Contains(out, "state.json") || !strings.Contains(out, "sha256") {
		t.Errorf("ci on a 1-character hash: exit %d, want %d naming state.json and sha256:\n%s", code, ExitCannot, out)
	}
}
