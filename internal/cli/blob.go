package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

type blobOptions struct {
	paths
	Sum store.Sum
	// Out is the file to write the bytes to; "" writes them to stdout.
	Out string
	IO  IO
}

func cmdBlob(ctx context.Context, io IO, args []string) error {
	opts := blobOptions{IO: io}
	fs := newFlags("blob", "SHA256 [flags]", io).withArgs()
	opts.register(fs, "manifests", "snapshots")
	fs.StringVar(&opts.Out, "o", "", "write the bytes to `FILE` (default: stdout)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || !store.Sum(fs.Arg(0)).Valid() {
		return usageError("want one SHA-256 (64 lower-case hex digits, as the index and cite name it); e.g. taxkernelbot blob 5e5e…5e -o rates.pdf")
	}
	opts.Sum = store.Sum(fs.Arg(0))
	return runBlob(ctx, opts)
}

// runBlob brings a hash's bytes from whichever store holds them into the
// local store, verified (a corrupt copy is passed over for an intact
// one), and writes them out.
func runBlob(ctx context.Context, opts blobOptions) error {
	held, err := store.Open(opts.Snapshots)
	if err != nil {
		return cannotRun("%w", err)
	}
	local := blobs.Backend(blobs.NewLocal(held))
	from := local.Name()
	if !held.Has(opts.Sum) {
		// Only then are the other stores needed, and their keys.
		set, err := loadManifests(opts.Manifests, opts.IO)
		if err != nil {
			return err
		}
		ss, err := configuredStores(opts.Snapshots, set, opts.IO, nil)
		if err != nil {
			return cannotRun("%w", err)
		}
		from, err = ss.CopyTo(ctx, opts.Sum, local, "")
		switch {
		case errors.Is(err, blobs.ErrNotFound):
			return nothingYet("%v", err)
		case err != nil:
			return cannotRun("%w", err)
		}
	}
	rc, err := local.Load(ctx, opts.Sum)
	if err != nil {
		return cannotRun("%w", err)
	}
	defer rc.Close()
	if opts.Out == "" {
		if _, err := io.Copy(opts.IO.Out, rc); err != nil {
			return cannotRun("%w", err)
		}
		return nil
	}
	// Streamed to a temp file and renamed into place only once read to
	// its end, which re-hashes it: a corrupt blob leaves no file.
	f, err := atomicfile.Create(opts.Out, 0o644)
	if err != nil {
		return cannotRun("%w", err)
	}
	n, err := io.Copy(f, rc)
	if err != nil {
		f.Abort()
		return cannotRun("%w", err)
	}
	if err := f.Commit(); err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(opts.IO.Err, "%s: %d bytes from %s, sha256 verified\n", opts.Out, n, from)
	return nil
}
