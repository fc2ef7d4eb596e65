package cycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// haltFile, on the cache branch, stops every run from sending a request
// until a time: written when the cache branch vanished and today's counts
// per host were lost with it.
const haltFile = "halt.json"

type halt struct {
	Until  time.Time `json:"until"`
	Reason string    `json:"reason"`
}

// haltReason returns the reason of a halt in force at now, "" when none.
func haltReason(tip fs.FS, now time.Time) (string, error) {
	data, err := fs.ReadFile(tip, haltFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var h halt
	if err := json.Unmarshal(data, &h); err != nil {
		return "", fmt.Errorf("%s: %s does not decode (%w): fix or remove it on the branch", botrepo.CacheBranch, haltFile, err)
	}
	if !now.Before(h.Until) {
		return "", nil
	}
	return h.Reason, nil
}

// missingCacheBranch decides what a missing cache branch means. Never seen
// before: the first run, which creates it. Seen before (this machine's
// store, the bot branch or main's report remembers it): it vanished, and
// with it the record of what each host was sent today, so no request may
// go out before the next UTC day. Everything else still known is
// recovered, from the newest place that holds it: the tip this runner's
// store remembers (its objects kept in the Actions cache), else main's
// report and index (statuses, hashes, what was served). The branch is
// recreated at once, with what was recovered and the halt, so every run of
// every shard honours it; no lease is carried over.
func (c *Cycle) missingCacheBranch(ctx context.Context) (string, error) {
	seen, by := c.repo.LastSeen(botrepo.CacheBranch), "this runner's copy of the repository"
	if seen == "" {
		seen, by = c.rememberedByBotBranch(ctx), "the bot branch "+botrepo.BotBranch
	}
	onMain, err := c.mainReport(ctx)
	if err != nil {
		return "", err
	}
	if seen == "" && checked(onMain) {
		seen, by = "(unknown)", botrepo.BaseBranch+"'s coverage report, which shows checked sources,"
	}
	if seen == "" {
		c.note("branch %s does not exist yet: this is the bot's first run, the branch is created", botrepo.CacheBranch)
		return "", nil
	}
	files, from, err := c.recoverCache(seen, onMain)
	if err != nil {
		return "", err
	}
	now := c.o.Clock.Now().UTC()
	until := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	reason := fmt.Sprintf("branch %s has vanished (it was at %.12s, as %s remembers): how many requests each host got today cannot be known, "+
		"so none is sent before %s. The branch is recreated from %s; it is the bot's memory, so protect it from deletion (a branch rule on %s)",
		botrepo.CacheBranch, seen, by, until.Format("2006-01-02 15:04 UTC"), from, botrepo.CacheBranch)
	data, _ := json.MarshalIndent(halt{Until: until, Reason: reason}, "", "  ")
	files[haltFile] = append(data, '\n')
	sig, msg := c.signature("recreate after the branch vanished")
	if _, err := c.repo.Update(ctx, botrepo.CacheBranch, msg, sig, func(fs.FS) ([]gitstore.Change, error) {
		changes := make([]gitstore.Change, 0, len(files))
		for _, p := range slices.Sorted(maps.Keys(files)) {
			changes = append(changes, gitstore.Change{Path: p, Data: files[p]})
		}
		return changes, nil
	}, 0); err != nil {
		return "", fmt.Errorf("recreate %s: %w", botrepo.CacheBranch, botrepo.ExplainGit(err))
	}
	c.note("%s", reason)
	// The recovered state is what this cycle publishes from.
	tree := fstest.MapFS{}
	for p, data := range files {
		tree[p] = &fstest.MapFile{Data: data}
	}
	c.pulled = tree
	st, err := state.Decode(tree)
	if err != nil {
		return "", err
	}
	local, err := state.Load(c.o.State)
	if err != nil {
		return "", err
	}
	if err := state.Merge(st, local).Save(c.o.State); err != nil {
		return "", err
	}
	return reason, nil
}

// recoverCache returns the files of the recreated cache branch and where
// they came from: the remembered tip's, when this runner's store holds it
// (leases and an old halt left out), else a state built from main's report.
func (c *Cycle) recoverCache(seen string, onMain *report.Report) (map[string][]byte, string, error) {
	if tree, err := c.repo.TreeOf(seen); err == nil {
		files := map[string][]byte{}
		err := fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || p == haltFile || strings.HasPrefix(p, lease.Dir+"/") {
				return err
			}
			files[p], err = fs.ReadFile(tree, p)
			return err
		})
		if err == nil {
			return files, fmt.Sprintf("its tip %.12s, which this runner's copy holds (state, validators, robots copies, ledgers, pending blobs)", seen), nil
		}
		c.logf("recover %s from %.12s: %v; recovering from %s's report instead", botrepo.CacheBranch, seen, err, botrepo.BaseBranch)
	}
	st := state.New()
	if onMain != nil {
		for _, e := range onMain.Sources {
			if e.Status == state.Pending {
				continue
			}
			st.PutSource(e.ID, state.Source{Status: e.Status, Since: e.Since, HTTPStatus: e.HTTPStatus, SHA256: store.Sum(e.SHA256),
				Size: e.Size, ContentType: e.ContentType, FinalURL: e.FinalURL, Detail: e.Detail})
		}
	}
	files, err := st.Files()
	if err != nil {
		return nil, "", err
	}
	return files, fmt.Sprintf("%s's coverage report (statuses and hashes; validators, robots copies and check times start afresh)", botrepo.BaseBranch), nil
}

// mainReport is main's coverage report (nil when it has none).
func (c *Cycle) mainReport(ctx context.Context) (rep *report.Report, err error) {
	err = c.onMain(ctx, func(tree *gitstore.Tree) error {
		rep, err = botrepo.ReportIn(tree, botrepo.BaseBranch)
		return err
	}, botrepo.CoverageJSON)
	return rep, err
}

// checked reports whether a report shows any source checked.
func checked(r *report.Report) bool {
	if r == nil {
		return false
	}
	for _, e := range r.Sources {
		if e.Status != state.Pending {
			return true
		}
	}
	return false
}

// rememberedByBotBranch returns the cache branch tip named by the newest
// bot commit on the bot branch, "" when none does.
func (c *Cycle) rememberedByBotBranch(ctx context.Context) string {
	reader, err := gitstore.OpenPartial(c.o.Remote)
	if err != nil {
		return ""
	}
	defer reader.Close()
	tip, _, err := reader.Read(ctx, botrepo.BotBranch)
	if err != nil {
		return ""
	}
	log, err := reader.Log(tip, gitstore.PartialDepth)
	if err != nil {
		return ""
	}
	for _, cm := range log {
		for _, line := range strings.Split(cm.Message, "\n") {
			if v, ok := strings.CutPrefix(line, botrepo.CacheTrailer); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}
