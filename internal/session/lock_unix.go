//go:build unix

package session

import (
	"os"
	"syscall"
)

// lockFile takes f's exclusive advisory lock without waiting; the system
// drops it when the process ends, however it ends.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
