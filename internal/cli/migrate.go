package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// DefaultMigrateUploads bounds the uploads one migrate run makes: GitHub
// allows about 500 content-creating requests an hour (its secondary rate
// limits), and the hourly job makes some of its own, so a repository
// with thousands of blobs moves them over several runs.
const DefaultMigrateUploads = 300

type migrateOptions struct {
	paths
	// Max is the most uploads this run makes.
	Max int
	IO  IO
}

func cmdMigrate(ctx context.Context, io IO, args []string) error {
	opts := migrateOptions{IO: io}
	fs := newFlags("migrate", "[flags]", io)
	opts.register(fs, "manifests", "snapshots")
	fs.IntVar(&opts.Max, "max", DefaultMigrateUploads, "upload at most `N` blobs this run (run again for the rest)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if opts.Max < 1 {
		return usageError("--max %d: want at least one upload a run", opts.Max)
	}
	return runMigrate(ctx, opts)
}

// runMigrate copies the blobs the index cites and snapshots/ holds (a
// checkout of main that carries them) into every store, at most opts.Max
// uploads a run, asking each store first so that a run picks up where the
// last stopped. Once every store holds a blob, the bot's next pull
// request deletes it from main; the history keeps it until the owner
// rewrites it.
func runMigrate(ctx context.Context, opts migrateOptions) error {
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	all, err := configuredStores(opts.Snapshots, set, opts.IO, nil)
	if err != nil {
		return cannotRun("%w", err)
	}
	local, remote := all[0], all[1:]
	if len(remote) == 0 {
		return usageError("no store to move the bytes to: run it in GitHub Actions (GITHUB_REPOSITORY and GITHUB_TOKEN name the repository whose release assets keep them), or list a bucket under stores: in manifests/policy.yaml")
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	var sums []store.Sum
	seen := map[store.Sum]bool{}
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			for _, sum := range e.Blobs() {
				if !seen[sum] {
					seen[sum] = true
					sums = append(sums, sum)
				}
			}
		}
	}
	slices.Sort(sums)
	w := opts.IO.Err
	var uploads, done, absent int
	var moved int64
	for _, sum := range sums {
		size, err := local.Stat(ctx, sum)
		if err != nil {
			absent++ // in the stores already, or main never carried it
			continue
		}
		whole := true
		for _, b := range remote {
			if _, err := b.Stat(ctx, sum); err == nil {
				continue
			} else if !blobs.IsNotFound(err) {
				return cannotRun("%s: %w", b.Name(), err)
			}
			if uploads == opts.Max {
				whole = false
				continue
			}
			if _, err := (blobs.Stores{local}).CopyTo(ctx, sum, b, ""); err != nil {
				return cannotRun("%.12s to %s: %w (what was copied stays copied: run migrate again)", sum, b.Name(), err)
			}
			uploads++
			moved += size
		}
		if whole {
			done++
		}
	}
	held := len(sums) - absent
	fmt.Fprintf(w, "migrate: %d upload(s), %d bytes, to %s\n", uploads, moved, strings.Join(remote.Names(), ", "))
	if done < held {
		fmt.Fprintf(w, "migrate: %d of the %d blob(s) snapshots/ holds are in every store; run migrate again for the other %d (at most --max %d uploads a run keeps under GitHub's limits)\n", done, held, held-done, opts.Max)
		return nil
	}
	fmt.Fprintf(w, "migrate: every one of the %d blob(s) snapshots/ holds is in every store: the bot's next pull request deletes snapshots/sha256/ from main. The history keeps them until you rewrite it (docs/setup.md: git filter-repo).\n", held)
	return nil
}
