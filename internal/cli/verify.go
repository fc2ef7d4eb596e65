package cli

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
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
	// Stores checks the stores that hold the bytes instead: each cited
	// hash held by Copies of them, and Sample hashes (all: -1) downloaded
	// from each and re-hashed, the Turn-th sample of a rotation.
	Stores       bool
	Copies       int
	Sample, Turn int
	IO           IO
}

func cmdVerify(ctx context.Context, io IO, args []string) error {
	opts := verifyOptions{IO: io}
	fs := newFlags("verify", "[flags] | --dataset DIR | --attestation FILE [--directory FILE | --public JWK-FILE]", io)
	opts.register(fs, "snapshots", "state")
	fs.StringVar(&opts.Dataset, "dataset", "", "verify the dataset in `DIR` offline instead (SHA256SUMS, every index entry in the WARC, the texts, the change documents)")
	fs.BoolVar(&opts.JSON, "json", false, "print the result as one JSON document (see below)")
	fs.StringVar(&opts.Attestation, "attestation", "", "check the statement `FILE` that cite --attest wrote instead, offline: its signature, by a key the key directory lists and that was valid when it was signed")
	fs.StringVar(&opts.KeyDirectory, "directory", filepath.Join(".well-known", "http-message-signatures-directory"), "the key directory (`FILE`, as published) to check --attestation against")
	fs.StringVar(&opts.Public, "public", "", "check --attestation against this one public key (`JWK-FILE`) instead of --directory")
	fs.BoolVar(&opts.Stores, "stores", false, "check the stores that hold the bytes instead (snapshots/, the repository's release assets under GitHub Actions, policy.yaml's stores, and the cache branch's copy when --state holds the runner's git store): every cited hash held by --copies of them, and --sample hashes downloaded from each and re-hashed")
	fs.IntVar(&opts.Copies, "copies", 2, "with --stores: how many stores must hold each cited hash, `N`")
	fs.IntVar(&opts.Sample, "sample", -1, "with --stores: download and re-hash `N` hashes (a rotating sample; -1: all)")
	fs.IntVar(&opts.Turn, "turn", 0, "with --stores --sample: which turn of the rotation, `K` (a scheduled run passes its run number)")
	opts.register(fs, "manifests")
	if err := parse(fs, args); err != nil {
		return err
	}
	if opts.Stores {
		return runVerifyStores(ctx, opts)
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
	if n := heldElsewhere(s, ix); n > 0 {
		fmt.Fprintf(opts.IO.Out, "%d blob(s) are held by the stores the index names, not here: verify --stores checks them\n", n)
	}
	return nil
}

// runVerifyStores is verify --stores.
func runVerifyStores(ctx context.Context, opts verifyOptions) error {
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	ss, err := configuredStores(opts.Snapshots, set, opts.IO, nil)
	if err != nil {
		return cannotRun("%w", err)
	}
	cache, done, err := cacheBranchStore(ctx, opts.State, opts.IO)
	if err != nil {
		return cannotRun("%w", err)
	}
	if cache != nil {
		defer done()
		ss = append(ss, cache)
	}
	if len(ss) < opts.Copies {
		return cannotRun("%d store(s) to hold each hash %d times (%s): add a store to policy.yaml's stores, or run where GitHub Actions names the repository and its token (its release assets), or ask for fewer --copies", len(ss), opts.Copies, ss[0].Name())
	}
	n := opts.Sample
	if n < 0 {
		n = math.MaxInt // all
	}
	sample := blobs.Sample(ix, n, opts.Turn)
	problems, err := verifyStores(ctx, ss, ix, opts.Copies, sample)
	if err != nil {
		return cannotRun("%w", err)
	}
	names := ss.Names()
	if opts.JSON {
		rep := struct {
			Stores   []string `json:"stores"`
			Copies   int      `json:"copies"`
			Sampled  int      `json:"sampled"`
			OK       bool     `json:"ok"`
			Problems []string `json:"problems"`
		}{names, opts.Copies, len(sample), len(problems) == 0, append([]string{}, problems...)}
		if err := writeJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintln(opts.IO.Out, terminal.Text(p))
		}
	}
	if len(problems) > 0 {
		return withCode(ExitFailures, fmt.Errorf("%d problem(s) in the stores (%s)", len(problems), strings.Join(names, ", ")))
	}
	if opts.JSON {
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "every cited hash is held by %d or more of %s; %d downloaded and re-hashed from each store that holds it\n", opts.Copies, strings.Join(names, ", "), len(sample))
	return nil
}

// heldElsewhere counts the blobs the index says stores hold that s does
// not.
func heldElsewhere(s *store.Store, ix *store.Index) int {
	seen := map[store.Sum]bool{}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			for _, sum := range e.Blobs() {
				if len(e.Held) > 0 && !seen[sum] && !s.Has(sum) {
					seen[sum] = true
				}
			}
		}
	}
	return len(seen)
}
