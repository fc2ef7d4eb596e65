package session

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// heapHeadroom is the memory a run allows itself beyond what it holds
// once its manifests, state and index are loaded. It is sized for a run
// with a thousand hosts in flight at once (a goroutine, a connection and
// its buffers each), which stays under it; with 96 MiB such a run's peak
// passed 100 MiB one time in three. A run that compares a 16 MiB text
// with its rewrite needs more (about 60 MiB live at its peak) and gets
// it, the collector working harder meanwhile: a 20 MB act rewritten line
// by line is recorded in 2.7 s instead of 1.9 s, under 112 MiB.
const heapHeadroom = 64 << 20

// heapBound counts the runs in this process that bound the heap, and
// keeps the limit that was in force before the first.
var heapBound struct {
	sync.Mutex
	runs int
	prev int64
}

// boundHeap sets the Go runtime's soft memory limit to the heap held now
// plus heapHeadroom, and returns what lifts it again. Left alone, the
// collector lets the heap grow to twice what was live at its last cycle:
// a run that reads a 20 MB text and its rewrite peaked at 190 MB for
// about 60 MB live. Near the limit the collector works harder instead.
// It is a soft limit: a run that needs more gets it (the collector's
// share of the CPU is capped), and GOMEMLIMIT, or a limit the program
// set, stands instead.
// Runs in one process (tests) share one bound, lifted by the last.
func boundHeap() (lift func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return func() {}
	}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	var held uint64
	if s[0].Value.Kind() == metrics.KindUint64 {
		held = s[0].Value.Uint64()
	}
	return boundHeapAt(held)
}

// boundHeapAt is boundHeap for a run that holds held bytes of heap.
func boundHeapAt(held uint64) (lift func()) {
	limit := int64(heapHeadroom) + int64(min(held, math.MaxInt64-heapHeadroom))
	heapBound.Lock()
	defer heapBound.Unlock()
	current := debug.SetMemoryLimit(-1)
	if heapBound.runs == 0 {
		if current != math.MaxInt64 { // set by the program: it stands
			return func() {}
		}
		heapBound.prev = current
	}
	heapBound.runs++
	if heapBound.runs == 1 || limit > current {
		debug.SetMemoryLimit(limit)
	}
	return sync.OnceFunc(func() {
		heapBound.Lock()
		defer heapBound.Unlock()
		if heapBound.runs--; heapBound.runs == 0 {
			debug.SetMemoryLimit(heapBound.prev)
		}
	})
}
