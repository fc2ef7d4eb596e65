package session

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// heapHeadroom is the memory a run allows itself beyond what it holds
// once its manifests, state and index are loaded: enough for the largest
// text a document may have (16 MiB) read twice and diffed, and a host's
// answers in flight.
const heapHeadroom = 96 << 20

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
	limit := int64(heapHeadroom)
	if s[0].Value.Kind() == metrics.KindUint64 {
		limit += int64(min(s[0].Value.Uint64(), math.MaxInt64-heapHeadroom))
	}
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
