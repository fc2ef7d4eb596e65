//go:build unix

package textview

import (
	"os"
	"syscall"
	"time"
)

// setLimits bounds this process (a child about to extract): its data
// segment (heap and private mappings, what a bomb fills) and its CPU
// time. The Go runtime reserves address space it never uses, so the
// address-space limit would end a Go child before it starts; the data
// limit does not. Under the race detector, whose shadow memory is private
// data, a Go child keeps only the runtime's own soft limit.
func setLimits(memory int64, cpu time.Duration, goChild bool) error {
	if memory > 0 && !(goChild && raceEnabled) {
		m := uint64(memory)
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: m, Max: m}); err != nil {
			return err
		}
	}
	if cpu > 0 {
		s := uint64((cpu + time.Second - 1) / time.Second)
		if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: s, Max: s + 1}); err != nil {
			return err
		}
	}
	return nil
}

// canWrap reports whether a program can be run under limits through a
// child of this one (execProgram works here).
const canWrap = true

// overCPU reports a process ended by its CPU time limit.
func overCPU(ps *os.ProcessState) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && (ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL)
}
