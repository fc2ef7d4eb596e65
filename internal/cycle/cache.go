package cycle

// The cache branch (fetch-cache): pulling the state before a run, and
// pushing ledgers, state and lease changes after, each as one
// compare-and-swap edit re-applied on the newest tip.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// pull brings the cache branch's state, robots copies and today's ledgers
// into the state directory, merging, never overwriting: the local copy may
// hold lines and state that an earlier push failed to deliver. It returns
// why no request may be sent today, if a halt is in force (see halt).
func (c *Cycle) pull(ctx context.Context) (halted string, err error) {
	if m, ok := c.unpushed(); ok {
		c.note("restoring the ledgers and state of run %s, which could not push them: they are pushed with this run's", m.RunID)
		if err := c.restoreKept(ctx); err != nil {
			return "", fmt.Errorf("restore the blobs run %s kept: %w", m.RunID, err)
		}
	}
	_, tip, err := c.repo.Read(ctx, botrepo.CacheBranch)
	if errors.Is(err, gitstore.ErrNoBranch) {
		return c.missingCacheBranch(ctx)
	}
	if err != nil {
		return "", err
	}
	c.pulled = tip
	dir := "ledgers/" + c.day
	ents, err := fs.ReadDir(tip, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, e := range ents {
		remote, err := fs.ReadFile(tip, dir+"/"+e.Name())
		if err != nil {
			return "", err
		}
		p := filepath.Join(c.o.State, filepath.FromSlash(dir), e.Name())
		local, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if err := writeUnder(c.o.State, dir+"/"+e.Name(), ledger.Merge(remote, local)); err != nil {
			return "", err
		}
	}
	remote, err := state.Decode(tip)
	if err != nil {
		return "", fmt.Errorf("%s: %w", botrepo.CacheBranch, err)
	}
	local, err := state.Load(c.o.State)
	if err != nil {
		return "", err
	}
	if err := state.Merge(remote, local).Save(c.o.State); err != nil {
		return "", err
	}
	return haltReason(tip, c.o.Clock.Now())
}

// carryPending copies into the local store the held bytes that only the
// cache branch's pending/ or the unmerged pull request has, so that their validators can be sent (a 304
// instead of the whole document) and the next publish keeps them. Their
// entries come into the local index with them, as the place they came
// from records them: a fresh checkout then holds them as that place does,
// and the run does not take them for the leftovers of an interrupted one.
func (c *Cycle) carryPending(ctx context.Context) error {
	st, err := state.Load(c.o.State)
	if err != nil {
		return err
	}
	var missing []store.Sum
	local := store.ReadOnly(c.o.Snapshots)
	for _, id := range st.SourceIDs() {
		if sum := st.Source(id).SHA256; sum != "" && !local.Has(sum) {
			missing = append(missing, sum)
		}
	}
	carried := store.NewIndex()
	if c.pulled != nil && len(missing) > 0 {
		left, err := copyPending(ctx, c.pulled, c.o.Snapshots, missing)
		if err != nil {
			return err
		}
		waiting, err := botrepo.IndexAt(c.pulled, botrepo.PendingIndex, botrepo.CacheBranch)
		if err != nil {
			return err
		}
		carried.Unite(entriesOf(waiting, missing, left))
		missing = left
	}
	if len(missing) > 0 {
		reader, err := gitstore.OpenPartial(c.o.Remote)
		if err != nil {
			return err
		}
		defer reader.Close()
		_, tip, err := reader.Read(ctx, botrepo.BotBranch)
		if err != nil && !errors.Is(err, gitstore.ErrNoBranch) {
			return err
		}
		if err == nil {
			left, err := copyBlobs(ctx, tip, c.o.Snapshots, missing)
			if err != nil {
				return err
			}
			if err := tip.Fetch(ctx, botrepo.IndexJSON); err != nil {
				return err
			}
			proposed, err := botrepo.IndexAt(tip, botrepo.IndexJSON, botrepo.BotBranch)
			if err != nil {
				return err
			}
			carried.Unite(entriesOf(proposed, missing, left))
			missing = left
		}
	}
	if carried.Len() > 0 {
		ixPath := filepath.Join(c.o.Snapshots, "index.json")
		ix, err := store.LoadIndex(ixPath)
		if err != nil {
			return err
		}
		ix.Unite(carried)
		if err := ix.Save(ixPath); err != nil {
			return err
		}
	}
	return c.fetchAgain(st, missing)
}

// entriesOf is the part of ix for the sums copied: those of tried that are
// not in left.
func entriesOf(ix *store.Index, tried, left []store.Sum) *store.Index {
	copied := make(map[store.Sum]bool, len(tried))
	for _, sum := range tried {
		copied[sum] = true
	}
	for _, sum := range left {
		delete(copied, sum)
	}
	out := store.NewIndex()
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if copied[e.SHA256] {
				out.Unite(single(id, e))
			}
		}
	}
	return out
}

// fetchAgain makes the sources whose held bytes no place holds any more
// (a runner died with them before they were kept) due at once, without
// validators: a plain GET recovers them.
func (c *Cycle) fetchAgain(st *state.State, lost []store.Sum) error {
	if len(lost) == 0 {
		return nil
	}
	for _, id := range st.SourceIDs() {
		src := st.Source(id)
		if !slices.Contains(lost, src.SHA256) {
			continue
		}
		c.note("%s: its bytes %.12s are held nowhere (a runner stopped before they were kept): fetched again", id, src.SHA256)
		src.LastCheck, src.ETag, src.LastModified = time.Time{}, "", ""
		st.PutSource(id, src)
	}
	return st.Save(c.o.State)
}

// want is the number of requests the run would like per host: its due
// sources, robots.txt, and room for redirect hops.
func (c *Cycle) want(ctx context.Context) (map[string]int, error) {
	planned, err := plan(ctx, c.o)
	if err != nil {
		return nil, err
	}
	want := map[string]int{}
	for _, host := range planned {
		if want[host] == 0 {
			want[host] = 1 // robots.txt
		}
		want[host] += 2 // the document and one redirect hop
	}
	return want, nil
}

// acquire takes the shard's lease, reserving out of what today's caps have
// left once every other run's ledger lines and reservations are counted.
func (c *Cycle) acquire(ctx context.Context, want map[string]int) error {
	sig, msg := c.signature("lease")
	now := c.o.Clock.Now()
	self := lease.ID{RunID: c.o.RunID, Holder: c.o.Holder, Shard: c.o.Shard.Name()}
	marker, restored := c.unpushed()
	_, err := c.repo.Update(ctx, botrepo.CacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		files, err := leaseFiles(tip)
		if err != nil {
			return nil, err
		}
		var changes []gitstore.Change
		own := lease.Path(c.o.Shard.Name())
		if restored && marker.Lease.Shard == self.Shard {
			// An earlier attempt that could not push left its lines here:
			// they land in this commit, and its lease is released with what
			// they show it sent, so its reservation stops counting.
			if changes, err = c.ledgerChanges(tip); err != nil {
				return nil, err
			}
			sent, err := c.dispatchedBy(marker.Lease, marker.RunID)
			if err != nil {
				return nil, err
			}
			if rel, err := lease.ReleaseFile(files[own], marker.Lease, sent, now); err == nil {
				files[own] = rel.Encode()
			}
		}
		leases, err := lease.DecodeAll(files)
		if err != nil {
			return nil, err
		}
		caps, usage := map[string]int{}, map[string]ledger.Usage{}
		for host := range want {
			caps[host] = c.o.Set.Host(host).DailyCap
			data, err := fs.ReadFile(tip, "ledgers/"+ledger.Path(c.day, host))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			for _, ch := range changes {
				if ch.Path == "ledgers/"+ledger.Path(c.day, host) {
					data = ch.Data
				}
			}
			if usage[host], err = ledger.Count(data, host); err != nil {
				return nil, fmt.Errorf("%s ledgers/%s: %w", botrepo.CacheBranch, ledger.Path(c.day, host), err)
			}
		}
		l, err := lease.Acquire(files[own], lease.Request{
			RunID: self.RunID, Holder: self.Holder, Shard: self.Shard,
			TTL:  c.ttl(),
			Want: want, Remaining: lease.Remaining(c.day, caps, usage, leases, self, now),
		}, now)
		if err != nil {
			return nil, err
		}
		c.lease = l
		return append(changes, gitstore.Change{Path: own, Data: l.Encode()}), nil
	}, 0)
	if errors.Is(err, lease.ErrHeld) {
		return cannot("%v: another run is fetching shard %s; nothing was requested", err, c.o.Shard)
	}
	if err != nil {
		return cannot("take the lease of shard %s: %v", c.o.Shard, botrepo.ExplainGit(err))
	}
	return nil
}

func (c *Cycle) ttl() time.Duration { return c.o.MaxDuration + 2*c.o.Margin }

func (c *Cycle) pushLedgers(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	sig, msg := c.signature("ledgers")
	_, err := c.repo.Update(ctx, botrepo.CacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		changes, err := c.ledgerChanges(tip)
		if err != nil {
			return nil, err
		}
		existing, _ := fs.ReadFile(tip, lease.Path(c.o.Shard.Name()))
		l, err := lease.RenewFile(existing, c.lease, c.o.Clock.Now(), c.ttl())
		if err != nil {
			return nil, err
		}
		return append(changes, gitstore.Change{Path: lease.Path(c.o.Shard.Name()), Data: l.Encode()}), nil
	}, 0)
	return err
}

// pushFinal pushes, in one commit, the run's ledgers, the merged state and
// the released lease: the release and the lines it accounts for must land
// together. It tries PushAttempts times; when every try fails, the run's
// ledgers and state stay in the state directory with a marker naming the
// run and its lease, so that a re-run of the same workflow run (which the
// workflow gives that directory back to) takes the lease over and pushes
// them.
func (c *Cycle) pushFinal(ctx context.Context) error {
	dispatched, err := c.dispatched()
	if err != nil {
		return cannot("count this run's requests: %v", err)
	}
	release := func(tip fs.FS) ([]gitstore.Change, error) {
		p := lease.Path(c.o.Shard.Name())
		existing, _ := fs.ReadFile(tip, p)
		l, err := lease.ReleaseFile(existing, c.lease, dispatched, c.o.Clock.Now())
		if err != nil {
			return nil, err
		}
		return []gitstore.Change{{Path: p, Data: l.Encode()}}, nil
	}
	wait := 2 * time.Second
	for attempt := 1; ; attempt++ {
		err = c.pushState(ctx, "release", release)
		if err == nil {
			c.clearUnpushed()
			return nil
		}
		if attempt == c.o.PushAttempts || errors.Is(err, lease.ErrLost) {
			break
		}
		c.logf("push %s: %v; trying again in %s (%d of %d)", botrepo.CacheBranch, botrepo.ExplainGit(err), wait, attempt+1, c.o.PushAttempts)
		if err := c.o.Clock.Sleep(ctx, wait); err != nil {
			break
		}
		wait *= 2
	}
	if merr := c.markUnpushed(); merr != nil {
		return cannot("push %s: %v; and keeping this run's record for a re-run failed too: %v", botrepo.CacheBranch, botrepo.ExplainGit(err), merr)
	}
	return cannot("push %s failed %d times: %v. This run's ledgers and state are kept in %s (in GitHub Actions the workflow uploads them as the artifact %q). "+
		"Re-run the workflow run (Re-run all jobs): the re-run gets them back, takes over this run's lease and pushes them; nothing else is needed",
		botrepo.CacheBranch, c.o.PushAttempts, botrepo.ExplainGit(err), c.o.State, "taxkernelbot-state-"+runOf(c.o.RunID)+"-"+c.o.Shard.Name())
}

// pushState pushes the local ledgers of the day and the local state merged
// into the branch's, plus what extra returns, in one commit.
func (c *Cycle) pushState(ctx context.Context, what string, extra func(tip fs.FS) ([]gitstore.Change, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	local, err := state.Load(c.o.State)
	if err != nil {
		return err
	}
	main, err := c.readMain(ctx)
	if err != nil {
		return fmt.Errorf("read %s: %w", botrepo.BaseBranch, err)
	}
	c.main = main
	if err := c.pushPendingInParts(ctx, main); err != nil {
		return err
	}
	sig, msg := c.signature(what)
	_, err = c.repo.Update(ctx, botrepo.CacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		changes, err := c.ledgerChanges(tip)
		if err != nil {
			return nil, err
		}
		// The bytes the state names travel with it (see pending.go).
		pending, err := c.pendingChanges(tip, main)
		if err != nil {
			return nil, err
		}
		changes = append(changes, pending...)
		remote, err := state.Decode(tip)
		if err != nil {
			return nil, err
		}
		files, err := state.Merge(remote, local).Files()
		if err != nil {
			return nil, err
		}
		// Unchanged files cost nothing: the commit leaves out a file whose
		// hash the tip already has, and no commit is made at all when
		// nothing differs.
		for _, p := range slices.Sorted(maps.Keys(files)) {
			changes = append(changes, gitstore.Change{Path: p, Data: files[p]})
		}
		if extra == nil {
			return changes, nil
		}
		more, err := extra(tip)
		if err != nil {
			return nil, err
		}
		return append(changes, more...), nil
	}, 0)
	return err
}

// ledgerChanges appends the lines of every local ledger file of the day
// that the tip does not hold yet.
func (c *Cycle) ledgerChanges(tip fs.FS) ([]gitstore.Change, error) {
	dir := filepath.Join(c.o.State, "ledgers", c.day)
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
		if merged := ledger.Merge(remote, local); string(merged) != string(remote) {
			out = append(out, gitstore.Change{Path: p, Data: merged})
		}
	}
	return out, nil
}

// dispatched counts this run's own dispatch lines per host on its lease's day.
func (c *Cycle) dispatched() (map[string]int, error) {
	return c.dispatchedBy(c.lease, c.o.RunID)
}

func (c *Cycle) dispatchedBy(l lease.Lease, runID string) (map[string]int, error) {
	out := map[string]int{}
	for host := range l.Reservations {
		u, err := ledger.CountFile(filepath.Join(c.o.State, "ledgers", filepath.FromSlash(ledger.Path(l.Day, host))), host)
		if err != nil {
			return nil, err
		}
		if n := u.ByRun[runID]; n > 0 {
			out[host] = n
		}
	}
	return out, nil
}

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

// unpushedFile, in the state directory, marks ledgers and state that a run
// could not push: which run, under which lease.
const unpushedFile = "unpushed.json"

type unpushedMarker struct {
	RunID string      `json:"run_id"`
	At    time.Time   `json:"at"`
	Lease lease.Lease `json:"lease"`
}

func (c *Cycle) unpushed() (unpushedMarker, bool) {
	var m unpushedMarker
	data, err := os.ReadFile(filepath.Join(c.o.State, unpushedFile))
	if err != nil || json.Unmarshal(data, &m) != nil || m.RunID == "" || m.RunID == c.o.RunID {
		return m, false
	}
	return m, true
}

func (c *Cycle) markUnpushed() error {
	if err := c.keepPending(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(unpushedMarker{RunID: c.o.RunID, At: c.o.Clock.Now().UTC(), Lease: c.lease}, "", "  ")
	if err != nil {
		return err
	}
	return writeUnder(c.o.State, unpushedFile, append(data, '\n'))
}

// writeUnder atomically replaces name (slash-separated) beneath dir, through
// a root opened on dir: nothing is written outside it by a link.
func writeUnder(dir, name string, data []byte) error {
	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFile(name, data, 0o644)
}

func (c *Cycle) clearUnpushed() {
	d, err := atomicfile.OpenDir(c.o.State)
	if err != nil {
		c.logf("remove %s and %s: %v", unpushedFile, botrepo.PendingDir, err)
		return
	}
	defer d.Close()
	if err := d.Remove(unpushedFile); err != nil {
		c.logf("remove %s: %v", unpushedFile, err)
	}
	if err := d.RemoveAll(botrepo.PendingDir); err != nil {
		c.logf("remove %s: %v", botrepo.PendingDir, err)
	}
}

// keepPending copies what this run's store holds beyond main (its index
// entries, blobs and texts) into the state directory's pending/, in the
// store's layout: a re-run gets the state directory back, not the
// runner's snapshots, and must publish the bytes the state names.
func (c *Cycle) keepPending() error {
	if c.main == nil {
		return nil // main was never read: no push was tried
	}
	local, err := store.LoadIndex(filepath.Join(c.o.Snapshots, "index.json"))
	if err != nil {
		return err
	}
	beyond := local.Beyond(c.main.ix)
	if beyond.Len() == 0 {
		return nil
	}
	dir := filepath.Join(c.o.State, botrepo.PendingDir)
	kept, err := store.Open(dir)
	if err != nil {
		return err
	}
	for _, id := range beyond.IDs() {
		for _, e := range beyond.Entries(id) {
			for _, sum := range e.Blobs() {
				data, err := botrepo.ReadLocal(c.o.Snapshots, sum)
				if err != nil {
					return err
				}
				if _, _, err := kept.Put(context.Background(), bytes.NewReader(data)); err != nil {
					return err
				}
			}
			for p, text := range botrepo.StoreTexts(c.o.Snapshots, e.SHA256) {
				if err := writeUnder(c.o.State, botrepo.PendingDir+"/"+p, text); err != nil {
					return err
				}
			}
		}
	}
	return beyond.Save(filepath.Join(dir, "index.json"))
}

// restoreKept brings what an earlier attempt kept in the state directory's
// pending/ back into the local store and index.
func (c *Cycle) restoreKept(ctx context.Context) error {
	dir := filepath.Join(c.o.State, botrepo.PendingDir)
	kept, err := store.LoadIndex(filepath.Join(dir, "index.json"))
	if err != nil || kept.Len() == 0 {
		return err
	}
	var sums []store.Sum
	for _, id := range kept.IDs() {
		for _, e := range kept.Entries(id) {
			sums = append(sums, e.Blobs()...)
			for _, f := range botrepo.StoreTextFiles(e.SHA256) {
				if data, err := os.ReadFile(filepath.Join(c.o.State, botrepo.PendingDir, filepath.FromSlash(f))); err == nil {
					if err := writeUnder(c.o.Snapshots, f, data); err != nil {
						return err
					}
				}
			}
		}
	}
	lost, err := copyInto(ctx, c.o.Snapshots, sums, dir, func(sum store.Sum) ([]byte, error) { return botrepo.ReadLocal(dir, sum) })
	if err != nil {
		return err
	}
	if len(lost) > 0 {
		return fmt.Errorf("%s names %.12s but does not hold it", dir, lost[0])
	}
	ixPath := filepath.Join(c.o.Snapshots, "index.json")
	local, err := store.LoadIndex(ixPath)
	if err != nil {
		return err
	}
	local.Unite(kept)
	return local.Save(ixPath)
}

// runOf is the workflow run of a run id "<run>-<attempt>".
func runOf(runID string) string {
	if i := strings.LastIndexByte(runID, '-'); i > 0 {
		return runID[:i]
	}
	return runID
}
