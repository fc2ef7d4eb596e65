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
	if fs.NArg() > 0 {
		return usageError("unexpected arguments %q", fs.Args())
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
	f, err := atomicfile.Create(opts.Out, 0o644)
	if err != nil {
		return cannotRun("create %s: %w", opts.Out, err)
	}
	defer f.Abort()
	p := set.Policy
	w := warc.NewWriter(f, warc.Identity{UserAgent: p.UserAgent, From: p.From})
	info := [][2]string{
		{"software", "TaxKernelBot"},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{"description", "Documents fetched by TaxKernelBot for the sources listed in its manifests; each payload is the exact bytes served, named by its SHA-256 in the snapshot store"},
		{"robots", "obey"},
		{"http-header-user-agent", p.UserAgent},
		{"http-header-from", p.From},
	}
	if opts.Since != "" || opts.Only != "" {
		info = append(info, [2]string{"selection", strings.TrimSpace(fmt.Sprintf("since=%s only=%s", opts.Since, opts.Only))})
	}
	if err := w.Info(filepath.Base(opts.Out), opts.Clock.Now(), info); err != nil {
		return cannotRun("%w", err)
	}
	captures, revisits, sources := 0, 0, map[string]bool{}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return withCode(ExitFailures, fmt.Errorf("interrupted: %s not written", opts.Out))
		}
		sources[it.Source()] = true
		if it.Capture != nil {
			err, captures = w.Capture(*it.Capture), captures+1
		} else {
			err, revisits = w.Revisit(*it.Revisit), revisits+1
		}
		if err != nil {
			return cannotRun("%w", err)
		}
	}
	if err := f.Commit(); err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(opts.IO.Err, "warc: wrote %s: %d capture(s) (request and response), %d revisit(s), %d source(s)\n", opts.Out, captures, revisits, len(sources))
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
