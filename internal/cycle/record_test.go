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

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/publish"
	"github.com/taxkernel/taxkernelbot/internal/report"
)

// afterEdit runs another cycle once this one's first edit of the pull
// request has landed, before it goes on (and saves its record).
type afterEdit struct {
	publish.PullRequests
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
	before := r.tip(botrepo.BotBranch)
	r.shardCycle(empty, func(gh publish.PullRequests) publish.PullRequests {
		return &afterEdit{PullRequests: gh, then: func() {
			if r.tip(botrepo.BotBranch) == before {
				t.Fatalf("the shard with no hosts did not rebuild the branch with edition 2")
			}
			r.now = r.now.Add(2 * time.Hour)
			r.docs["t-a"] = "t-a rates, edition 3"
			r.shardCycle(owner, nil)
		}}
	})
	if !strings.Contains(r.show(botrepo.BotBranch, botrepo.CoverageJSON), sha256Hex("t-a rates, edition 3")) {
		t.Fatalf("the branch does not propose edition 3:\n%s", r.show(botrepo.BotBranch, botrepo.CoverageJSON))
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
	head := r.tip(botrepo.BotBranch)
	if open == nil || head == "" || r.tip(botrepo.CacheBranch) == "" {
		return ""
	}
	var rec publish.Record
	if data := r.show(botrepo.CacheBranch, publish.RecordFile); data != "" {
		must(t, json.Unmarshal([]byte(data), &rec))
	}
	want := branchProposes(t, r)
	switch {
	case rec.Number != open.Number:
		return fmt.Sprintf("%s's record names pull request #%d, not the open #%d", botrepo.CacheBranch, rec.Number, open.Number)
	case rec.Head != head:
		return fmt.Sprintf("%s's record names the head %.12s, not %s's %.12s", botrepo.CacheBranch, rec.Head, botrepo.BotBranch, head)
	case !slices.Equal(rec.Proposal, want):
		return fmt.Sprintf("%s's record names the proposal\n\t%s\nnot what %s proposes\n\t%s", botrepo.CacheBranch, strings.Join(rec.Proposal, "\n\t"), botrepo.BotBranch, strings.Join(want, "\n\t"))
	case strings.Contains(open.Body, "/blob/") && !strings.Contains(open.Body, "/blob/"+head+"/"):
		return fmt.Sprintf("pull request #%d's body does not describe %s's head %.12s:\n%s", open.Number, botrepo.BotBranch, head, open.Body)
	}
	return ""
}

// branchProposes is what the bot branch proposes against main, read with
// git: the coverage report's changes and the other report files it
// changes.
func branchProposes(t testing.TB, r *repo) []string {
	t.Helper()
	parse := func(branch string) *report.Report {
		data := raw(r, branch, botrepo.CoverageJSON)
		if data == nil {
			return nil
		}
		rep, err := report.Parse(data)
		must(t, err)
		return rep
	}
	onMain, onBot := parse(botrepo.BaseBranch), parse(botrepo.BotBranch)
	if onBot == nil {
		return nil
	}
	md := onBot.MarkdownFiles()
	extra := map[string][]byte{}
	for p := range r.files(botrepo.BotBranch) {
		if _, isMD := md[strings.TrimPrefix(p, "reports/")]; !strings.HasPrefix(p, "reports/") || p == botrepo.CoverageJSON || isMD {
			continue
		}
		if data := raw(r, botrepo.BotBranch, p); string(data) != string(raw(r, botrepo.BaseBranch, p)) {
			extra[p] = data
		}
	}
	return publish.Proposal(report.Diff(onMain, onBot), extra)
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
