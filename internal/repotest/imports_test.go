package repotest

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/taxkernel/taxkernelbot/"

// deps lists the packages pkg (a path under the module) imports, directly
// or not, as `go list -deps` sees them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+pkg)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
	}
	return strings.Fields(string(out))
}

// Packages that must not link another. The extractor (textview) starts
// its child process from an init() in any program that links it, so a
// package that only reads manifests, or a leaf below it, must not
// (cmd/taxkernelbot's package comment says which are at the bottom). And
// the dependencies between the cycle and the publisher point one way.
func TestPackagesDoNotLinkWhatTheyMustNot(t *testing.T) {
	for _, rule := range []struct{ pkg, not, why string }{
		{"internal/manifest", "internal/textview", "manifest checks views through internal/view; textview links the extraction child"},
		{"internal/view", "internal/textview", "view is the model textview applies, not the other way round"},
		{"internal/ledger", "internal/textview", "a leaf of the run: it must not link the extraction child"},
		{"internal/store", "internal/textview", "a leaf of the run: textview reads the store, not the other way round"},
		{"internal/state", "internal/textview", "a leaf of the run: it must not link the extraction child"},
		{"internal/publish", "internal/cycle", "the cycle hands the publisher what it needs; the publisher does not reach back"},
		{"internal/publish", "internal/session", "the publisher publishes what a run left; it runs none"},
		{"internal/botrepo", "internal/publish", "botrepo is the layout below the cycle and the publisher"},
		{"internal/botrepo", "internal/cycle", "botrepo is the layout below the cycle and the publisher"},
		// A run is lock, recover, fetch, save: what it leaves for people to
		// read is rendered by outputs, which its callers hand in as a hook.
		{"internal/session", "internal/outputs", "the run's outputs are its caller's hook"},
		{"internal/session", "internal/public", "pages and feeds are rendered by outputs alone"},
		{"internal/session", "internal/report", "the coverage report is rendered by outputs alone"},
		{"internal/session", "internal/review", "a run writes no review text"},
		{"internal/session", "internal/github", "a run speaks to no forge"},
	} {
		got := deps(t, rule.pkg)
		if len(got) == 0 {
			t.Fatalf("go list -deps %s listed nothing", rule.pkg)
		}
		if slices.Contains(got, module+rule.not) {
			t.Errorf("%s links %s: %s", rule.pkg, rule.not, rule.why)
		}
	}
}
