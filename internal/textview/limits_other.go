//go:build !unix

package textview

import (
	"errors"
	"os"
	"time"
)

// setLimits: here only the Go runtime's soft memory limit (set by the
// child) and the parent's deadline and output limit bound a child.
func setLimits(memory int64, cpu time.Duration, goChild bool) error { return nil }

func execLimited(path string, argv, env []string, memory int64, cpu time.Duration) error {
	return errors.New("not supported on this system")
}

// canWrap is false: pdftotext is run directly, bounded by the deadline and
// the output limit.
const canWrap = false

func overCPU(ps *os.ProcessState) bool { return false }

func nearMemory(ps *os.ProcessState, bound int64) bool { return false }
