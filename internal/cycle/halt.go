package cycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gitstore"
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
		return "", fmt.Errorf("%s: %s does not decode (%w): fix or remove it on the branch", CacheBranch, haltFile, err)
	}
	if !now.Before(h.Until) {
		return "", nil
	}
	return h.Reason, nil
}

// cacheTrailer, in the message of each bot commit, names the cache
// branch's tip the commit was built with: the bot branch remembers that
// the cache branch existed even on a runner that never saw it.
const cacheTrailer = "Fetch-Cache: "

// missingCacheBranch decides what a missing cache branch means. Never seen
// before: the first run, which creates it. Seen before (this machine's
// store, or the bot branch, remembers its tip): it vanished, and with it
// the record of what each host was sent today, so no request may go out
// before the next UTC day. The branch is recreated at once, carrying that
// halt, so every run of every shard honours it.
func (c *Cycle) missingCacheBranch(ctx context.Context) (string, error) {
	seen, by := c.repo.LastSeen(CacheBranch), "this runner's copy of the repository"
	if seen == "" {
		seen, by = c.rememberedByBotBranch(ctx), "the bot branch "+BotBranch
	}
	if seen == "" {
		c.note("branch %s does not exist yet: this is the bot's first run, the branch is created", CacheBranch)
		return "", nil
	}
	now := c.o.Clock.Now().UTC()
	until := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	reason := fmt.Sprintf("branch %s has vanished (it was at %.12s, as %s remembers): how many requests each host got today cannot be known, "+
		"so none is sent before %s. The branch is recreated; it is the bot's memory, so protect it from deletion (a branch rule on %s)",
		CacheBranch, seen, by, until.Format("2006-01-02 15:04 UTC"), CacheBranch)
	data, _ := json.MarshalIndent(halt{Until: until, Reason: reason}, "", "  ")
	sig, msg := c.signature("recreate after the branch vanished")
	if _, err := c.repo.Update(ctx, CacheBranch, msg, sig, func(fs.FS) ([]gitstore.Change, error) {
		return []gitstore.Change{{Path: haltFile, Data: append(data, '\n')}}, nil
	}, 0); err != nil {
		return "", fmt.Errorf("recreate %s: %w", CacheBranch, explainGit(err))
	}
	c.note("%s", reason)
	return reason, nil
}

// rememberedByBotBranch returns the cache branch tip named by the newest
// bot commit on the bot branch, "" when none does.
func (c *Cycle) rememberedByBotBranch(ctx context.Context) string {
	reader, err := gitstore.OpenPartial(c.o.Remote)
	if err != nil {
		return ""
	}
	defer reader.Close()
	tip, _, err := reader.Read(ctx, BotBranch)
	if err != nil {
		return ""
	}
	log, err := reader.Log(tip, gitstore.PartialDepth)
	if err != nil {
		return ""
	}
	for _, cm := range log {
		for _, line := range strings.Split(cm.Message, "\n") {
			if v, ok := strings.CutPrefix(line, cacheTrailer); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}
