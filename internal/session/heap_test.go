package session

import (
	"math"
	"runtime/debug"
	"testing"
)

// limitNow is the runtime's soft memory limit, unchanged.
func limitNow() int64 { return debug.SetMemoryLimit(-1) }

// noLimit lifts any limit in force (GOMEMLIMIT in the test's environment)
// until the test ends.
func noLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
}

func TestBoundHeapSetsHeldPlusHeadroomAndLiftsIt(t *testing.T) {
	noLimit(t)
	lift := boundHeapAt(10 << 20)
	if got, want := limitNow(), int64(10<<20+heapHeadroom); got != want {
		t.Fatalf("bound of a run holding 10 MiB: %d, want %d (held + headroom)", got, want)
	}
	lift()
	lift() // a second lift is a no-op, not another run's
	if got := limitNow(); got != math.MaxInt64 {
		t.Fatalf("after the run the limit is %d, want none again", got)
	}
}

func TestRunsInOneProcessShareTheLargestBound(t *testing.T) {
	noLimit(t)
	small := boundHeapAt(1 << 20)
	large := boundHeapAt(30 << 20)
	if got, want := limitNow(), int64(30<<20+heapHeadroom); got != want {
		t.Fatalf("two runs: limit %d, want the larger bound %d", got, want)
	}
	smaller := boundHeapAt(2 << 20)
	if got, want := limitNow(), int64(30<<20+heapHeadroom); got != want {
		t.Fatalf("a smaller third run lowered the limit to %d, want %d kept", got, want)
	}
	small()
	large()
	if got := limitNow(); got == math.MaxInt64 {
		t.Fatal("the limit was lifted while a run still held its bound")
	}
	smaller()
	if got := limitNow(); got != math.MaxInt64 {
		t.Fatalf("the last run's lift left %d, want no limit", got)
	}
}

func TestBoundHeapLeavesALimitSetElsewhere(t *testing.T) {
	noLimit(t)
	debug.SetMemoryLimit(1 << 30)
	lift := boundHeapAt(10 << 20)
	if got := limitNow(); got != 1<<30 {
		t.Fatalf("a limit the program set was replaced by %d", got)
	}
	lift()
	if got := limitNow(); got != 1<<30 {
		t.Fatalf("lifting a bound that was not set changed the program's limit to %d", got)
	}

	t.Setenv("GOMEMLIMIT", "512MiB")
	debug.SetMemoryLimit(math.MaxInt64) // as the runtime leaves it for "off" or a value it read
	lift = boundHeap()
	if got := limitNow(); got != math.MaxInt64 {
		t.Fatalf("with GOMEMLIMIT set the bound set %d; GOMEMLIMIT stands instead", got)
	}
	lift()
}
