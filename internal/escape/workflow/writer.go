package workflow

import (
	"io"
	"strings"
	"sync"
)

// Writer passes what is written to it on to a log one whole line at a
// time, each made a plain line by Line (tabs kept: help text aligns with
// them), so that no message, however it
// was put together, gives the runner a command. The commands this program
// means to give go through Emit. Flush writes a last line that has no
// newline yet.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (g *Writer) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.buf = append(g.buf, p...)
	i := strings.LastIndexByte(string(g.buf), '\n')
	if i < 0 {
		return len(p), nil
	}
	out := logLines(string(g.buf[:i])) + "\n"
	g.buf = append(g.buf[:0], g.buf[i+1:]...)
	if _, err := io.WriteString(g.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is left of a line without its newline.
func (g *Writer) Flush() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.buf) == 0 {
		return nil
	}
	out := logLines(string(g.buf))
	g.buf = g.buf[:0]
	_, err := io.WriteString(g.w, out)
	return err
}

func (g *Writer) command(line string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.buf) > 0 {
		// A line under way is ended first: a command is only one at the
		// start of a line.
		if _, err := io.WriteString(g.w, logLines(string(g.buf))+"\n"); err != nil {
			return err
		}
		g.buf = g.buf[:0]
	}
	_, err := io.WriteString(g.w, line+"\n")
	return err
}

// Emit writes the command Command(name, props, data) on a line of its
// own, through a Writer's own way for commands when w is one.
func Emit(w io.Writer, name string, props []Prop, data string) error {
	line := Command(name, props, data)
	if g, ok := w.(*Writer); ok {
		return g.command(line)
	}
	_, err := io.WriteString(w, line+"\n")
	return err
}

// Messages returns a writer onto w for which each Write is one message,
// as a logger's Fprintf makes it: the message is shown on one line (see
// Line), its own newlines escaped, and ends with a newline.
func Messages(w io.Writer) io.Writer { return messages{w} }

type messages struct{ w io.Writer }

func (m messages) Write(p []byte) (int, error) {
	line := Line(strings.TrimSuffix(string(p), "\n")) + "\n"
	if _, err := io.WriteString(m.w, line); err != nil {
		return 0, err
	}
	return len(p), nil
}

// logLines is Lines with the tabs kept: each piece between two tabs is a
// Line of its own, so that none starts a command either.
func logLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		pieces := strings.Split(l, "\t")
		for j, p := range pieces {
			pieces[j] = Line(p)
		}
		lines[i] = strings.Join(pieces, "\t")
	}
	return strings.Join(lines, "\n")
}
