package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

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
// stores that keep the repository's bytes (asked on first need), else
// from the addresses the index says serve them to anyone (a release
// asset's download link, fetched with no credentials: a pull request's
// check is given no token): main keeps the text of what each source
// serves now, so the text of an older version, which the feeds and the
// site compare, is derived again from its bytes. A blob that cannot be
// had is said on warn, once: its change then shows no text diff.
func storedBytes(ctx context.Context, snapshots string, set *manifest.Set, ix *store.Index, out IO) outputs.OpenBlob {
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
			public, perr := publicBytes(ctx, publicClient, ix, store.Sum(sum))
			switch {
			case perr == nil:
				data, err = public, nil
			case !errors.Is(perr, store.ErrNotFound):
				err = fmt.Errorf("%w; from its public address: %w", err, perr)
			}
		}
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

// publicClient downloads what the index says anyone can: no credentials,
// and a bound on a download that stalls.
var publicClient = &http.Client{Timeout: 5 * time.Minute}

// publicBytes downloads blob sum from the public addresses ix records for
// it (each entry's held[].url), the first that serves its bytes: re-hashed
// and held to the entry's size as they are read, so a page that is not
// the blob is refused. ErrNotFound when ix records no such address.
func publicBytes(ctx context.Context, client *http.Client, ix *store.Index, sum store.Sum) ([]byte, error) {
	if ix == nil {
		return nil, store.ErrNotFound
	}
	var (
		urls []string
		size int64 = -1
	)
	for _, id := range ix.IDs() {
		if e, ok := ix.Lookup(id, sum); ok {
			size = e.Size
			for _, h := range e.Held {
				if h.URL != "" && !slices.Contains(urls, h.URL) {
					urls = append(urls, h.URL)
				}
			}
		}
	}
	if len(urls) == 0 {
		return nil, store.ErrNotFound
	}
	var errs []error
	for _, u := range urls {
		data, err := func() ([]byte, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if err != nil {
				return nil, err
			}
			resp, err := client.Do(req)
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("%s answered %s", u, resp.Status)
			}
			// A byte past the entry's size is read, so that a longer
			// answer fails the check instead of being cut to fit.
			return io.ReadAll(blobs.Verified(io.NopCloser(io.LimitReader(resp.Body, size+1)), sum, size, u))
		}()
		if err == nil {
			return data, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}
