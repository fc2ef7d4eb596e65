package cli

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

// progress prints one line per host event; on a terminal it also keeps a
// live summary as the last line, rewritten in place.
type progress struct {
	mu   sync.Mutex
	w    io.Writer
	tty  bool
	last pipeline.Result
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) event(host, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, "%s  %s\n", host, msg)
	p.draw()
}

func (p *progress) update(r pipeline.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = r
	p.clear()
	p.draw()
}

// done removes the live line so that the final summary stands alone.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) clear() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progress) draw() {
	if p.tty {
		r := p.last
		fmt.Fprintf(p.w, "%d/%d checked · %d requests · %d failing · %d deferred",
			r.Checked, r.Due, r.Dispatches, r.Failed, r.Deferred)
	}
}
