package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/warc"
)

type warcOptions struct {
	paths
	Since string
	Only  string
	Out   string
	Clock clock.Clock
	IO    IO
}

func cmdWarc(ctx context.Context, io IO, args []string) error {
	opts := warcOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("warc", "[--since DATE] [--only ID|JURISDICTION] -o FILE.warc.gz", io)
	opts.register(fs, "manifests", "snapshots", "state")
	fs.StringVar(&opts.Since, "since", "", "leave out what was fetched before this UTC `DATE` (YYYY-MM-DD)")
	fs.StringVar(&opts.Only, "only", "", "export one source `ID` or one JURISDICTION")
	fs.StringVar(&opts.Out, "o", "", "the WARC `FILE` to write (gzip, one member per record; .warc.gz)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if opts.Out == "" {
		return usageError("warc needs -o FILE.warc.gz")
	}
	return runWarc(ctx, opts)
}

// runWarc writes the archive to a temp file and renames it into place, so
// an interrupted export leaves no half file under the name asked for.
func runWarc(ctx context.Context, opts warcOptions) error {
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	in := warc.Input{Store: store.ReadOnly(opts.Snapshots), LedgerDir: opts.ledgerDir()}
	if opts.Since != "" {
		if in.Since, err = time.Parse(time.DateOnly, opts.Since); err != nil {
			return usageError("--since %q: want a UTC date, YYYY-MM-DD", opts.Since)
		}
	}
	if opts.Only != "" {
		if _, ok := set.Source(opts.Only); !ok && !hasJurisdiction(set.Manifests, opts.Only) {
			return usageError("--only %q names no source id and no jurisdiction", opts.Only)
		}
		in.Only = func(id string) bool {
			src, ok := set.Source(id)
			return id == opts.Only || ok && src.Jurisdiction == opts.Only
		}
	}
	if in.Index, err = store.LoadIndex(opts.indexPath()); err != nil {
		return cannotRun("%w", err)
	}
	items, err := warc.Plan(in)
	if err != nil {
		return cannotRun("%w", err)
	}
	if len(items) == 0 {
		what := ""
		if opts.Since != "" || opts.Only != "" {
			what = " of that selection"
		}
		return nothingYet("nothing fetched yet%s in %s: %s not written; a run that fetches brings something to archive (taxkernelbot run)", what, opts.Snapshots, opts.Out)
	}
	f, err := atomicfile.Create(opts.Out, 0o644)
	if err != nil {
		return cannotRun("create %s: %w", opts.Out, err)
	}
	defer f.Abort()
	p := set.Policy
	var extra [][2]string
	if opts.Since != "" || opts.Only != "" {
		extra = append(extra, [2]string{"selection", strings.TrimSpace(fmt.Sprintf("since=%s only=%s", opts.Since, opts.Only))})
	}
	n, err := warc.Export(ctx, f, filepath.Base(opts.Out), opts.Clock.Now(), warc.Identity{UserAgent: p.UserAgent, From: p.From}, extra, items)
	if ctx.Err() != nil {
		return withCode(ExitFailures, fmt.Errorf("interrupted: %s not written", opts.Out))
	}
	if err != nil {
		return cannotRun("%w", err)
	}
	if err := f.Commit(); err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(opts.IO.Err, "warc: wrote %s: %d capture(s) (request and response), %d revisit(s), %d source(s)\n", opts.Out, n.Captures, n.Revisits, n.Sources)
	return nil
}

func hasJurisdiction(ms []manifest.Manifest, j string) bool {
	for _, m := range ms {
		if m.Jurisdiction == j {
			return true
		}
	}
	return false
}
