package cli

import (
	"context"
	"fmt"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

type verifyOptions struct {
	paths
	Dataset string // a dataset's directory to verify instead of the store
	IO      IO
}

func cmdVerify(ctx context.Context, io IO, args []string) error {
	opts := verifyOptions{IO: io}
	fs := newFlags("verify", "[flags] | --dataset DIR", io)
	opts.register(fs, "snapshots")
	fs.StringVar(&opts.Dataset, "dataset", "", "verify the dataset in `DIR` offline instead (SHA256SUMS, every index entry in the WARC, the texts)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if opts.Dataset != "" {
		return runVerifyDataset(ctx, opts)
	}
	return runVerify(ctx, opts)
}

func runVerify(ctx context.Context, opts verifyOptions) error {
	s, err := store.Open(opts.Snapshots)
	if err != nil {
		return cannotRun("%w", err)
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	problems, err := s.Verify(ctx, ix)
	if err != nil {
		return cannotRun("%w", err)
	}
	for _, p := range problems {
		fmt.Fprintf(opts.IO.Out, "%s: %s\n", p.Path, p.Message)
	}
	if len(problems) > 0 {
		return withCode(ExitFailures, fmt.Errorf("%d problem(s) in %s", len(problems), opts.Snapshots))
	}
	fmt.Fprintf(opts.IO.Out, "%s: %d source(s) indexed, every blob matches its hash\n", opts.Snapshots, len(ix.IDs()))
	return nil
}
