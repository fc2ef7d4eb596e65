package textview

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// execLimited replaces this process with path under the memory and CPU
// bounds. Everything exec needs is made before the bounds are set: once
// the data limit is on, the Go runtime (with the race detector's shadow
// memory, above all) may not get another page.
func execLimited(path string, argv, env []string, memory int64, cpu time.Duration) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	av, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return err
	}
	ev, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	if err := setLimits(memory, cpu, false); err != nil {
		return err
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE,
		uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&av[0])), uintptr(unsafe.Pointer(&ev[0])))
	return errno
}

// nearMemory reports a child whose peak resident memory reached half its
// memory bound: one that died of it, whatever it said (the Go runtime,
// refused a page, does not always say "out of memory", and has mapped
// more than it holds resident).
func nearMemory(ps *os.ProcessState, bound int64) bool {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	return ok && bound > 0 && ru.Maxrss*1024 >= bound/2
}
