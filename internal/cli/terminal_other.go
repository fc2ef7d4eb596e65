//go:build !linux && !windows && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package cli

import "os"

// isTerminalFile falls back to the file's mode where the terminal driver
// cannot be asked.
func isTerminalFile(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
