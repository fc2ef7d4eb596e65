package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// CheckOnly says, as an ErrUsage, when only ("" for all) names neither a
// source id nor a jurisdiction of set, with the closest name.
func CheckOnly(set *manifest.Set, only string) error {
	if only == "" {
		return nil
	}
	if _, ok := set.Source(only); ok {
		return nil
	}
	for _, m := range set.Manifests {
		if m.Jurisdiction == only {
			return nil
		}
	}
	return usageError("--only %q names no source id and no jurisdiction%s", only, onlyHint(set, only))
}

// onlyHint suggests the source id or jurisdiction closest to a mistyped
// --only, e.g. "UK" → "uk".
func onlyHint(set *manifest.Set, only string) string {
	var names []string
	for _, m := range set.Manifests {
		names = append(names, m.Jurisdiction)
	}
	for _, s := range set.Sources {
		names = append(names, s.ID)
	}
	if hint := manifest.Suggest(only, names); hint != "" {
		return "; " + hint
	}
	return "; use a source id or a jurisdiction from the manifests (taxkernelbot validate lists the count)"
}

// printPlan prints, host by host, what a run now would request (robots.txt
// included) and how long the politeness rules make it take, and what it
// would leave and why: the run's own gates decide, on a clock that does
// not wait, so the plan is what the run does when every server answers
// as usual.
func printPlan(ctx context.Context, opts Options, set *manifest.Set, st *state.State, s *store.Store) error {
	lim := opts.Limits
	if lim.Spent == nil {
		lim.Spent = ledgerSpent(opts.LedgerDir())
	}
	lim.Deadline = deadline(opts)
	plans, err := pipeline.Simulate(ctx, pipeline.Options{Set: set, Store: s, State: st, Limits: lim})
	if err != nil {
		return cannotRun("plan: %w", err)
	}
	if opts.Plan != nil {
		return opts.Plan(set, plans)
	}
	w := bufio.NewWriter(opts.Output.Out) // a line per request, written in large pieces
	requests, deferred, excluded := 0, 0, 0
	for _, p := range plans {
		requests += len(p.Requests)
		deferred += len(p.Deferred)
		excluded += len(p.Excluded)
	}
	fmt.Fprintf(w, "dry run: %d request(s) to %d host(s), %d source(s) deferred, %d excluded; nothing sent, nothing written\n", requests, len(plans), deferred, excluded)
	for _, p := range plans {
		if len(p.Requests)+len(p.Deferred)+len(p.Excluded) == 0 && opts.Only == "" {
			continue // nothing due: listed with --only
		}
		fmt.Fprintf(w, "\n%s: %d request(s), about %s of politeness\n", p.Host, len(p.Requests), roughly(p.Took()))
		// A line per request and per source: written piece by piece, as
		// formatting each costs more than the simulation that found it.
		for _, r := range p.Requests {
			what := r.Source
			if r.Purpose == ledger.PurposeRobots {
				what = "robots.txt"
			}
			w.WriteString("  +")
			padded(w, roughly(r.At).String(), 8)
			w.WriteByte(' ')
			padded(w, r.Purpose, 10)
			w.WriteByte(' ')
			w.WriteString(what)
			w.WriteString("  ")
			w.WriteString(terminal.Text(r.URL))
			w.WriteByte('\n')
		}
		notes(w, "  deferred  ", p.Deferred, terminal.Text)
		notes(w, "  excluded  ", p.Excluded, func(s string) string { return s })
		notes(w, "  skipped   ", p.Skipped, terminal.Text)
	}
	if err := w.Flush(); err != nil {
		return cannotRun("plan: %w", err)
	}
	return nil
}

// padded writes s left-aligned in n columns, as %-ns would.
func padded(w *bufio.Writer, s string, n int) {
	w.WriteString(s)
	for i := utf8.RuneCountInString(s); i < n; i++ {
		w.WriteByte(' ')
	}
}

// notes writes a line "<lead>id: why" per note.
func notes(w *bufio.Writer, lead string, ns []pipeline.SourceNote, why func(string) string) {
	for _, d := range ns {
		w.WriteString(lead)
		w.WriteString(d.ID)
		w.WriteString(": ")
		w.WriteString(why(d.Why))
		w.WriteByte('\n')
	}
}

// roughly rounds d for reading: to the second, or to the millisecond
// under a second (the demo's and the tests' policies).
func roughly(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// ledgerSpent counts a host's dispatch lines on a day in the ledgers
// under dir, without opening them for writing. Each day's directory is
// listed once, so that the many hosts without a file that day cost no
// open each.
func ledgerSpent(dir string) func(host, day string) (int, error) {
	var mu sync.Mutex
	days := map[string]map[string]bool{} // day → its files
	return func(host, day string) (int, error) {
		mu.Lock()
		files, ok := days[day]
		if !ok {
			entries, err := os.ReadDir(filepath.Join(dir, day))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				mu.Unlock()
				return 0, err
			}
			files = map[string]bool{}
			for _, e := range entries {
				files[e.Name()] = true
			}
			days[day] = files
		}
		mu.Unlock()
		if !files[ledger.FileName(host)] {
			return 0, nil
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ledger.Path(day, host))))
		if err != nil {
			return 0, err
		}
		u, err := ledger.Count(data, host)
		return u.Total, err
	}
}
