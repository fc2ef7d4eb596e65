package cycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/taxkernel/taxkernelbot/internal/gitstore"
)

// recordFile, on the cache branch, is what the bot remembers of its pull
// requests between cycles.
const recordFile = "pull-request.json"

// record is the bot's memory of its pull requests.
type record struct {
	// Number and Head: the pull request last opened or updated, and the
	// commit of the bot branch it showed.
	Number int    `json:"number,omitempty"`
	Head   string `json:"head,omitempty"`
	// Proposal: what that commit proposed (report.Change keys).
	Proposal []string `json:"proposal,omitempty"`
	// Declined: what a pull request closed without merging proposed, and
	// which one it was. A key leaves the list once the source has moved on
	// (it is no longer proposed), so that coming back to it later is news.
	DeclinedPR int      `json:"declined_pr,omitempty"`
	Declined   []string `json:"declined,omitempty"`
	// BranchDeletedPR: a pull request closed because its branch was
	// deleted, already recognised as such (it declined nothing).
	BranchDeletedPR int `json:"branch_deleted_pr,omitempty"`
	// IssuesOff: the UTC day the repository's issues were found turned
	// off or unreadable; not asked again that day.
	IssuesOff string `json:"issues_off,omitempty"`
	// ForeignNoted: the commit by someone else on the bot branch that the
	// bot has already commented on, so it says so once.
	ForeignNoted string `json:"foreign_noted,omitempty"`
}

// recordIn reads the record from the cache branch's tip (a zero record
// when there is none yet).
func recordIn(tip fs.FS) (record, error) {
	var r record
	data, err := fs.ReadFile(tip, recordFile)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %s does not decode (%w): remove it from the branch and the bot starts its memory of pull requests afresh", CacheBranch, recordFile, err)
	}
	return r, nil
}

func (r record) encode() []byte {
	data, _ := json.MarshalIndent(r, "", "  ")
	return append(data, '\n')
}

func (c *Cycle) saveRecord(ctx context.Context, r record) error {
	sig, msg := c.signature("pull request")
	_, err := c.repo.Update(ctx, CacheBranch, msg, sig, func(fs.FS) ([]gitstore.Change, error) {
		return []gitstore.Change{{Path: recordFile, Data: r.encode()}}, nil
	}, 0)
	return explainGit(err)
}

// updateRecord changes one thing of the record as it is on the cache
// branch's tip, leaving what other runs wrote.
func (c *Cycle) updateRecord(ctx context.Context, change func(*record)) error {
	sig, msg := c.signature("pull request")
	_, err := c.repo.Update(ctx, CacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		r, err := recordIn(tip)
		if err != nil {
			return nil, err
		}
		change(&r)
		return []gitstore.Change{{Path: recordFile, Data: r.encode()}}, nil
	}, 0)
	return explainGit(err)
}

// keep returns the keys of have that are also in want.
func keep(have, want []string) []string {
	var out []string
	for _, k := range have {
		if slices.Contains(want, k) {
			out = append(out, k)
		}
	}
	return out
}

// subset reports whether every key of a is in b.
func subset(a, b []string) bool {
	for _, k := range a {
		if !slices.Contains(b, k) {
			return false
		}
	}
	return true
}
