package atomicfile

import "sync"

// A directory's flush is shared by everyone who asks for it while it
// waits to start (group commit). A thousand hosts each creating their
// ledger file in the same day directory at a run's start would otherwise
// flush it a thousand times, each flush a thread blocked in the kernel
// and a journal commit that the next file's creation waits on; joined,
// they are flushed a few times. Whoever asks is answered by a flush that
// began after they asked, so that what they wrote before asking is in it.
var dirFlushes sync.Map // directory path → *flushGroup

// flushGroup runs one flush of a directory at a time, and gathers those
// who ask meanwhile into the next one.
type flushGroup struct {
	mu      sync.Mutex
	running chan struct{} // closed when the flush under way ends; nil: none
	next    *flight       // the flush to start after it, joined by those asking now
}

type flight struct {
	done chan struct{}
	err  error
}

// shareFlush runs flush for the directory named key, or joins a flush of
// it that has not begun yet, and returns that flush's error.
func shareFlush(key string, flush func() error) error {
	v, _ := dirFlushes.LoadOrStore(key, &flushGroup{})
	return v.(*flushGroup).do(flush)
}

func (g *flushGroup) do(flush func() error) error {
	g.mu.Lock()
	for {
		if g.running == nil { // none under way: lead the next one
			f := g.next
			if f == nil {
				f = &flight{done: make(chan struct{})}
			}
			g.next = nil
			running := make(chan struct{})
			g.running = running
			g.mu.Unlock()
			f.err = flush()
			close(f.done)
			g.mu.Lock()
			g.running = nil
			close(running)
			g.mu.Unlock()
			return f.err
		}
		// The flush under way may have begun before this caller wrote:
		// it joins the next one.
		f := g.next
		if f == nil {
			f = &flight{done: make(chan struct{})}
			g.next = f
		}
		running := g.running
		g.mu.Unlock()
		select {
		case <-f.done:
			return f.err
		case <-running:
		}
		g.mu.Lock()
		if g.next != f { // another of its callers leads it
			g.mu.Unlock()
			<-f.done
			return f.err
		}
	}
}
