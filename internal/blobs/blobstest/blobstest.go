// Package blobstest is the test suite every blobs.Backend is held to: one
// suite, run against each backend's own engine (a directory, a real
// S3-compatible server on loopback, GitHub's API as its published
// description says it answers).
package blobstest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Options say what the suite may do to a backend beyond its interface.
type Options struct {
	// New returns an empty backend; each subtest takes a new one.
	New func(t *testing.T) blobs.Backend
	// Corrupt, when set, replaces the bytes the backend holds as sum by
	// others, behind its back (as a failing disk or a hand would): the
	// suite then checks that Load reports it.
	Corrupt func(t *testing.T, b blobs.Backend, sum store.Sum)
	// Large is the size of the large blob the suite saves and loads
	// (default 3 MiB).
	Large int
}

// SumOf is the name of data.
func SumOf(data []byte) store.Sum {
	h := sha256.Sum256(data)
	return store.Sum(hex.EncodeToString(h[:]))
}

// Run runs the suite.
func Run(t *testing.T, o Options) {
	if o.Large == 0 {
		o.Large = 3 << 20
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(4, 39))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	save := func(t *testing.T, b blobs.Backend, data []byte) store.Sum {
		t.Helper()
		sum := SumOf(data)
		if err := b.Save(ctx, sum, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatalf("%s: Save(%s, %d bytes): %v", b.Name(), sum.Short(), len(data), err)
		}
		return sum
	}
	load := func(t *testing.T, b blobs.Backend, sum store.Sum) ([]byte, error) {
		t.Helper()
		rc, err := b.Load(ctx, sum)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	list := func(t *testing.T, b blobs.Backend) map[store.Sum]int64 {
		t.Helper()
		got := map[store.Sum]int64{}
		err := b.List(ctx, func(sum store.Sum, size int64) error {
			if _, twice := got[sum]; twice {
				t.Errorf("%s: List names %s twice", b.Name(), sum.Short())
			}
			got[sum] = size
			return nil
		})
		if err != nil {
			t.Fatalf("%s: List: %v", b.Name(), err)
		}
		return got
	}

	t.Run("SavedIsLoaded", func(t *testing.T) {
		b := o.New(t)
		blobsSaved := map[store.Sum][]byte{}
		for _, data := range [][]byte{{}, []byte("Personal Allowance £12,570\n"), random(70_000), random(o.Large)} {
			blobsSaved[save(t, b, data)] = data
		}
		for sum, data := range blobsSaved {
			got, err := load(t, b, sum)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: Load(%s) = %d bytes, %v; want the %d saved", b.Name(), sum.Short(), len(got), err, len(data))
			}
			if size, err := b.Stat(ctx, sum); err != nil || size != int64(len(data)) {
				t.Errorf("%s: Stat(%s) = %d, %v; want %d", b.Name(), sum.Short(), size, err, len(data))
			}
		}
		got := list(t, b)
		if len(got) != len(blobsSaved) {
			t.Errorf("%s: List names %d blobs, want %d", b.Name(), len(got), len(blobsSaved))
		}
		for sum, data := range blobsSaved {
			if size, ok := got[sum]; !ok || size != int64(len(data)) {
				t.Errorf("%s: List gives %s as %d bytes (listed %v), want %d", b.Name(), sum.Short(), size, ok, len(data))
			}
		}
	})

	t.Run("SavingWhatIsHeldIsANoOp", func(t *testing.T) {
		b := o.New(t)
		data := random(10_000)
		sum := save(t, b, data)
		save(t, b, data)
		if got := list(t, b); len(got) != 1 {
			t.Errorf("%s: two saves of one blob hold %d", b.Name(), len(got))
		}
		// However many save it at once.
		other := random(20_000)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { errs[i] = b.Save(ctx, SumOf(other), bytes.NewReader(other), int64(len(other))) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("%s: concurrent Save %d: %v", b.Name(), i, err)
			}
		}
		if got, err := load(t, b, SumOf(other)); err != nil || !bytes.Equal(got, other) {
			t.Errorf("%s: after concurrent saves, Load = %d bytes, %v", b.Name(), len(got), err)
		}
		if got, err := load(t, b, sum); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: the first blob after the others: %d bytes, %v", b.Name(), len(got), err)
		}
	})

	t.Run("WrongBytesAreRefused", func(t *testing.T) {
		b := o.New(t)
		data := random(5_000)
		claimed := SumOf([]byte("something else"))
		err := b.Save(ctx, claimed, bytes.NewReader(data), int64(len(data)))
		if !errors.Is(err, blobs.ErrCorrupt) {
			t.Errorf("%s: Save of bytes that do not hash to the name: %v, want ErrCorrupt", b.Name(), err)
		}
		if _, err := b.Stat(ctx, claimed); !errors.Is(err, blobs.ErrNotFound) {
			t.Errorf("%s: a refused blob is visible: Stat %v", b.Name(), err)
		}
		short := data[:4_000]
		if err := b.Save(ctx, SumOf(data), bytes.NewReader(short), int64(len(data))); err == nil {
			t.Errorf("%s: Save of fewer bytes than said succeeded", b.Name())
		}
		if len(list(t, b)) != 0 {
			t.Errorf("%s: refused saves left blobs", b.Name())
		}
	})

	t.Run("AFailedTransferLeavesNothing", func(t *testing.T) {
		b := o.New(t)
		data := random(200_000)
		err := b.Save(ctx, SumOf(data), &failingReader{data: data, after: 100_000}, int64(len(data)))
		if err == nil {
			t.Fatalf("%s: Save from a reader that fails half-way succeeded", b.Name())
		}
		if _, err := b.Stat(ctx, SumOf(data)); !errors.Is(err, blobs.ErrNotFound) {
			t.Errorf("%s: a half-saved blob is visible: Stat %v", b.Name(), err)
		}
		if got := list(t, b); len(got) != 0 {
			t.Errorf("%s: a failed save left %d blobs", b.Name(), len(got))
		}
		save(t, b, data) // and it can be saved whole afterwards
		if got, err := load(t, b, SumOf(data)); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: Load after a failed then a whole save: %d bytes, %v", b.Name(), len(got), err)
		}
	})

	t.Run("NotHeld", func(t *testing.T) {
		b := o.New(t)
		for _, sum := range []store.Sum{SumOf([]byte("never saved")), "not-a-sum", "../../etc/passwd"} {
			if _, err := b.Load(ctx, sum); !errors.Is(err, blobs.ErrNotFound) {
				t.Errorf("%s: Load(%q): %v, want ErrNotFound", b.Name(), sum, err)
			}
			if _, err := b.Stat(ctx, sum); !errors.Is(err, blobs.ErrNotFound) {
				t.Errorf("%s: Stat(%q): %v, want ErrNotFound", b.Name(), sum, err)
			}
		}
	})

	t.Run("ListStopsAtAnError", func(t *testing.T) {
		b := o.New(t)
		for range 3 {
			save(t, b, random(100))
		}
		stop := errors.New("enough")
		calls := 0
		err := b.List(ctx, func(store.Sum, int64) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("%s: List with fn failing: %v after %d calls, want the error after 1", b.Name(), err, calls)
		}
	})

	if o.Corrupt != nil {
		t.Run("CorruptionIsReported", func(t *testing.T) {
			b := o.New(t)
			data := random(30_000)
			sum := save(t, b, data)
			o.Corrupt(t, b, sum)
			got, err := load(t, b, sum)
			if !errors.Is(err, blobs.ErrCorrupt) {
				t.Errorf("%s: Load of corrupt bytes: %d bytes, %v; want ErrCorrupt", b.Name(), len(got), err)
			}
		})
	}

	t.Run("Names", func(t *testing.T) {
		b := o.New(t)
		if n := b.Name(); n == "" || !slices.Contains([]string{"local", "s3", "github-releases"}, kind(n)) {
			t.Errorf("Name %q: want local:…, s3:… or github-releases:…", n)
		}
	})
}

func kind(name string) string {
	for i := range name {
		if name[i] == ':' {
			return name[:i]
		}
	}
	return ""
}

// failingReader reads data but fails past after bytes, as a connection
// that drops.
type failingReader struct {
	data  []byte
	after int64
}

func (f *failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.after {
		return 0, fmt.Errorf("connection reset at byte %d", off)
	}
	n := copy(p, f.data[off:min(int64(len(f.data)), f.after)])
	if off+int64(n) >= f.after && off+int64(n) < int64(len(f.data)) {
		return n, fmt.Errorf("connection reset at byte %d", off+int64(n))
	}
	return n, nil
}
