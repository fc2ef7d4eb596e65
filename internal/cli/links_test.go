package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritesRefuseLinks: with reports/, snapshots/ or the state directory
// committed (or left) as a link to a directory outside, report and run
// refuse with exit 3, name the path, and write nothing into the target.
func TestWritesRefuseLinks(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/rates": text("rates")})
	for _, linked := range []string{"reports", "snapshots", "state"} {
		t.Run(linked, func(t *testing.T) {
			w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
			outside := t.TempDir()
			dir := map[string]string{"reports": w.Reports, "snapshots": w.Snapshots, "state": w.State}[linked]
			must(t, os.Symlink(outside, dir))
			flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State}
			for _, cmd := range []string{"report", "run"} {
				if cmd == "report" && linked != "reports" {
					continue // report writes nothing else
				}
				args := append([]string{cmd}, flags...)
				if cmd == "report" {
					args = []string{cmd, "--manifests", w.Manifests, "--reports", w.Reports, "--state", w.State}
				}
				code, _, stderr := runMain(t, nil, args...)
				if code != ExitCannot || !strings.Contains(stderr, "refusing to write "+dir) || !strings.Contains(stderr, "symbolic link") {
					t.Errorf("%s with %s a link: exit %d, stderr:\n%s\nwant exit 3 naming %s", cmd, linked, code, stderr, dir)
				}
			}
			ents, _ := os.ReadDir(outside)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if len(names) > 0 {
				t.Errorf("written through the link into %s: %v", outside, names)
			}
		})
	}
	// A link deeper down, the state's ledgers, is refused as well.
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	outside := t.TempDir()
	must(t, os.MkdirAll(w.State, 0o755))
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State}
	must(t, os.Symlink(outside, filepath.Join(w.State, "ledgers")))
	if code, _, stderr := runMain(t, nil, append([]string{"run"}, flags...)...); code != ExitCannot || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("run with state/ledgers a link: exit %d\n%s", code, stderr)
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("a ledger was written through the link: %v", ents)
	}
}
