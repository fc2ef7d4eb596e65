//go:build unix && !linux

package textview

import (
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
