package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

type reportOptions struct {
	paths
	// Check writes nothing: it says which files under Reports differ
	// from what report would write, and fails when any does.
	Check bool
	// ChangedSince, with Check, names a commit (origin/main, HEAD^1):
	// every file under Reports that differs from it must be what report
	// writes, even where the pages were rendered for other manifests.
	ChangedSince string
	// Pages, when set, is a directory to write the site GitHub Pages
	// publishes into: every file report renders, and no change document
	// it no longer renders, which reports/ keeps.
	Pages string
	Clock clock.Clock // the week a report never observed is rendered as of; default clock.Real
	IO    IO
}

func cmdReport(ctx context.Context, io IO, args []string) error {
	opts := reportOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("report", "[flags]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	fs.BoolVar(&opts.Check, "check", false, "write nothing; exit 1, naming each file, when reports/ differ from what report writes for the manifests they were rendered for (CI runs this)")
	fs.StringVar(&opts.ChangedSince, "changed-since", "", "with --check: hold every file under reports/ that differs from git `REF` (a pull request's base) to what report writes for these manifests")
	fs.StringVar(&opts.Pages, "pages", "", "also write the site GitHub Pages publishes into `DIR`: what report renders, without the change documents no feed links any more (reports/ keeps them; each month's dataset release ships them)")
	if err := parse(fs, args); err != nil {
		return err
	}
	return runReport(ctx, opts)
}

// runReport renders every file report owns under the reports directory
// (coverage.json and coverage.md, the pages, the feeds) and writes them,
// or with Check compares them with what is there.
//
// With a local state (a run's, or the demo's), the statuses, robots.txt
// meanings and request counts are the state's and its ledgers'. Without
// one (a fresh clone), they are the committed coverage.json's: the bot's
// last pull request wrote them from the cache branch, and a change to the
// manifests keeps them for every source whose URL it leaves alone. So
// report on a clone of main writes what main holds, and CI can tell when
// a change to the manifests or the code left reports/ behind.
func runReport(ctx context.Context, opts reportOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	now := opts.Clock.Now()
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	files, basis, err := renderFor(ctx, opts, set, ix, now)
	if err != nil {
		return err
	}
	differ, stale, err := outputs.Compare(opts.Reports, files)
	if err != nil {
		return cannotRun("%w", err)
	}
	if opts.ChangedSince != "" && !opts.Check {
		return usageError("--changed-since goes with --check")
	}
	if opts.Pages != "" && opts.Check {
		return usageError("--pages writes the site; --check writes nothing: give one of them")
	}
	if opts.Check {
		var changed map[string]bool
		if opts.ChangedSince != "" {
			if changed, err = changedSince(opts.Reports, opts.ChangedSince); err != nil {
				return cannotRun("%w", err)
			}
		}
		if committed, fp := renderedFor(opts.Reports); fp != "" && fp != set.Fingerprint() {
			var before []public.File
			if changed != nil {
				if before, err = renderedBefore(ctx, opts, fp, ix, now); err != nil {
					return err
				}
			}
			return checkLeftBehind(opts, committed, files, before, differ, stale, changed)
		}
		for _, name := range differ {
			fmt.Fprintf(opts.IO.Out, "%s differs from what report writes\n", filepath.Join(opts.Reports, name))
		}
		for _, name := range stale {
			fmt.Fprintf(opts.IO.Out, "%s is left over: report no longer writes it\n", filepath.Join(opts.Reports, name))
		}
		if n := len(differ) + len(stale); n > 0 {
			return withCode(ExitFailures, fmt.Errorf("%d file(s) under %s are not what report writes for these manifests (%s): run `taxkernelbot report` and commit %s",
				n, opts.Reports, basis, opts.Reports))
		}
		fmt.Fprintf(opts.IO.Out, "%s is what report writes (%d files; %s)\n", opts.Reports, len(files), basis)
		return nil
	}
	if _, err := public.Write(opts.Reports, only(files, differ)...); err != nil {
		return cannotRun("%w", err)
	}
	if err := atomicfile.RemoveEach(opts.Reports, stale...); err != nil {
		return cannotRun("%w", err)
	}
	if opts.Pages != "" {
		// What is rendered, whole: the site's pages are rendered in full
		// here, and the change documents are those the feeds link.
		if _, err := public.Write(opts.Pages, files...); err != nil {
			return cannotRun("write the site for GitHub Pages: %w", err)
		}
		fmt.Fprintf(opts.IO.Out, "%s: the site GitHub Pages publishes (%d files)\n", opts.Pages, len(files))
	}
	if len(differ)+len(stale) == 0 {
		fmt.Fprintf(opts.IO.Out, "%s unchanged (%s)\n", opts.Reports, basis)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "%s: %d file(s) written, %d removed (%s)\n", opts.Reports, len(differ), len(stale), basis)
	return nil
}

// renderFor renders every output for set, and says what from.
func renderFor(ctx context.Context, opts reportOptions, set *manifest.Set, ix *store.Index, now time.Time) ([]public.File, string, error) {
	rep, st, basis, err := reportBasis(opts, set, ix, now)
	if err != nil {
		return nil, "", err
	}
	files, err := renderReports(ctx, opts, set, st, rep, ix, now)
	if err != nil {
		return nil, "", cannotRun("%w", err)
	}
	return files, basis, nil
}

// reportBasis is what the report is made of: a local state (st not nil),
// or the committed report's statuses and hosts (st nil), and words saying
// which.
func reportBasis(opts reportOptions, set *manifest.Set, ix *store.Index, now time.Time) (*report.Report, *state.State, string, error) {
	if _, err := os.Stat(filepath.Join(opts.State, state.FileName)); err == nil {
		st, err := state.Load(opts.State)
		if err != nil {
			return nil, nil, "", cannotRun("%w", err)
		}
		return report.Build(set, st).AddUsage(ix.Usage), st, "from the state in " + opts.State, nil
	}
	committed := filepath.Join(opts.Reports, report.JSONName)
	data, err := os.ReadFile(committed)
	if errors.Is(err, fs.ErrNotExist) {
		return report.Build(set, state.New()), state.New(), "nothing fetched yet", nil
	}
	if err != nil {
		return nil, nil, "", cannotRun("%w", err)
	}
	onMain, err := report.Parse(data)
	if err != nil {
		return nil, nil, "", cannotRun("%s does not parse (%v): restore it with `git checkout -- %s`", committed, err, committed)
	}
	if _, err := onMain.AsOf(now); err != nil {
		return nil, nil, "", cannotRun("%s: %v", committed, err)
	}
	rep := report.Keep(report.Build(set, state.New()), onMain)
	rep.Week = onMain.Week
	if rep.Week == "" {
		rep.Week = report.WeekLabel(now)
	}
	for _, h := range onMain.Hosts {
		if _, named := set.Hosts[h.Host]; named {
			rep.Hosts = append(rep.Hosts, h)
		}
	}
	return rep, nil, fmt.Sprintf("no state in %s: statuses and requests as %s records them, week %s", opts.State, committed, rep.Week), nil
}

// renderReports renders every output from the manifests, the report
// and, when there is one, the local state and its ledgers.
func renderReports(ctx context.Context, opts reportOptions, set *manifest.Set, st *state.State, rep *report.Report, ix *store.Index, now time.Time) ([]public.File, error) {
	in := outputs.Input{
		Set: set, Report: rep, State: st, Index: ix, Now: now,
		Texts: outputs.Derived{Snapshots: opts.Snapshots, Blob: storedBytes(ctx, opts.Snapshots, set, ix, opts.IO)}.Memoized(), Blob: outputs.BlobLinks(opts.IO.Getenv),
	}
	if st != nil {
		count, closeLedgers, err := outputs.LedgerCounts(opts.ledgerDir())
		if err != nil {
			return nil, err
		}
		defer closeLedgers()
		in.Count = count
	}
	files, err := outputs.Render(ctx, in)
	return files.All(), err
}

// only is the files named, in files' order: what Compare found differing
// is all there is to write.
func only(files []public.File, names []string) []public.File {
	named := make(map[string]bool, len(names))
	for _, n := range names {
		named[n] = true
	}
	var out []public.File
	for _, f := range files {
		if named[f.Name] {
			out = append(out, f)
		}
	}
	return out
}
