package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

type verifyOptions struct {
	paths
	Dataset string // a dataset's directory to verify instead of the store
	JSON    bool   // print one verifyReport on stdout instead of the text
	// Attestation is a signed statement to check instead, against
	// KeyDirectory (a JWK Set file) or Public (one JWK file).
	Attestation  string
	KeyDirectory string
	Public       string
	IO           IO
}

func cmdVerify(ctx context.Context, io IO, args []string) error {
	opts := verifyOptions{IO: io}
	fs := newFlags("verify", "[flags] | --dataset DIR | --attestation FILE [--directory FILE | --public JWK-FILE]", io)
	opts.register(fs, "snapshots")
	fs.StringVar(&opts.Dataset, "dataset", "", "verify the dataset in `DIR` offline instead (SHA256SUMS, every index entry in the WARC, the texts, the change documents)")
	fs.BoolVar(&opts.JSON, "json", false, "print the result as one JSON document (see below)")
	fs.StringVar(&opts.Attestation, "attestation", "", "check the statement `FILE` that cite --attest wrote instead, offline: its signature, by a key the key directory lists and that was valid when it was signed")
	fs.StringVar(&opts.KeyDirectory, "directory", filepath.Join(".well-known", "http-message-signatures-directory"), "the key directory (`FILE`, as published) to check --attestation against")
	fs.StringVar(&opts.Public, "public", "", "check --attestation against this one public key (`JWK-FILE`) instead of --directory")
	if err := parse(fs, args); err != nil {
		return err
	}
	if opts.Attestation != "" {
		return runVerifyAttestation(opts)
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
	if opts.JSON {
		rep := verifyReport{Target: "snapshots", Dir: opts.Snapshots, OK: len(problems) == 0, Problems: []verifyProblem{}}
		blobs := map[store.Sum]bool{}
		for _, id := range ix.IDs() {
			for _, e := range ix.Entries(id) {
				blobs[e.SHA256] = true
				if e.Sent != nil {
					blobs[e.Sent.SHA256] = true
				}
			}
		}
		rep.Counts = verifyCounts{Problems: len(problems), Sources: len(ix.IDs()), Blobs: len(blobs)}
		for _, p := range problems {
			rep.Problems = append(rep.Problems, verifyProblem{Path: p.Path, Message: p.Message})
		}
		if err := writeJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintf(opts.IO.Out, "%s: %s\n", p.Path, p.Message)
		}
	}
	if len(problems) > 0 {
		return withCode(ExitFailures, fmt.Errorf("%d problem(s) in %s", len(problems), opts.Snapshots))
	}
	if opts.JSON {
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "%s: %d source(s) indexed, every blob matches its hash\n", opts.Snapshots, len(ix.IDs()))
	return nil
}
