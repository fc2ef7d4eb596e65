package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// isTerminalFile asks for the console's mode: NUL and pipes have none.
func isTerminalFile(f *os.File) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}
