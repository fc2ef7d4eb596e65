// Package interoptest runs, for the interoperability tests, the
// independent implementations from the npm registry that .ci/interop.sh
// installs: each through its small driver in scripts/interop/, which
// prints what the implementation read as JSON lines. It is for tests only.
package interoptest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NPMDirEnv names the folder whose node_modules holds the implementations;
// without it the interoperability tests skip.
const NPMDirEnv = "TAXKERNELBOT_NPM_DIR"

// Need skips t when NPMDirEnv is unset (needs names the packages the test
// reads with, for the message) and fails it when node is missing; it
// returns the npm folder and node. Call it before the work the test would
// do for nothing.
func Need(t testing.TB, needs string) (npm, node string) {
	t.Helper()
	npm = os.Getenv(NPMDirEnv)
	if npm == "" {
		t.Skipf("set %s to a folder with node_modules/%s (.ci/interop.sh does)", NPMDirEnv, needs)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%s is set but node is not on PATH: %v", NPMDirEnv, err)
	}
	return npm, node
}

// Run runs scripts/interop/<script> with node, the npm folder and args, and
// returns what it printed on its standard output. It skips or fails t as
// Need does, and fails it when the script fails.
func Run(t testing.TB, script, needs string, args ...string) []byte {
	t.Helper()
	npm, node := Need(t, needs)
	path := filepath.Join(moduleRoot(t), "scripts", "interop", script)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), node, append([]string{path, npm}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s%s", path, err, out, stderr.Bytes())
	}
	return out
}

// moduleRoot is the folder of go.mod above the test's working directory
// (its package's folder).
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}
