//go:build unix && !linux

package textview

import (
	"os"
	"syscall"
	"time"
)

// execLimited replaces this process with path under the memory and CPU
// bounds.
func execLimited(path string, argv, env []string, memory int64, cpu time.Duration) error {
	if err := setLimits(memory, cpu, false); err != nil {
		return err
	}
	return syscall.Exec(path, argv, env)
}

// nearMemory: the peak resident memory is not told here in a unit to
// trust, so only what the child says counts.
func nearMemory(ps *os.ProcessState, bound int64) bool { return false }
