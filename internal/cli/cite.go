package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

type citeOptions struct {
	paths
	Source string
	IO     IO
}

func cmdCite(ctx context.Context, io IO, args []string) error {
	opts := citeOptions{IO: io}
	fs := newFlags("cite", "[flags] SOURCE", io)
	opts.register(fs, "manifests", "snapshots", "state")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("cite takes exactly one source id")
	}
	opts.Source = fs.Arg(0)
	return runCite(ctx, opts)
}

// runCite prints what a rules engine needs to cite a source: the URL, the
// date the held bytes were retrieved, and their hash, size and type.
func runCite(_ context.Context, opts citeOptions) error {
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	src, ok := set.Source(opts.Source)
	if !ok {
		return usageError("no source %q in %s", opts.Source, opts.Manifests)
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%v", err)
	}
	st, err := state.Load(opts.State)
	if err != nil {
		return cannotRun("%v", err)
	}
	cur := st.Source(src.ID)
	entries := ix.Entries(src.ID)
	if len(entries) == 0 {
		return withCode(ExitFailures, fmt.Errorf("%s has no bytes held yet (status %s): run `taxkernelbot run --only %s`", src.ID, cur.Status, src.ID))
	}
	e := entries[len(entries)-1]
	if cur.SHA256 != "" {
		if held, ok := ix.Lookup(src.ID, cur.SHA256); ok {
			e = held
		}
	}
	retrieved := e.FirstSeen
	if cur.SHA256 == e.SHA256 && !cur.LastGood.IsZero() {
		retrieved = cur.LastGood.UTC().Format(time.DateOnly)
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "%s. %q. %s. Retrieved %s. sha256:%s\n", src.Jurisdiction, src.Title, e.FinalURL, retrieved, e.SHA256)
	fmt.Fprintf(w, "source:       %s\n", src.ID)
	fmt.Fprintf(w, "url:          %s\n", src.URL)
	if e.FinalURL != src.URL {
		fmt.Fprintf(w, "final_url:    %s\n", e.FinalURL)
	}
	fmt.Fprintf(w, "retrieved:    %s\n", retrieved)
	fmt.Fprintf(w, "first_seen:   %s\n", e.FirstSeen)
	fmt.Fprintf(w, "sha256:       %s\n", e.SHA256)
	fmt.Fprintf(w, "size:         %d\n", e.Size)
	fmt.Fprintf(w, "content_type: %s\n", e.ContentType)
	return nil
}
