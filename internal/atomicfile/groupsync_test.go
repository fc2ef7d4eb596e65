package atomicfile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestFlushesAskedMeanwhileShareTheNext: those who ask for a flush while
// one is under way are not answered by it (it may have begun before they
// wrote) but by one flush after it, shared, with its error.
func TestFlushesAskedMeanwhileShareTheNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &flushGroup{}
		var started atomic.Int32
		release := []chan struct{}{make(chan struct{}), make(chan struct{})}
		errSecond := errors.New("second flush failed")
		flush := func() error {
			n := started.Add(1)
			<-release[n-1]
			if n == 2 {
				return errSecond
			}
			return nil
		}
		answers := make(chan error, 3)
		go func() { answers <- g.do(flush) }()
		synctest.Wait() // the first flush is under way
		go func() { answers <- g.do(flush) }()
		go func() { answers <- g.do(flush) }()
		synctest.Wait()
		if n := started.Load(); n != 1 {
			t.Fatalf("%d flushes begun while the first was under way, want 1", n)
		}
		close(release[0])
		synctest.Wait()
		if err := <-answers; err != nil {
			t.Errorf("the first caller got %v, want its own flush's nil", err)
		}
		select {
		case err := <-answers:
			t.Fatalf("a caller who asked during the first flush was answered by it (%v)", err)
		default:
		}
		if n := started.Load(); n != 2 {
			t.Fatalf("%d flushes begun, want 2: the two who asked meanwhile share one", n)
		}
		close(release[1])
		for range 2 {
			if err := <-answers; !errors.Is(err, errSecond) {
				t.Errorf("a caller of the shared flush got %v, want its error", err)
			}
		}
		if n := started.Load(); n != 2 {
			t.Errorf("%d flushes in all, want 2", n)
		}
	})
}

// began is the "error" each flush of TestEveryFlushBeganAfterItWasAskedFor
// returns: when it began, so that each caller learns which flush
// answered it.
type began int64

func (b began) Error() string { return "flush" }

// TestEveryFlushBeganAfterItWasAskedFor drives many callers on seeded
// random schedules: each is answered by a flush that began after it
// asked, a directory is never flushed twice at once, and callers who
// came together shared flushes.
func TestEveryFlushBeganAfterItWasAskedFor(t *testing.T) {
	const callers = 64
	shared := 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 0))
		delays := make([]int, callers)
		for i := range delays {
			delays[i] = rng.IntN(20)
		}
		g := &flushGroup{}
		var clock, running, flushes atomic.Int64
		var wg sync.WaitGroup
		for c := range callers {
			wg.Go(func() {
				for range delays[c] {
					runtime.Gosched()
				}
				asked := clock.Add(1)
				err := g.do(func() error {
					if running.Add(1) != 1 {
						t.Error("a directory flushed twice at once")
					}
					defer running.Add(-1)
					flushes.Add(1)
					start := clock.Add(1)
					for range delays[(c+1)%callers] {
						runtime.Gosched()
					}
					return began(start)
				})
				var b began
				if !errors.As(err, &b) {
					t.Errorf("answered %v, not a flush's", err)
				} else if int64(b) <= asked {
					t.Errorf("seed %d: asked at %d, answered by a flush that began at %d", seed, asked, b)
				}
			})
		}
		wg.Wait()
		if flushes.Load() < callers {
			shared++
		}
	}
	// Sharing itself is TestFlushesAskedMeanwhileShareTheNext's: a
	// schedule here may happen to have none.
	t.Logf("%d of 20 schedules shared flushes", shared)
}

// TestSyncDirShared: SyncDir and Dir.SyncDir still flush, and say which
// directory they could not.
func TestSyncDirShared(t *testing.T) {
	dir := t.TempDir()
	if err := SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	d := openDir(t, dir)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.SyncDir("sub"); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("SyncDir of a missing directory: no error")
	}
}
