package textview

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMain makes the command, built once without the race detector, the
// extraction child of this package's tests when they run under it. The
// child would otherwise be the test binary itself, built with -race: every
// Go extraction in it ran five to ten times slower, and the real-PDF,
// ICDAR, damaged-copy and bomb tests spent most of the package's time
// there. The command is what a run really starts as its child (with its
// memory bound, which a race-built child goes without); the extractors
// themselves still run under the race detector in this process (extractHere
// and the tests that turn isolate off). Without a go command (a test binary
// run on its own) the tests keep the test binary as the child.
func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if raceEnabled {
		dir, err := os.MkdirTemp("", "textview-test-child-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "textview tests:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "taxkernelbot")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/taxkernel/taxkernelbot/cmd/taxkernelbot").CombinedOutput()
		switch {
		case errors.Is(err, exec.ErrNotFound):
			fmt.Fprintln(os.Stderr, "textview tests: no go command to build the extraction child; the race-built test binary is the child")
		case err != nil:
			fmt.Fprintf(os.Stderr, "textview tests: build the extraction child (cmd/taxkernelbot): %v\n%s", err, out)
			return 1
		default:
			selfOnce.Do(func() { selfPath = bin })
		}
	}
	return m.Run()
}
