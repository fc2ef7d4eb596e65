package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/dataset"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
	"github.com/taxkernel/taxkernelbot/internal/warc"
)

type datasetOptions struct {
	paths
	Out      string
	Month    string
	From, To string
	Coverage string // the coverage report to ship; default <reports>/coverage.json
	Clock    clock.Clock
	IO       IO
}

func cmdDataset(ctx context.Context, io IO, args []string) error {
	opts := datasetOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("dataset", "-o DIR [--month YYYY-MM | --from DATE --to DATE]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	fs.StringVar(&opts.Out, "o", "", "the `DIR` to write the dataset into (new, empty, or an earlier build of the same dataset)")
	fs.StringVar(&opts.Month, "month", "", "the UTC calendar `MONTH` (YYYY-MM); default: the month before this one")
	fs.StringVar(&opts.From, "from", "", "the first UTC `DATE` of the period (YYYY-MM-DD), with --to")
	fs.StringVar(&opts.To, "to", "", "the last UTC `DATE` of the period (YYYY-MM-DD), included, with --from")
	fs.StringVar(&opts.Coverage, "coverage", "", "the coverage report to ship as coverage.json (`FILE`; default: coverage.json under --reports)")
	if err := parse(fs, args); err != nil {
		return err
	}
	return runDataset(ctx, opts)
}

// period is the one the flags name, or the previous UTC month on the
// clock; one still under way is refused, as its dataset would change.
func (o datasetOptions) period() (dataset.Period, error) {
	var p dataset.Period
	var err error
	switch {
	case o.Month != "" && (o.From != "" || o.To != ""):
		return p, usageError("give --month or --from and --to, not both")
	case o.Month != "":
		p, err = dataset.Month(o.Month)
	case o.From != "" || o.To != "":
		if o.From == "" || o.To == "" {
			return p, usageError("--from and --to go together: give both dates, e.g. --from 2026-11-01 --to 2026-11-15")
		}
		p, err = dataset.Between(o.From, o.To)
	default:
		p = dataset.PreviousMonth(o.Clock.Now())
	}
	if err != nil {
		return p, usageError("%v", err)
	}
	if today := o.Clock.Now().UTC().Truncate(24 * time.Hour); p.End().After(today) {
		return p, usageError("the period %s has not ended on %s (UTC): a dataset of a period under way would change; give one that ended by yesterday", p, today.Format(time.DateOnly))
	}
	return p, nil
}

func runDataset(ctx context.Context, opts datasetOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Out == "" {
		return usageError("dataset needs -o DIR, the directory to write it into")
	}
	p, err := opts.period()
	if err != nil {
		return err
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	cov := opts.Coverage
	if cov == "" {
		cov = filepath.Join(opts.Reports, "coverage.json")
	}
	coverage, err := os.ReadFile(cov)
	if err != nil {
		return cannotRun("the coverage report: %v; run `taxkernelbot report` or give --coverage FILE", err)
	}
	if err := bringServed(ctx, opts.Snapshots, set, opts.IO, dataset.Served(ix, p)); err != nil {
		return err
	}
	in := dataset.Input{
		Index: ix, Store: store.ReadOnly(opts.Snapshots), Snapshots: opts.Snapshots, LedgerDir: opts.ledgerDir(),
		Coverage: coverage, Identity: warc.Identity{UserAgent: set.Policy.UserAgent, From: set.Policy.From}, Period: p,
		Limits: textview.Limits{}, URLs: make(map[string]string, len(set.Sources)),
		FRBR: func(id string, e store.Entry) *manifest.FRBR {
			src, ok := set.Source(id)
			if !ok {
				return nil
			}
			return src.FRBR(e.ContentType, string(e.SHA256))
		},
	}
	for _, src := range set.Sources {
		in.URLs[src.ID] = src.URL
	}
	sum, err := dataset.Build(ctx, in, opts.Out)
	switch {
	case ctx.Err() != nil:
		return withCode(ExitFailures, fmt.Errorf("interrupted: the dataset in %s is incomplete (it does not verify); run the command again", opts.Out))
	case errors.Is(err, dataset.ErrEmpty):
		return nothingYet("%v: nothing written; a run that fetches by %s brings one", err, p.To.Format(time.DateOnly))
	case errors.Is(err, dataset.ErrNotDataset):
		return usageError("-o %s: %v", opts.Out, err)
	case err != nil:
		return cannotRun("%v", err)
	}
	var bytes int64
	for _, f := range sum.Files {
		bytes += f.Size
	}
	fmt.Fprintf(opts.IO.Err, "dataset %s: wrote %s: %d file(s), %d bytes; %d document(s) of %d source(s), %d revisit(s), %d text(s) derived for it, %d change document(s)\n",
		p.Name(), opts.Out, len(sum.Files), bytes, sum.Documents, sum.Sources, sum.Revisits, sum.Derived, sum.Changes)
	fmt.Fprintf(opts.IO.Err, "check it with: (cd %s && sha256sum -c SHA256SUMS) && taxkernelbot verify --dataset %s\n", opts.Out, opts.Out)
	return nil
}

func runVerifyDataset(ctx context.Context, opts verifyOptions) error {
	probs, c, err := dataset.Verify(ctx, opts.Dataset)
	if err != nil {
		return cannotRun("%w", err)
	}
	if opts.JSON {
		rep := verifyReport{Target: "dataset", Dir: opts.Dataset, OK: len(probs) == 0, Problems: []verifyProblem{},
			Counts: verifyCounts{Problems: len(probs), Files: c.Files, Documents: c.Documents, Responses: c.Responses, Texts: c.Texts, Changes: c.Changes}}
		for _, p := range probs {
			rep.Problems = append(rep.Problems, verifyProblem{Path: filepath.ToSlash(filepath.Clean(opts.Dataset)) + "/" + p.Where, Message: p.Message})
		}
		if err := writeJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		for _, p := range probs {
			fmt.Fprintf(opts.IO.Out, "%s/%s\n", filepath.ToSlash(filepath.Clean(opts.Dataset)), p)
		}
	}
	if len(probs) > 0 {
		return withCode(ExitFailures, fmt.Errorf("%d problem(s) in the dataset %s: do not cite from it; download or build it again", len(probs), opts.Dataset))
	}
	if opts.JSON {
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "%s: %d file(s) match SHA256SUMS; %d document(s), each the payload of a response or conversion record under its SHA-256; %d text(s), each naming a document; %d change document(s), each naming two\n",
		opts.Dataset, c.Files, c.Documents, c.Texts, c.Changes)
	return nil
}

// bringServed copies into snapshots/ the blobs of served that it lacks,
// from the stores that hold them (the repository's release assets, the
// buckets): a repository whose main keeps the record and not the bytes
// releases its month's documents all the same.
func bringServed(ctx context.Context, snapshots string, set *manifest.Set, io IO, served *store.Index) error {
	held, err := store.Open(snapshots)
	if err != nil {
		return cannotRun("%w", err)
	}
	local := blobs.NewLocal(held)
	var ss blobs.Stores
	for _, id := range served.IDs() {
		for _, e := range served.Entries(id) {
			for _, sum := range e.Blobs() {
				if held.Has(sum) {
					continue
				}
				if ss == nil {
					if ss, err = configuredStores(snapshots, set, io, nil); err != nil {
						return cannotRun("%w", err)
					}
				}
				from, err := ss.CopyTo(ctx, sum, local, "")
				if err != nil {
					return cannotRun("%s's %.12s: %w", id, sum, err)
				}
				fmt.Fprintf(io.Err, "%s: %.12s from %s, sha256 verified\n", id, sum, from)
			}
		}
	}
	return nil
}
