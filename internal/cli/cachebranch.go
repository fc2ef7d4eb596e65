package cli

// The cache branch (fetch-cache) as `ci` and `publish` use it: pulling the
// state before a run, and pushing ledgers, state and lease changes after,
// each as one compare-and-swap edit re-applied on the newest tip.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// pull brings the cache branch's state, robots copies and today's ledgers
// into the state directory. A missing branch is a first run.
func (c *ciRun) pull(ctx context.Context) error {
	_, tip, err := c.repo.Read(ctx, cacheBranch)
	if errors.Is(err, gitstore.ErrNoBranch) {
		return nil
	}
	if err != nil {
		return err
	}
	// Merge, never overwrite: the local copy may hold lines and state that
	// an earlier push failed to deliver, and they must reach the branch.
	dir := "ledgers/" + c.day
	ents, err := fs.ReadDir(tip, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range ents {
		remote, err := fs.ReadFile(tip, dir+"/"+e.Name())
		if err != nil {
			return err
		}
		p := filepath.Join(c.opts.State, filepath.FromSlash(dir), e.Name())
		local, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := atomicfile.WriteFile(p, lease.MergeLedger(remote, local), 0o644); err != nil {
			return err
		}
	}
	remote, err := stateFrom(tip)
	if err != nil {
		return err
	}
	local, err := state.Load(c.opts.State)
	if err != nil {
		return err
	}
	return lease.MergeState(remote, local).Save(c.opts.State)
}

// pushPeriodically pushes the ledgers every PushEvery while the run goes
// on, so a runner that dies loses at most that much of the record.
func (c *ciRun) pushPeriodically(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(c.opts.PushEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := c.pushLedgers(ctx); err != nil && ctx.Err() == nil {
					fmt.Fprintf(c.opts.IO.Err, "push ledgers: %v (retried at the next push)\n", err)
				}
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}

func (c *ciRun) pushLedgers(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	sig, msg := c.signature("ledgers")
	_, err := c.repo.Update(ctx, cacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		changes, err := c.ledgerChanges(tip)
		if err != nil {
			return nil, err
		}
		existing, _ := fs.ReadFile(tip, lease.Path(c.shard.Name()))
		l, err := lease.RenewFile(existing, c.lease, c.opts.Clock.Now(), c.opts.MaxDuration+2*c.opts.Margin)
		if err != nil {
			return nil, err
		}
		return append(changes, gitstore.Change{Path: lease.Path(c.shard.Name()), Data: l.Encode()}), nil
	}, 0)
	return err
}

// pushFinal pushes, in one commit, the run's ledgers, the merged state and
// the released lease: the release and the lines it accounts for must land
// together.
func (c *ciRun) pushFinal(ctx context.Context) error {
	dispatched, err := c.dispatched()
	if err != nil {
		return err
	}
	return c.pushState(ctx, "release", func(tip fs.FS) (gitstore.Change, error) {
		existing, _ := fs.ReadFile(tip, lease.Path(c.shard.Name()))
		l, err := lease.ReleaseFile(existing, c.lease, dispatched, c.opts.Clock.Now())
		return gitstore.Change{Path: lease.Path(c.shard.Name()), Data: l.Encode()}, err
	})
}

// pushState pushes the local ledgers of the day and the local state merged
// into the branch's, plus the lease change also (when given) in the same
// commit.
func (c *ciRun) pushState(ctx context.Context, what string, leaseChange func(tip fs.FS) (gitstore.Change, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	local, err := state.Load(c.opts.State)
	if err != nil {
		return err
	}
	sig, msg := c.signature(what)
	_, err = c.repo.Update(ctx, cacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		changes, err := c.ledgerChanges(tip)
		if err != nil {
			return nil, err
		}
		remote, err := stateFrom(tip)
		if err != nil {
			return nil, err
		}
		sc, err := stateChanges(tip, lease.MergeState(remote, local))
		if err != nil {
			return nil, err
		}
		changes = append(changes, sc...)
		if leaseChange == nil {
			return changes, nil
		}
		lc, err := leaseChange(tip)
		if err != nil {
			return nil, err
		}
		return append(changes, lc), nil
	}, 0)
	return err
}

// ledgerChanges appends the lines of every local ledger file of the lease's
// day that the tip does not hold yet.
func (c *ciRun) ledgerChanges(tip fs.FS) ([]gitstore.Change, error) {
	dir := filepath.Join(c.opts.State, "ledgers", c.day)
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var out []gitstore.Change
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		local, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		p := "ledgers/" + c.day + "/" + e.Name()
		remote, err := fs.ReadFile(tip, p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if merged := lease.MergeLedger(remote, local); string(merged) != string(remote) {
			out = append(out, gitstore.Change{Path: p, Data: merged})
		}
	}
	return out, nil
}

// dispatched counts this run's own dispatch lines per host on its lease's day.
func (c *ciRun) dispatched() (map[string]int, error) {
	out := map[string]int{}
	for host := range c.lease.Reservations {
		data, err := os.ReadFile(filepath.Join(c.opts.State, filepath.FromSlash(ledgerPath(c.lease.Day, host))))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		u, err := lease.CountLedger(data, host)
		if err != nil {
			return nil, err
		}
		if n := u.ByRun[c.opts.RunID]; n > 0 {
			out[host] = n
		}
	}
	return out, nil
}

func ledgerPath(day, host string) string { return "ledgers/" + day + "/" + ledger.FileName(host) }

func leaseFiles(tip fs.FS) (map[string][]byte, error) {
	files := map[string][]byte{}
	ents, err := fs.ReadDir(tip, lease.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := lease.Dir + "/" + e.Name()
		if files[p], err = fs.ReadFile(tip, p); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// stateFrom loads the state held by the tip (state.json and robots/).
func stateFrom(tip fs.FS) (*state.State, error) {
	dir, err := os.MkdirTemp("", "taxkernelbot-state-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := gitstore.Export(tip, "robots", filepath.Join(dir, "robots")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	data, err := fs.ReadFile(tip, "state.json")
	if errors.Is(err, fs.ErrNotExist) {
		return state.New(), nil
	}
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), data, 0o644); err != nil {
		return nil, err
	}
	return state.Load(dir)
}

// stateChanges renders st as state.Save would and returns the files that
// differ from the tip.
func stateChanges(tip fs.FS, st *state.State) ([]gitstore.Change, error) {
	dir, err := os.MkdirTemp("", "taxkernelbot-state-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := st.Save(dir); err != nil {
		return nil, err
	}
	return treeChanges(tip, dir, "")
}

// treeChanges returns a Change for every file under dir (at prefix in the
// tree) whose bytes the tip does not already hold.
func treeChanges(tip fs.FS, dir, prefix string) ([]gitstore.Change, error) {
	var out []gitstore.Change
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		tp := filepath.ToSlash(filepath.Join(prefix, rel))
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if held, err := fs.ReadFile(tip, tp); err == nil && string(held) == string(data) {
			return nil
		}
		out = append(out, gitstore.Change{Path: tp, Data: data})
		return nil
	})
	return out, err
}
