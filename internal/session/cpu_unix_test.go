//go:build unix

package session

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used in user space and in the
// kernel.
func cpuTime() (user, sys time.Duration) {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0, 0
	}
	return time.Duration(u.Utime.Nano()), time.Duration(u.Stime.Nano())
}
