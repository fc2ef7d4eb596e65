package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

type publishOptions struct {
	paths
	Clock      clock.Clock
	HTTPClient *http.Client
	IO         IO
}

func cmdPublish(ctx context.Context, io IO, args []string) error {
	opts := publishOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("publish", "[flags]", io)
	opts.register(fs, "manifests", "snapshots", "reports", "state")
	if err := parse(fs, args); err != nil {
		return err
	}
	return runPublish(ctx, opts)
}

// runPublish is the second half of `ci` for a run made with `run`: push
// today's ledgers and the state to the cache branch, then publish the pull
// request. `ci` does both itself, under a lease; use this only for a run
// that no other run can overlap.
func runPublish(ctx context.Context, opts publishOptions) error {
	c, err := newCIRun(ciOptions{paths: opts.paths, Clock: opts.Clock, HTTPClient: opts.HTTPClient, IO: opts.IO, RunID: defaultRunID(opts.IO.Getenv)}, lease.All)
	if err != nil {
		return err
	}
	defer c.repo.Close()
	if err := c.pushState(ctx, "state", nil); err != nil {
		return cannotRun("push %s: %v", cacheBranch, err)
	}
	if _, err := c.publish(ctx); err != nil {
		return cannotRun("publish: %v", err)
	}
	return nil
}

// publish brings the run's outcome to reviewers: the new blobs, the hash
// index and the coverage report are committed on the rolling branch
// (created from main, then only ever added to, so blobs waiting in an
// unmerged pull request are never lost), and the pull request is opened or
// updated. Nothing happens when the report does not differ from main's.
//
// The report is built from the cache branch's newest state, read inside
// the compare-and-swap edit: when shards publish at once, whichever pushes
// last has seen every state pushed before it, so the report is never an
// older picture than the one it replaces.
func (c *ciRun) publish(ctx context.Context) (prURL string, err error) {
	local, err := store.LoadIndex(c.opts.indexPath())
	if err != nil {
		return "", err
	}
	reader, err := gitstore.OpenMemory(c.remote)
	if err != nil {
		return "", err
	}
	defer reader.Close()
	onMain, err := mainReport(ctx, reader)
	if err != nil {
		return "", err
	}
	var rep *report.Report
	var changes []report.Change
	sig, msg := c.signature("snapshots and coverage")
	tip, err := c.repo.UpdateFrom(ctx, prBranch, "main", msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		st, err := c.cacheState(ctx, reader)
		if err != nil {
			return nil, err
		}
		rep = report.Build(c.set, st)
		if changes = report.Diff(onMain, rep); len(changes) == 0 {
			return nil, nil
		}
		return c.publishChanges(tip, local, rep)
	}, 0)
	if err != nil {
		return "", fmt.Errorf("push %s: %w", prBranch, err)
	}
	if len(changes) == 0 || tip == "" {
		fmt.Fprintln(c.opts.IO.Err, "publish: the coverage report does not differ from main: no pull request")
		return "", nil
	}
	gh, err := github.NewClient(ctx, c.cfg, c.opts.HTTPClient)
	if err != nil {
		return "", err
	}
	n, url, created, err := gh.EnsurePR(ctx, github.PR{
		Head: prBranch, Base: "main",
		Title:  github.Title(changes),
		Body:   github.Body(changes, github.SummaryOf(rep), c.cfg.BlobURL(tip), c.cfg.RunURL()),
		Labels: []string{"taxkernelbot"},
	})
	if errors.Is(err, github.ErrLabels) {
		fmt.Fprintf(c.opts.IO.Err, "publish: %v\n", err)
	} else if err != nil {
		return "", err
	}
	verb := "updated"
	if created {
		verb = "opened"
	}
	fmt.Fprintf(c.opts.IO.Err, "publish: pull request #%d %s: %s\n", n, verb, url)
	return url, nil
}

// mainReport is the coverage report on main, the base of the pull
// request's summary (nil when main has none yet).
func mainReport(ctx context.Context, reader *gitstore.Repo) (*report.Report, error) {
	_, tip, err := reader.Read(ctx, "main")
	if err != nil {
		return nil, err
	}
	data, err := fs.ReadFile(tip, "reports/coverage.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r, err := report.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("main: reports/coverage.json: %w", err)
	}
	return r, nil
}

// cacheState is the state on the cache branch's tip now.
func (c *ciRun) cacheState(ctx context.Context, reader *gitstore.Repo) (*state.State, error) {
	_, tip, err := reader.Read(ctx, cacheBranch)
	if err != nil {
		return nil, err
	}
	return stateFrom(tip)
}

// publishChanges computes what the rolling branch lacks: blobs of the local
// store it does not hold, the union of its index and ours, and the report.
func (c *ciRun) publishChanges(tip fs.FS, local *store.Index, rep *report.Report) ([]gitstore.Change, error) {
	var out []gitstore.Change
	blobs := filepath.Join(c.opts.Snapshots, "sha256")
	err := filepath.WalkDir(blobs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(d.Name()) != 64 {
			return err
		}
		tp := "snapshots/sha256/" + d.Name()[:2] + "/" + d.Name()
		if _, err := fs.Stat(tip, tp); err == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, gitstore.Change{Path: tp, Data: data})
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	ix, err := indexFrom(tip)
	if err != nil {
		return nil, err
	}
	for _, id := range local.IDs() {
		for _, e := range local.Entries(id) {
			ix.Add(id, e)
		}
	}
	data, err := ix.Marshal()
	if err != nil {
		return nil, err
	}
	out = append(out, gitstore.Change{Path: "snapshots/index.json", Data: data})
	js, err := rep.JSON()
	if err != nil {
		return nil, err
	}
	return append(out,
		gitstore.Change{Path: "reports/coverage.json", Data: js},
		gitstore.Change{Path: "reports/coverage.md", Data: rep.Markdown()},
	), nil
}

func indexFrom(tip fs.FS) (*store.Index, error) {
	data, err := fs.ReadFile(tip, "snapshots/index.json")
	if errors.Is(err, fs.ErrNotExist) {
		return store.NewIndex(), nil
	}
	if err != nil {
		return nil, err
	}
	ix, err := store.ParseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: snapshots/index.json: %w", prBranch, err)
	}
	return ix, nil
}
