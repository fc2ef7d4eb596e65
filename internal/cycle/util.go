package cycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
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
	return copyInto(ctx, snapshots, sums, botrepo.BotBranch, func(sum store.Sum) ([]byte, error) {
		return fs.ReadFile(tree, "snapshots/"+sum.Path())
	})
}

// copyPending copies the blobs of sums that wait on the cache branch's tip
// (pending/) into the local store and returns those it did not find.
func copyPending(ctx context.Context, tip fs.FS, snapshots string, sums []store.Sum) ([]store.Sum, error) {
	return copyInto(ctx, snapshots, sums, botrepo.CacheBranch, func(sum store.Sum) ([]byte, error) {
		return botrepo.PendingBlob(tip, "snapshots/"+sum.Path())
	})
}

// copyInto puts the bytes read gives for each of sums into the local store,
// checking that they hash to it, and returns the sums read found nothing
// for (fs.ErrNotExist). from names where read reads, for the error.
func copyInto(ctx context.Context, snapshots string, sums []store.Sum, from string, read func(store.Sum) ([]byte, error)) ([]store.Sum, error) {
	s, err := store.Open(snapshots)
	if err != nil {
		return nil, err
	}
	var left []store.Sum
	for _, sum := range sums {
		data, err := read(sum)
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
			return nil, fmt.Errorf("%s holds bytes that hash to %s under %s", from, got, sum)
		}
	}
	return left, nil
}

// plan returns the host of each source a run now would request.
func plan(_ context.Context, o Options) ([]string, error) {
	st, err := state.Load(o.State)
	if err != nil {
		return nil, err
	}
	lim := o.Limits
	lim.Hosts = o.Shard.Owns
	due := pipeline.Due(pipeline.Options{Set: o.Set, Store: store.ReadOnly(o.Snapshots), State: st, Limits: lim})
	hosts := make([]string, len(due))
	for i, p := range due {
		hosts[i] = p.Host
	}
	return hosts, nil
}
