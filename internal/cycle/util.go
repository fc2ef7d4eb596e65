package cycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// copyBlobs copies the blobs named by sums from a branch's tree into the
// local store, checking each one's hash, and returns those the tree lacks.
func copyBlobs(ctx context.Context, tree *gitstore.Tree, snapshots string, sums []store.Sum) ([]store.Sum, error) {
	paths := make([]string, len(sums))
	for i, sum := range sums {
		paths[i] = "snapshots/" + sum.Path()
	}
	if err := tree.Fetch(ctx, paths...); err != nil {
		return nil, err
	}
	var left []store.Sum
	s, err := store.Open(snapshots)
	if err != nil {
		return nil, err
	}
	for i, sum := range sums {
		data, err := fs.ReadFile(tree, paths[i])
		if errors.Is(err, fs.ErrNotExist) {
			left = append(left, sum)
			continue
		}
		if err != nil {
			return nil, err
		}
		got, _, err := s.Put(ctx, bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if got != sum {
			return nil, fmt.Errorf("%s holds bytes that hash to %s under %s", BotBranch, got, sum)
		}
	}
	return left, nil
}

// copyPending copies the blobs of sums that wait on the cache branch's tip
// (pending/) into the local store, checking each one's hash, and returns
// the sums it did not find there.
func copyPending(ctx context.Context, tip fs.FS, snapshots string, sums []store.Sum) ([]store.Sum, error) {
	s, err := store.Open(snapshots)
	if err != nil {
		return nil, err
	}
	var left []store.Sum
	for _, sum := range sums {
		data, err := pendingBlob(tip, "snapshots/"+sum.Path())
		if errors.Is(err, fs.ErrNotExist) {
			left = append(left, sum)
			continue
		}
		if err != nil {
			return nil, err
		}
		got, _, err := s.Put(ctx, bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if got != sum {
			return nil, fmt.Errorf("%s holds bytes that hash to %s under %s", CacheBranch, got, pendingPath("snapshots/"+sum.Path()))
		}
	}
	return left, nil
}

// plan returns the host of each source a run now would request.
func plan(ctx context.Context, o Options) ([]string, error) {
	st, err := state.Load(o.State)
	if err != nil {
		return nil, err
	}
	res, err := pipeline.Run(ctx, pipeline.Options{
		Set: o.Set, Store: store.ReadOnly(o.Snapshots), Index: store.NewIndex(), State: st,
		Clock: o.Clock, Only: o.Only, DryRun: true, Hosts: o.Shard.Owns,
	})
	if err != nil {
		return nil, err
	}
	hosts := make([]string, len(res.Planned))
	for i, p := range res.Planned {
		hosts[i] = p.Host
	}
	return hosts, nil
}

// readLocal reads a file of the local store (its bytes as served).
func readLocal(snapshots string, sum store.Sum) ([]byte, error) {
	return os.ReadFile(filepath.Join(snapshots, filepath.FromSlash(sum.Path())))
}
