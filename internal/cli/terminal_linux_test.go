package cli

import (
	"os"
	"testing"
)

// TestOnlyATerminalIsATerminal: /dev/null is a character device, not a
// terminal. Taken for one, `run 2>/dev/null` drew the live view of every
// host into it after each event, sorting a thousand hosts' names each
// time: on a wide run that was most of the time between the last answer
// and the end of the run. A pseudo-terminal is one.
func TestOnlyATerminalIsATerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	must(t, err)
	defer null.Close()
	if isTerminal(null) {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
	r, w, err := os.Pipe()
	must(t, err)
	defer r.Close()
	defer w.Close()
	if isTerminal(w) {
		t.Error("a pipe is taken for a terminal")
	}
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to hold it against: %v", err)
	}
	defer pty.Close()
	if !isTerminal(pty) {
		t.Error("a pseudo-terminal is not taken for a terminal")
	}
}
