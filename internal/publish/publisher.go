package publish

import (
	"context"
	"fmt"
	"io"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// The labels of the bot's pull requests.
const (
	// PRLabel marks the bot's pull requests.
	PRLabel = "taxkernelbot"
	// RebaseLabel hands the bot its branch back: with it on the pull
	// request, the bot rebuilds its branch over someone else's commit.
	RebaseLabel = "taxkernelbot:rebase"
	// ReproposeLabel on a pull request a reviewer closed asks the bot to
	// propose its content again.
	ReproposeLabel = "taxkernelbot:repropose"
)

// PullRequests is the part of the GitHub API the publisher uses;
// *github.Client is the real one.
type PullRequests interface {
	LatestPR(ctx context.Context, head string) (*github.PRState, error)
	EnsurePR(ctx context.Context, pr github.PR) (number int, url string, created bool, err error)
	EditPR(ctx context.Context, number int, title, body string) error
	Comment(ctx context.Context, number int, body string) error
	RemoveLabel(ctx context.Context, number int, label string) error
	// ClosedByBranchDeletion: was a closed pull request closed because its
	// head branch was deleted (not by a person)?
	ClosedByBranchDeletion(ctx context.Context, number int) (bool, error)
	// SyncFailureIssues keeps one issue per source failing for days.
	SyncFailureIssues(ctx context.Context, failing []github.FailureIssue, opts github.IssueOptions) (github.IssueSync, error)
}

// Options configures a Publisher.
type Options struct {
	Set       *manifest.Set
	Snapshots string // the local store
	State     string // the state directory: the issues' checks come from its ledgers

	// Remote is the repository: main and the bot branch are read through
	// partial clones of it.
	Remote gitstore.Remote
	// Cache holds the cache branch (the caller's, which pushed the state
	// to it): the publisher reads the newest state and ledgers from its
	// tip and keeps its record of pull requests there.
	Cache  *gitstore.Repo
	GitHub PullRequests
	Links  github.Config // where blobs and the workflow run are linked from
	// Stores, when set, keep the archive's bytes instead of main: the bot
	// commit carries no blob, each blob it cites is saved to every store
	// before it is pushed, and main's own blobs leave it once every store
	// holds them. Nil: the bytes ride in main, under snapshots/.
	Stores blobs.Stores
	Clock  clock.Clock // nil: the real one
	// By says who publishes, in the messages of the commits it makes on
	// the cache branch ("shard 1/2, run 101-1").
	By  string
	Log io.Writer
	// Note receives what a maintainer should know (also logged); nil: it
	// is only logged.
	Note func(msg string)
}

// Publisher publishes one cycle's outcome. Its day is the UTC day it was
// made on: what the record remembers of the repository's issues is kept
// per day.
type Publisher struct {
	o   Options
	day string
	// files is how many files the last bot commit built writes.
	files int
	// editions are the next editions the last rendering found;
	// editionCommits those whose entries the bot branch adds to main's
	// manifests, a commit each, in order.
	editions, editionCommits []edition.Proposal
	// held is what the stores were found to hold, by hash, this
	// publisher's life long.
	held map[store.Sum][]store.Holding
}

// New makes a publisher.
func New(o Options) *Publisher {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return &Publisher{o: o, day: ledger.Day(o.Clock.Now()), held: map[store.Sum][]store.Holding{}}
}

func (pub *Publisher) logf(format string, args ...any) {
	fmt.Fprintf(pub.o.Log, format+"\n", args...)
}

// note logs a line and hands it to Note.
func (pub *Publisher) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	pub.logf("%s", msg)
	if pub.o.Note != nil {
		pub.o.Note(msg)
	}
}

func (pub *Publisher) signature(what string) (gitstore.Signature, string) {
	return botrepo.Signature(pub.o.Clock.Now()), what + ": " + pub.o.By
}
