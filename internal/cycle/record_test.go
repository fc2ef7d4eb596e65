package cycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/report"
)

// afterEdit runs another cycle once this one's first edit of the pull
// request has landed, before it goes on (and saves its record).
type afterEdit struct {
	PullRequests
	then func()
	done bool
}

func (a *afterEdit) EditPR(ctx context.Context, number int, title, body string) error {
	err := a.PullRequests.EditPR(ctx, number, title, body)
	if !a.done {
		a.done = true
		a.then()
	}
	return err
}

// TestRecordNamesTheBranchWhateverTheShardsOrder: two shards, one of
// which owns no host. The other pushes its results and has not published
// yet; the one with no hosts publishes them (rebuilds the branch, edits
// the pull request), and before it saves its record the other runs a
// whole cycle on newer results, rebuilding the branch and editing the
// pull request again. The first then saves: the record on the cache
// branch still names the branch's real head and what it proposes.
func TestRecordNamesTheBranchWhateverTheShardsOrder(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a") // one host: one of two shards owns none
	o0, _ := r.options("1/1")
	owner, empty := "1/2", "2/2"
	if s, _ := lease.ParseShard(owner); !s.Owns(o0.Set.Sources[0].Host) {
		owner, empty = empty, owner
	}
	r.shardCycle(owner, nil)
	r.shardCycle(empty, nil)
	if prs := r.gh.PRs(); len(prs) != 1 || prs[0].State != "open" {
		t.Fatalf("after the first cycles: pull requests %+v, want one open", prs)
	}
	assertRecordTrue(t, r)

	// The owner's run pushes edition 2 and stops short of publishing.
	r.now = r.now.Add(2 * time.Hour)
	r.docs["t-a"] = "t-a rates, edition 2"
	o, log := r.options(owner)
	o.Run, o.NoPublish = r.runner(&o), true
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	before := r.tip(BotBranch)
	r.shardCycle(empty, func(gh PullRequests) PullRequests {
		return &afterEdit{PullRequests: gh, then: func() {
			if r.tip(BotBranch) == before {
				t.Fatalf("the shard with no hosts did not rebuild the branch with edition 2")
			}
			r.now = r.now.Add(2 * time.Hour)
			r.docs["t-a"] = "t-a rates, edition 3"
			r.shardCycle(owner, nil)
		}}
	})
	if !strings.Contains(r.show(BotBranch, coverageJSON), sha256Hex("t-a rates, edition 3")) {
		t.Fatalf("the branch does not propose edition 3:\n%s", r.show(BotBranch, coverageJSON))
	}
	assertRecordTrue(t, r)
}

// assertRecordTrue: while a pull request of the bot branch is open, the
// record on the cache branch names it, the branch's real head, and what
// the branch proposes against main; and the files the pull request's body
// links to are that head's.
func assertRecordTrue(t testing.TB, r *repo) {
	t.Helper()
	if msg := recordFalse(t, r); msg != "" {
		t.Error(msg)
	}
}

// recordFalse says how the record on the cache branch misstates the open
// pull request ("" when it does not, or when there is none).
func recordFalse(t testing.TB, r *repo) string {
	t.Helper()
	var open *githubtest.PR
	for _, pr := range r.gh.PRs() {
		if pr.State == "open" {
			open = &pr
		}
	}
	head := r.tip(BotBranch)
	if open == nil || head == "" || r.tip(CacheBranch) == "" {
		return ""
	}
	var rec record
	if data := r.show(CacheBranch, recordFile); data != "" {
		must(t, json.Unmarshal([]byte(data), &rec))
	}
	want := branchProposes(t, r)
	switch {
	case rec.Number != open.Number:
		return fmt.Sprintf("%s's record names pull request #%d, not the open #%d", CacheBranch, rec.Number, open.Number)
	case rec.Head != head:
		return fmt.Sprintf("%s's record names the head %.12s, not %s's %.12s", CacheBranch, rec.Head, BotBranch, head)
	case !slices.Equal(rec.Proposal, want):
		return fmt.Sprintf("%s's record names the proposal\n\t%s\nnot what %s proposes\n\t%s", CacheBranch, strings.Join(rec.Proposal, "\n\t"), BotBranch, strings.Join(want, "\n\t"))
	case strings.Contains(open.Body, "/blob/") && !strings.Contains(open.Body, "/blob/"+head+"/"):
		return fmt.Sprintf("pull request #%d's body does not describe %s's head %.12s:\n%s", open.Number, BotBranch, head, open.Body)
	}
	return ""
}

// branchProposes is what the bot branch proposes against main, read with
// git: the coverage report's changes and the other report files it
// changes.
func branchProposes(t testing.TB, r *repo) []string {
	t.Helper()
	parse := func(branch string) *report.Report {
		data := raw(r, branch, coverageJSON)
		if data == nil {
			return nil
		}
		rep, err := report.Parse(data)
		must(t, err)
		return rep
	}
	onMain, onBot := parse(BaseBranch), parse(BotBranch)
	if onBot == nil {
		return nil
	}
	md := onBot.MarkdownFiles()
	extra := map[string][]byte{}
	for p := range r.files(BotBranch) {
		if _, isMD := md[strings.TrimPrefix(p, "reports/")]; !strings.HasPrefix(p, "reports/") || p == coverageJSON || isMD {
			continue
		}
		if data := raw(r, BotBranch, p); string(data) != string(raw(r, BaseBranch, p)) {
			extra[p] = data
		}
	}
	return proposal(report.Diff(onMain, onBot), extra)
}

// raw is a file of a branch as git holds it (nil when it has none).
func raw(r *repo, branch, path string) []byte {
	out, err := exec.Command("git", "--git-dir", r.git.Dir(repoName), "show", "refs/heads/"+branch+":"+path).Output()
	if err != nil {
		return nil
	}
	return out
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestMergedRecord: a cycle's record is written onto the one on the cache
// branch's tip as what it changed of the one it read; the pull request it
// names does not replace one that names the bot branch's real head.
func TestMergedRecord(t *testing.T) {
	t.Parallel()
	pr := func(head string, keys ...string) record { return record{Number: 1, Head: head, Proposal: keys} }
	for _, c := range []struct {
		name                 string
		cur, read, ours      record
		head                 string
		wantHead, wantIssues string
		wantDeclined         int
	}{
		{name: "a later publisher's record stands", cur: pr("t2", "k2"), read: pr("t0", "k0"), ours: pr("t1", "k1"), head: "t2", wantHead: "t2"},
		{name: "ours names the real head", cur: pr("t1", "k1"), read: pr("t0", "k0"), ours: pr("t2", "k2"), head: "t2", wantHead: "t2"},
		{name: "neither names it: the last writer's", cur: pr("t1", "k1"), read: pr("t0", "k0"), ours: pr("t2", "k2"), head: "t3", wantHead: "t2"},
		{name: "nobody else wrote", cur: pr("t0", "k0"), read: pr("t0", "k0"), ours: pr("t1", "k1"), head: "t2", wantHead: "t1"},
		{name: "what ours left alone is the tip's",
			cur:  record{Number: 1, Head: "t2", Proposal: []string{"k2"}, IssuesOff: "2026-11-03"},
			read: pr("t0", "k0"), ours: record{Number: 1, Head: "t0", Proposal: []string{"k0"}, DeclinedPR: 1, Declined: []string{"k0"}},
			head: "t2", wantHead: "t2", wantIssues: "2026-11-03", wantDeclined: 1},
	} {
		got := merged(c.cur, c.read, c.ours, c.head)
		if got.Head != c.wantHead || got.IssuesOff != c.wantIssues || got.DeclinedPR != c.wantDeclined {
			t.Errorf("%s: got %+v, want head %s, issues off %q, declined #%d", c.name, got, c.wantHead, c.wantIssues, c.wantDeclined)
		}
		want := c.cur
		if got.Head == c.ours.Head {
			want = c.ours
		}
		if !samePR(got, want) {
			t.Errorf("%s: the pull request part %+v is not one record's whole (%+v)", c.name, got, want)
		}
	}
}
