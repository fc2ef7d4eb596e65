//go:build !unix

package session

import "time"

// cpuTime is 0 where the process's CPU time is not read.
func cpuTime() (user, sys time.Duration) { return 0, 0 }
