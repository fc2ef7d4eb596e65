package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// maxHeldInMemory bounds the bytes storedBytes keeps of what it read from
// the stores, so that a text read twice (a comparison through a view)
// does not download them twice.
const maxHeldInMemory = 64 << 20

// storedBytes opens a blob from the checkout's snapshots/, else from the
// stores that keep the repository's bytes (asked on first need): main
// keeps the text of what each source serves now, so the text of an older
// version, which the feeds and the site compare, is derived again from
// its bytes. A blob that cannot be had is said on warn, once: its change
// then shows no text diff.
func storedBytes(ctx context.Context, snapshots string, set *manifest.Set, out IO) outputs.OpenBlob {
	local := outputs.LocalBlobs(snapshots)
	var (
		once   sync.Once
		ss     blobs.Stores
		ssErr  error
		mu     sync.Mutex
		held   = map[string][]byte{}
		kept   int
		warned = map[string]bool{}
	)
	return func(sum string) (io.ReadCloser, int64, error) {
		rc, size, err := local(sum)
		if !errors.Is(err, store.ErrNotFound) {
			return rc, size, err
		}
		mu.Lock()
		defer mu.Unlock()
		if data, ok := held[sum]; ok {
			return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
		}
		once.Do(func() { ss, ssErr = configuredStores(snapshots, set, out, nil) })
		data, err := func() ([]byte, error) {
			if ssErr != nil {
				return nil, ssErr
			}
			rc, _, err := ss.Load(ctx, store.Sum(sum))
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return io.ReadAll(rc) // verified against sum as it is read
		}()
		if err != nil {
			if !warned[sum] {
				warned[sum] = true
				fmt.Fprintf(out.Err, "report: the bytes of %.12s are neither in %s nor to be had from the stores (%v): a change that needs its text (an older version's: main keeps each source's current text only) shows no text diff\n", sum, snapshots, err)
			}
			return nil, 0, err
		}
		if kept+len(data) <= maxHeldInMemory {
			held[sum] = data
			kept += len(data)
		}
		return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
	}
}
