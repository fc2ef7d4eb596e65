package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
)

// RecordFile, on the cache branch, is what the bot remembers of its pull
// requests between cycles.
const RecordFile = "pull-request.json"

// Record is the bot's memory of its pull requests, kept in RecordFile on
// the cache branch; what a cycle changed of it is merged onto the tip's,
// so shards write it in any order.
type Record struct {
	// Number and Head: the pull request last opened or updated, and the
	// commit of the bot branch it showed.
	Number int    `json:"number,omitempty"`
	Head   string `json:"head,omitempty"`
	// Proposal: what that commit proposed (keys as Proposal makes them).
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
func recordIn(tip fs.FS) (Record, error) {
	var r Record
	data, err := fs.ReadFile(tip, RecordFile)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %s does not decode (%w): remove it from the branch and the bot starts its memory of pull requests afresh", botrepo.CacheBranch, RecordFile, err)
	}
	return r, nil
}

func (r Record) encode() []byte {
	data, _ := json.MarshalIndent(r, "", "  ")
	return append(data, '\n')
}

// saveRecord writes what this cycle changed of the record it read (read,
// now r) onto the record on the cache branch's tip, leaving what other runs
// wrote meanwhile (see merged).
func (pub *Publisher) saveRecord(ctx context.Context, read, r Record) error {
	sig, msg := pub.signature("pull request")
	_, err := pub.o.Cache.Update(ctx, botrepo.CacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		cur, err := recordIn(tip)
		if err != nil {
			return nil, err
		}
		head, err := pub.o.Cache.Tip(ctx, botrepo.BotBranch)
		if err != nil {
			return nil, err
		}
		return []gitstore.Change{{Path: RecordFile, Data: merged(cur, read, r, head).encode()}}, nil
	}, 0)
	return botrepo.ExplainGit(err)
}

// merged is the record cur (the tip's) with what one cycle changed of the
// record it read (read, now ours). The pull request it names (Number, Head,
// Proposal) goes as one, and shards publish in any order: a cycle's
// replaces the tip's unless the tip's names the bot branch's head as it is
// now (head) and the cycle's does not, which means a later publisher wrote
// it.
func merged(cur, read, ours Record, head string) Record {
	out := cur
	if !samePR(ours, read) && (ours.Head == head || cur.Head != head || samePR(cur, read)) {
		out.Number, out.Head, out.Proposal = ours.Number, ours.Head, ours.Proposal
	}
	if ours.DeclinedPR != read.DeclinedPR || !slices.Equal(ours.Declined, read.Declined) {
		out.DeclinedPR, out.Declined = ours.DeclinedPR, ours.Declined
	}
	if ours.BranchDeletedPR != read.BranchDeletedPR {
		out.BranchDeletedPR = ours.BranchDeletedPR
	}
	if ours.IssuesOff != read.IssuesOff {
		out.IssuesOff = ours.IssuesOff
	}
	if ours.ForeignNoted != read.ForeignNoted {
		out.ForeignNoted = ours.ForeignNoted
	}
	return out
}

// samePR reports whether a and b name the same pull request, head and
// proposal.
func samePR(a, b Record) bool {
	return a.Number == b.Number && a.Head == b.Head && slices.Equal(a.Proposal, b.Proposal)
}

// updateRecord changes one thing of the record as it is on the cache
// branch's tip, leaving what other runs wrote.
func (pub *Publisher) updateRecord(ctx context.Context, change func(*Record)) error {
	sig, msg := pub.signature("pull request")
	_, err := pub.o.Cache.Update(ctx, botrepo.CacheBranch, msg, sig, func(tip fs.FS) ([]gitstore.Change, error) {
		r, err := recordIn(tip)
		if err != nil {
			return nil, err
		}
		change(&r)
		return []gitstore.Change{{Path: RecordFile, Data: r.encode()}}, nil
	}, 0)
	return botrepo.ExplainGit(err)
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
