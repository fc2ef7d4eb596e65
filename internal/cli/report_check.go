package cli

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// The pages under reports/ are derived data: rendered from the manifests,
// the committed coverage.json and the index. A contributor who adds a URL
// changes the manifests only; the pages catch up where they are published
// (pages.yml renders them from main) and in the bot's next pull request,
// which commits them. So `report --check` holds the pages to the manifests
// they were rendered for (coverage.json records their fingerprint), and a
// page edited by hand is still caught:
//
//   - pages rendered for these manifests must be exactly what report
//     writes, as ever;
//   - pages left behind by a change to the manifests are not rendered
//     again by the check, but the coverage Markdown must still be what the
//     committed coverage.json says, and with --changed-since every file
//     the change touched under reports/ must be what report writes.

// renderedFor is the fingerprint of the manifests the committed report
// under dir was rendered for; "" when there is none, it does not parse or
// it names none (a report older than the fingerprint), which the check
// treats as rendered for these manifests.
func renderedFor(dir string) (*report.Report, string) {
	data, err := os.ReadFile(filepath.Join(dir, report.JSONName))
	if err != nil {
		return nil, ""
	}
	rep, err := report.Parse(data)
	if err != nil {
		return nil, ""
	}
	return rep, rep.Manifests
}

// leftBehind narrows what Compare found (differ, stale) for pages
// rendered for other manifests: only the coverage Markdown that the
// committed report does not render to, and, when changed names the files
// a change touched, each of those that is neither what report writes now
// nor what it writes for the manifests before the change (before: the
// bot's pull request renders its pages for main's manifests, and then
// proposes new editions in the manifests).
func leftBehind(dir string, committed *report.Report, files, before []public.File, differ, stale []string, changed map[string]bool) (differOut, staleOut []string, err error) {
	for name, data := range committed.MarkdownFiles() {
		held, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		if err != nil || !bytes.Equal(held, data) {
			differOut = append(differOut, name)
		}
	}
	if changed == nil {
		slices.Sort(differOut)
		return differOut, nil, nil
	}
	renderedBefore := make(map[string][]byte, len(before))
	for _, f := range before {
		renderedBefore[f.Name] = f.Data
	}
	// asBefore says the file is what report wrote for the manifests
	// before the change (absent if it wrote none).
	asBefore := func(name string) bool {
		want, ok := renderedBefore[name]
		if !ok {
			return false
		}
		held, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		return err == nil && bytes.Equal(held, want)
	}
	for _, name := range differ {
		if changed[name] && !slices.Contains(differOut, name) && !asBefore(name) {
			differOut = append(differOut, name)
		}
	}
	rendered := make(map[string]bool, len(files))
	for _, f := range files {
		rendered[f.Name] = true
	}
	for _, name := range stale {
		if changed[name] && !asBefore(name) {
			staleOut = append(staleOut, name)
		}
	}
	// A file the change added that report never writes: a page by hand.
	for _, name := range slices.Sorted(maps.Keys(changed)) {
		if !rendered[name] && !slices.Contains(staleOut, name) && !asBefore(name) {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
				staleOut = append(staleOut, name)
			}
		}
	}
	slices.Sort(differOut)
	slices.Sort(staleOut)
	return differOut, staleOut, nil
}

// changedSince names the files under dir (slash-separated, relative to
// dir) whose bytes differ from those at ref in the git repository that
// holds dir: changed, added or removed. It compares git's blob ids, so
// the blobs at ref need not be held (a partial clone will do). Nothing is
// fetched.
func changedSince(dir, ref string) (map[string]bool, error) {
	tree, rel, done, err := treeAt(dir, ref)
	if err != nil {
		return nil, fmt.Errorf("--changed-since %w", err)
	}
	defer done()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	before := map[string]string{}
	err = fs.WalkDir(tree, rel, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == rel {
			return fs.SkipAll // no such folder at ref: every file is new
		}
		if err != nil || d.IsDir() {
			return err
		}
		id, err := tree.ObjectID(p)
		if err != nil {
			return err
		}
		before[strings.TrimPrefix(p, rel+"/")] = id
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--changed-since %s: %w", ref, err)
	}
	changed := map[string]bool{}
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		r, err := filepath.Rel(abs, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(r)
		id := "" // a link is never what report writes: changed, whatever it was
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			id = blobID(data)
		}
		if before[name] != id {
			changed[name] = true
		}
		delete(before, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for name := range before { // removed
		changed[path.Clean(name)] = true
	}
	return changed, nil
}

// blobID is git's object id of a blob holding data.
func blobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// renderedBefore renders the outputs for the manifests at
// opts.ChangedSince when they are the ones the committed report was
// rendered for (fingerprint fp); nil otherwise.
func renderedBefore(ctx context.Context, opts reportOptions, fp string, ix *store.Index, now time.Time) ([]public.File, error) {
	files, err := manifestFilesAt(opts.Manifests, opts.ChangedSince)
	if err != nil {
		return nil, cannotRun("%w", err)
	}
	dir, err := os.MkdirTemp("", "taxkernelbot-manifests-")
	if err != nil {
		return nil, cannotRun("%w", err)
	}
	defer os.RemoveAll(dir)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, cannotRun("%w", err)
		}
	}
	base, diags := manifest.Load(dir)
	if diags.HasErrors() || base.Fingerprint() != fp {
		return nil, nil // not what the pages were rendered for: nothing to accept
	}
	out, _, err := renderFor(ctx, opts, base, ix, now)
	return out, err
}

// checkLeftBehind is report --check for pages rendered for other
// manifests than these: it fails only for what leftBehind finds.
func checkLeftBehind(opts reportOptions, committed *report.Report, files, before []public.File, differ, stale []string, changed map[string]bool) error {
	differ, stale, err := leftBehind(opts.Reports, committed, files, before, differ, stale, changed)
	if err != nil {
		return cannotRun("%w", err)
	}
	for _, name := range differ {
		fmt.Fprintf(opts.IO.Out, "%s differs from what report writes\n", filepath.Join(opts.Reports, name))
	}
	for _, name := range stale {
		fmt.Fprintf(opts.IO.Out, "%s is not a file report writes\n", filepath.Join(opts.Reports, name))
	}
	checked := "the coverage Markdown against " + report.JSONName
	if changed != nil {
		checked += fmt.Sprintf(", and the %d file(s) changed since %s", len(changed), opts.ChangedSince)
	}
	if n := len(differ) + len(stale); n > 0 {
		return withCode(ExitFailures, fmt.Errorf("%d file(s) under %s are not what report writes: the pages are rendered by taxkernelbot, never edited by hand; restore them (git checkout %s -- %s), or run `taxkernelbot report` and commit what it writes",
			n, opts.Reports, cmp.Or(opts.ChangedSince, "HEAD"), opts.Reports))
	}
	fmt.Fprintf(opts.IO.Out, "%s was rendered for other manifests than these (they changed since): the site renders the pages again when it publishes them, and the bot's next pull request commits them; checked %s\n", opts.Reports, checked)
	return nil
}
