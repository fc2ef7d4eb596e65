package cycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/lease"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/publish"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestScriptedMonth lives a month with the bot as a maintainer would:
// main moves under an open pull request, a reviewer squash-merges it,
// quiet days, a change, a reviewer closes the next one, quiet days, a new
// change. Every step checks what reviewers and GitHub see.
func TestScriptedMonth(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b", "t-c")
	var story []string
	day := func(what string) {
		prs := r.gh.PRs()
		var states []string
		for _, p := range prs {
			s := p.State
			if p.Merged {
				s = "merged"
			}
			states = append(states, fmt.Sprintf("#%d %s", p.Number, s))
		}
		story = append(story, fmt.Sprintf("day %2d: %-55s pull requests: %s", len(story)+1, what, strings.Join(states, ", ")))
	}
	writes := func() int { return len(r.gh.Writes()) }

	// Day 1: the first cycle opens pull request #1.
	r.cycle()
	if prs := r.gh.PRs(); len(prs) != 1 || prs[0].State != "open" {
		t.Fatalf("day 1: pull requests %+v, want #1 open", prs)
	}
	day("first cycle")

	// Day 2: a contributor changes main while #1 is open; a document changes.
	mainTip := r.git.Commit(t, repoName, "main", "README: how to add a URL", map[string][]byte{"README.md": []byte("tax, v2\n")})
	r.docs["t-a"] = "t-a rates, edition 2"
	before := writes()
	r.cycle()
	if got := r.git.Git(t, repoName, "rev-parse", botrepo.BotBranch+"^"); got != mainTip {
		t.Errorf("day 2: the bot branch sits on %s, want main's tip %s", got, mainTip)
	}
	if paths := r.changedPaths(); !onlyBotPaths(paths) {
		t.Errorf("day 2: the bot branch differs from main in files the bot never touched: %v", paths)
	}
	if w := r.gh.Writes()[before:]; len(w) != 1 || !strings.HasPrefix(w[0], "PATCH /repos/acme/tax/pulls/1") {
		t.Errorf("day 2: GitHub writes %v, want one edit of #1", w)
	}
	if body := r.gh.PRs()[0].Body; !strings.Contains(body, "t-a") {
		t.Errorf("day 2: #1 does not show t-a:\n%s", body)
	}
	day("main moves, t-a changes")

	// Day 3: a reviewer squash-merges #1.
	r.squashMerge(1)
	day("#1 squash-merged")

	// Days 4 and 5: nothing changes: nothing is pushed or written.
	for d := 4; d <= 5; d++ {
		before, botTip := writes(), r.tip(botrepo.BotBranch)
		r.cycle()
		if w := r.gh.Writes()[before:]; len(w) != 0 {
			t.Errorf("day %d (quiet): GitHub writes %v", d, w)
		}
		if r.tip(botrepo.BotBranch) != botTip {
			t.Errorf("day %d (quiet): the bot branch moved", d)
		}
		day("quiet")
	}

	// Day 6: t-b changes: #2 opens, on main, without a conflict.
	r.docs["t-b"] = "t-b rates, edition 2"
	r.cycle()
	prs := r.gh.PRs()
	if len(prs) != 2 || prs[1].State != "open" {
		t.Fatalf("day 6: pull requests %+v, want #2 open", prs)
	}
	if !r.mergeable() {
		t.Error("day 6: the new pull request conflicts with main after a squash merge")
	}
	if paths := r.changedPaths(); len(paths) != 14 || !onlyBotPaths(paths) || !slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, "snapshots/text/") }) ||
		!slices.Contains(paths, "reports/feeds/all.atom") || !slices.Contains(paths, "reports/feeds/test.atom") || !slices.Contains(paths, "reports/feeds/sources/t-b.atom") ||
		!slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, "reports/changes/t-b/2026-11-06_") }) ||
		!slices.Contains(paths, "reports/site/sources/t-b.html") || !slices.Contains(paths, "reports/site/sources/t-b.wlnk") || !slices.Contains(paths, "reports/site/jurisdictions/test.html") || !slices.Contains(paths, "reports/site/inputs.json") {
		t.Errorf("day 6: the bot branch changes %v; want one blob, its text and the engine that derived it, the index, the two reports, the three feeds that show t-b and its change document, and t-b's and its jurisdiction's pages on the site, t-b's TimeMap and the site's inputs", paths)
	}
	if !strings.Contains(prs[1].Body, "Documents that changed (1)") {
		t.Errorf("day 6: #2 does not show one changed document:\n%s", prs[1].Body)
	}
	if !strings.Contains(prs[1].Body, "```diff") || !strings.Contains(prs[1].Body, "+t-b rates, edition 2") {
		t.Errorf("day 6: #2 does not show the text diff:\n%s", prs[1].Body)
	}
	day("t-b changes")

	// Day 7: a reviewer closes #2 without merging.
	r.gh.Close(2)
	day("#2 closed unmerged")

	// Days 8 and 9: nothing new: the closed proposal is not made again.
	for d := 8; d <= 9; d++ {
		before := writes()
		_, log := r.cycle()
		if w := r.gh.Writes()[before:]; len(w) != 0 {
			t.Errorf("day %d: GitHub writes %v after a reviewer closed the same content\n%s", d, w, log)
		}
		day("quiet")
	}

	// Day 10: a change the closed one did not propose: #3 opens.
	r.docs["t-c"] = "t-c rates, edition 2"
	r.cycle()
	prs = r.gh.PRs()
	if len(prs) != 3 || prs[2].State != "open" {
		t.Fatalf("day 10: pull requests %+v, want #3 open", prs)
	}
	if !strings.Contains(prs[2].Body, "t-c") {
		t.Errorf("day 10: #3 does not show t-c:\n%s", prs[2].Body)
	}
	if !r.mergeable() {
		t.Error("day 10: #3 conflicts with main")
	}
	day("t-c changes")
	t.Log("the month, as the pull requests saw it:\n" + strings.Join(story, "\n"))

	// The cache branch only ever moved forward.
	for _, u := range r.git.RefLog(t, repoName, "refs/heads/"+botrepo.CacheBranch) {
		if u.Old != strings.Repeat("0", 40) {
			if _, err := r.git.Run(repoName, "merge-base", "--is-ancestor", u.Old, u.New); err != nil {
				t.Errorf("%s was rewritten from %.12s to %.12s", botrepo.CacheBranch, u.Old, u.New)
			}
		}
	}
}

// TestSomeoneElsesCommitIsNeverDropped: a maintainer fixes the report by
// hand on the bot branch. The bot comments once, leaves the branch alone
// while fetch results keep flowing, and takes it back only when the label
// taxkernelbot:rebase is added.
func TestSomeoneElsesCommitIsNeverDropped(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a")
	r.cycle()
	theirs := r.git.Commit(t, repoName, botrepo.BotBranch, "fix a typo in the report", map[string][]byte{"reports/coverage.md": []byte("# Coverage, fixed by hand\n")})
	for d := range 2 {
		r.docs["t-a"] = fmt.Sprintf("t-a rates, edition %d", d+2)
		_, log := r.cycle()
		if got := r.tip(botrepo.BotBranch); got != theirs {
			t.Fatalf("cycle %d rewrote the branch over someone else's commit (now %s)\n%s", d+2, got, log)
		}
		if !strings.Contains(log, theirs[:12]) || !strings.Contains(log, publish.RebaseLabel) {
			t.Errorf("cycle %d's log does not name the commit and the label:\n%s", d+2, log)
		}
	}
	pr := r.gh.PRs()[0]
	if len(pr.Comments) != 1 || !strings.Contains(pr.Comments[0], theirs[:12]) || !strings.Contains(pr.Comments[0], publish.RebaseLabel) {
		t.Fatalf("comments %q: want exactly one naming the commit and the label", pr.Comments)
	}
	if n := strings.Count(r.git.Git(t, repoName, "log", "--format=%s", botrepo.CacheBranch), "release:"); n != 3 {
		t.Errorf("%d releases on the cache branch, want 3: fetch results must keep flowing", n)
	}
	// The label hands the branch back: rebuilt on main, label removed.
	r.gh.AddLabel(1, publish.RebaseLabel)
	r.cycle()
	if got := r.git.Git(t, repoName, "log", "-1", "--format=%ae", botrepo.BotBranch); got != botrepo.BotEmail {
		t.Errorf("after the label the tip is by %s, want the bot", got)
	}
	if r.git.Git(t, repoName, "rev-parse", botrepo.BotBranch+"^") != r.tip("main") {
		t.Error("after the label the branch does not sit on main")
	}
	if pr := r.gh.PRs()[0]; slices.Contains(pr.Labels, publish.RebaseLabel) || !strings.Contains(pr.Body, "t-a") {
		t.Errorf("after the rebuild: labels %v, body updated %v", pr.Labels, strings.Contains(pr.Body, "t-a"))
	}
}

// TestMissingBotBranchIsRecreatedAndSaid: a maintainer deletes the bot
// branch; the next cycle with something new recreates it and says so.
func TestMissingBotBranchIsRecreatedAndSaid(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a")
	r.cycle()
	r.git.Git(t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.BotBranch)
	r.gh.HeadDeleted(1) // GitHub closes a pull request whose branch is deleted
	r.docs["t-a"] = "t-a rates, edition 2"
	summary := filepath.Join(t.TempDir(), "summary.md")
	o, log := r.options("1/1")
	o.Run, o.StepSummary = r.runner(&o), summary
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	sum, _ := os.ReadFile(summary)
	if !strings.Contains(string(sum), botrepo.BotBranch+" was missing") {
		t.Errorf("the step summary does not say the branch was missing:\n%s", sum)
	}
	if r.tip(botrepo.BotBranch) == "" || len(r.gh.PRs()) != 2 {
		t.Errorf("branch %q, %d pull requests: want the branch recreated and #2 opened", r.tip(botrepo.BotBranch), len(r.gh.PRs()))
	}
}

// TestDeletedBotBranchIsNoDecline: deleting the bot branch makes GitHub
// close its pull request; that is no reviewer's "no", so the next cycle,
// with nothing new fetched, recreates the branch from main and opens a
// pull request with what main still lacks. A pull request a person closes
// stays declined until the label asks for it again.
func TestDeletedBotBranchIsNoDecline(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.cycle()
	first := r.show(botrepo.BotBranch, botrepo.IndexJSON)
	r.git.Git(t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.BotBranch)
	r.gh.HeadDeleted(1)
	r.now = r.now.Add(-23 * time.Hour) // the same day: nothing is due, nothing new is fetched
	_, log := r.cycle()
	prs := r.gh.PRs()
	if len(prs) != 2 || prs[1].State != "open" {
		t.Fatalf("%d pull requests after the branch was deleted: want #2 open with what main lacks\n%s", len(prs), log)
	}
	if got := r.show(botrepo.BotBranch, botrepo.IndexJSON); got != first {
		t.Errorf("the recreated branch's index differs from what #1 proposed:\n%s\nwant\n%s", got, first)
	}
	assertHeld(t, r)

	r.gh.Close(2) // a reviewer's "no"
	_, log = r.cycle()
	if n := len(r.gh.PRs()); n != 2 {
		t.Fatalf("%d pull requests after a reviewer closed #2: want it left closed", n)
	}
	if !strings.Contains(log, publish.ReproposeLabel) {
		t.Errorf("the cycle does not say how to have it proposed again:\n%s", log)
	}
	r.gh.AddLabel(2, publish.ReproposeLabel)
	_, log = r.cycle()
	if prs := r.gh.PRs(); len(prs) != 3 || prs[2].State != "open" {
		t.Fatalf("%d pull requests after the label asked again: want #3 open\n%s", len(prs), log)
	}
}

// TestLostCacheBranchAfterAMergeLosesNothing: main holds the merged report
// when fetch-cache is deleted, on a runner that never saw the branch. The
// cycle halts until the next UTC day, recovers statuses and hashes from
// main's report, takes no lease, and opens no pull request: a lost state
// is no change of the documents. The next day's fetch of unchanged bytes
// is quiet too.
func TestLostCacheBranchAfterAMergeLosesNothing(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.cycle()
	r.squashMerge(1)
	onMain, err := report.Parse([]byte(r.show(botrepo.BaseBranch, botrepo.CoverageJSON)))
	must(t, err)
	r.git.Git(t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.CacheBranch)
	out, log := r.cycle()
	if out.Requests != 0 || !strings.Contains(log, "none is sent before") {
		t.Errorf("%d requests on the day the cache branch vanished: want none, and the halt said\n%s", out.Requests, log)
	}
	if n := len(r.gh.PRs()); n != 1 {
		t.Fatalf("%d pull requests: a lost cache branch opened one\n%s", n, log)
	}
	if !strings.Contains(log, "recreated from main's coverage report") {
		t.Errorf("the cycle does not say where the state came from:\n%s", log)
	}
	if got := r.show(botrepo.CacheBranch, lease.Path("1-of-1")); got != "" {
		t.Errorf("a lease on the recreated branch of a halted cycle:\n%s", got)
	}
	st, err := state.Decode(os.DirFS(exportBranch(t, r, botrepo.CacheBranch)))
	must(t, err)
	for _, e := range onMain.Sources {
		if got := st.Source(e.ID); got.Status != e.Status || string(got.SHA256) != e.SHA256 {
			t.Errorf("%s recovered as %s %.12s, want main's %s %.12s", e.ID, got.Status, got.SHA256, e.Status, e.SHA256)
		}
	}
	_, log = r.cycle() // the next day: fetched again, the same bytes
	if n := len(r.gh.PRs()); n != 1 {
		t.Errorf("%d pull requests after the next day's quiet fetch, want 1\n%s", n, log)
	}
	assertHeld(t, r)
}

// TestLostCacheBranchRecoveredFromTheRunnersCopy: the runner's git store
// (the Actions cache) still holds the vanished branch's tip: the branch is
// recreated with its state, ledgers and pending blobs, and the open pull
// request is left as it is.
func TestLostCacheBranchRecoveredFromTheRunnersCopy(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.gitCache = t.TempDir()
	r.cycle()
	oldState := r.show(botrepo.CacheBranch, "state.json")
	oldPending := r.show(botrepo.CacheBranch, botrepo.PendingIndex)
	body := r.gh.PRs()[0].Body
	r.git.Git(t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.CacheBranch)
	r.now = r.now.Add(-23 * time.Hour)
	_, log := r.cycle()
	if !strings.Contains(log, "which this runner's copy holds") {
		t.Errorf("the cycle does not say it recovered from the runner's copy:\n%s", log)
	}
	if got := r.show(botrepo.CacheBranch, "state.json"); got != oldState || oldState == "" {
		t.Errorf("recovered state.json:\n%s\nwant the vanished tip's:\n%s", got, oldState)
	}
	if got := r.show(botrepo.CacheBranch, botrepo.PendingIndex); got != oldPending || oldPending == "" {
		t.Errorf("recovered %s:\n%s\nwant\n%s", botrepo.PendingIndex, got, oldPending)
	}
	if prs := r.gh.PRs(); len(prs) != 1 || prs[0].Body != body {
		t.Errorf("the open pull request changed after the state was recovered")
	}
	assertHeld(t, r)
}

// exportBranch writes a branch's files to a directory, with git itself.
func exportBranch(t *testing.T, r *repo, branch string) string {
	t.Helper()
	dir := t.TempDir()
	r.archive(branch, "", dir)
	return dir
}

// TestVanishedCacheBranchHaltsUntilTomorrow: fetch-cache is deleted after
// it existed. Today's counts are gone with it, so no request goes out
// before the next UTC day, and the run says why.
func TestVanishedCacheBranchHaltsUntilTomorrow(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a")
	r.now = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	o, _ := r.options("1/1")
	o.Run = r.runner(&o)
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	r.git.Git(t, repoName, "update-ref", "-d", "refs/heads/"+botrepo.CacheBranch)
	for i, at := range []time.Time{
		time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC), // the bot branch remembers the cache branch
		time.Date(2026, 11, 2, 23, 0, 0, 0, time.UTC), // a later run the same day honours the halt
		time.Date(2026, 11, 3, 0, 5, 0, 0, time.UTC),  // the next UTC day fetches again
	} {
		r.now = at
		o, log := r.options("1/1")
		ran := false
		run := r.runner(&o)
		o.Run = func(ctx context.Context, lim pipeline.Limits) error { ran = ran || !lim.DryRun; return run(ctx, lim) }
		summary := filepath.Join(t.TempDir(), "summary.md")
		o.StepSummary = summary
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, log)
		}
		sum, _ := os.ReadFile(summary)
		if want := i < 2; ran == want {
			t.Errorf("run %d at %s: fetch run called %v, want %v\n%s", i, at, ran, !want, log)
		}
		if i < 2 && !strings.Contains(string(sum), "has vanished") {
			t.Errorf("run %d: the step summary does not say why nothing was sent:\n%s", i, sum)
		}
	}
	if !strings.Contains(r.show(botrepo.CacheBranch, haltFile), "2026-11-03T00:00:00Z") {
		t.Errorf("the recreated branch does not carry the halt until the next UTC day:\n%s", r.show(botrepo.CacheBranch, haltFile))
	}
}

// TestFailedFinalPushIsKeptForTheRerun: the final push fails every time.
// The run says exactly what to do; its re-run (same workflow run, next
// attempt, the state directory given back) takes the stale lease over
// and delivers the lines, and the dead attempt's reservation ends up
// counting only what it sent.
func TestFailedFinalPushIsKeptForTheRerun(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.coded = map[string]bool{"t-a": true} // its bytes as sent are kept too
	o, log := r.options("1/1")
	o.Run, o.RunID, o.PushAttempts, o.NoPublish = r.runner(&o), "555-1", 3, true
	var pushesBefore int
	run := o.Run
	o.Run = func(ctx context.Context, lim pipeline.Limits) error {
		err := run(ctx, lim)
		pushesBefore = r.git.Pushes(repoName)
		r.git.FailPushes(3)
		return err
	}
	_, err := Run(context.Background(), o)
	if !errors.Is(err, ErrCannotRun) {
		t.Fatalf("a final push that always fails: %v, want ErrCannotRun\n%s", err, log)
	}
	for _, want := range []string{"failed 3 times", "Re-run", "taxkernelbot-state-555", o.State} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if got := r.git.Pushes(repoName) - pushesBefore; got != 3 {
		t.Errorf("%d push attempts, want 3", got)
	}
	if got := o.Clock.(*clock.Fake).Sleeps(); len(got) != 2 || got[0] != 2*time.Second || got[1] != 4*time.Second {
		t.Errorf("waits between push attempts %v, want [2s 4s] on the injected clock", got)
	}
	held, _ := lease.Decode([]byte(r.show(botrepo.CacheBranch, lease.Path("1-of-1"))))
	if held.Released || held.RunID != "555-1" {
		t.Fatalf("the lease on the branch: %+v; want 555-1's, unreleased", held)
	}
	if _, err := os.Stat(filepath.Join(o.State, unpushedFile)); err != nil {
		t.Fatalf("no marker for the re-run: %v", err)
	}

	// The re-run: attempt 2 of the same workflow run, two hours later (the
	// sources are due again), on a new runner that got the state directory
	// back from the artifact.
	r.now = r.now.Add(2 * time.Hour)
	o2, log2 := r.options("1/1")
	must(t, os.RemoveAll(o2.State))
	must(t, os.CopyFS(o2.State, os.DirFS(o.State)))
	o2.Run, o2.RunID = r.runner(&o2), "555-2"
	for _, id := range r.ids { // the re-run is served newer bytes
		r.docs[id] = id + " rates, edition 2"
	}
	if _, err := Run(context.Background(), o2); err != nil {
		t.Fatalf("re-run: %v\n%s", err, log2)
	}
	// What attempt 1 fetched is not lost with its runner: the re-run's
	// pull request holds both editions.
	assertHeld(t, r)
	ix, err := store.ParseIndex([]byte(r.show(botrepo.BotBranch, botrepo.IndexJSON)))
	must(t, err)
	for _, id := range r.ids {
		if n := len(ix.Entries(id)); n != 2 {
			t.Errorf("%s: %d entries in the pull request's index, want attempt 1's bytes and the re-run's\n%s", id, n, log2)
		}
	}
	if !strings.Contains(log2.String(), "restoring the ledgers and state of run 555-1") {
		t.Errorf("the re-run does not say it restores the lost lines:\n%s", log2)
	}
	l, _ := lease.Decode([]byte(r.show(botrepo.CacheBranch, lease.Path("1-of-1"))))
	// The earlier attempt's lines landed with the re-run's lease, which
	// counted them, not attempt 1's reservation: nothing of it is left as
	// an unreleased record, and the re-run had its own budget.
	if !l.Released || l.RunID != "555-2" || slices.ContainsFunc(l.Superseded, func(r lease.Lease) bool { return !r.Released }) {
		t.Fatalf("lease after the re-run: %+v; want 555-2 released and no unreleased record of 555-1", l)
	}
	for host, n := range l.Reservations {
		if n == 0 {
			t.Errorf("the re-run reserved nothing for %s: attempt 1's whole reservation was counted as spent\n%s", host, log2)
		}
	}
	for _, src := range o2.Set.Sources {
		led := r.show(botrepo.CacheBranch, "ledgers/"+ledger.Path(ledger.Day(r.now), src.Host))
		if strings.Count(led, `"run":"555-1"`) != 2 || strings.Count(led, `"run":"555-2"`) != 2 {
			t.Errorf("ledger of %s lacks one attempt's lines:\n%s", src.Host, led)
		}
	}
	if _, err := os.Stat(filepath.Join(o2.State, unpushedFile)); !errors.Is(err, os.ErrNotExist) {
		t.Error("the marker outlived the push that delivered its lines")
	}
}

// TestLedgersArePushedDuringALongRun: a run that spans more than
// PushEvery pushes its ledgers while it goes on (on the injected clock:
// the fake run advances it one second per request).
func TestLedgersArePushedDuringALongRun(t *testing.T) {
	t.Parallel()
	ids := make([]string, 8)
	for i := range ids {
		ids[i] = fmt.Sprintf("t-%d", i)
	}
	r := newRepo(t, ids...)
	o, log := r.options("1/1")
	o.Run, o.PushEvery, o.NoPublish = r.runner(&o), 3*time.Second, true
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	hist := r.git.Git(t, repoName, "log", "--format=%s", botrepo.CacheBranch)
	if n := strings.Count(hist, "ledgers: shard 1-of-1"); n != 2 {
		t.Errorf("%d ledger pushes during a run of 8 s with PushEvery 3 s, want 2:\n%s", n, hist)
	}
	if !strings.HasPrefix(hist, "release: shard 1-of-1") {
		t.Errorf("the last commit is not the release:\n%s", hist)
	}
}

// TestWrongGitTokenNamesTheSecret: the message names what to fix, not
// the library's fields.
func TestWrongGitTokenNamesTheSecret(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a")
	o, _ := r.options("1/1")
	o.Run = r.runner(&o)
	o.Remote.Password = "expired"
	_, err := Run(context.Background(), o)
	if !errors.Is(err, ErrCannotRun) || !strings.Contains(err.Error(), "TAXKERNELBOT_TOKEN") || strings.Contains(err.Error(), "Remote.") {
		t.Fatalf("error %v: want exit-3 kind naming TAXKERNELBOT_TOKEN", err)
	}
}

// TestGitHubServerErrorIsRetried: one 502 from the API does not fail a
// cycle (the wait is on the injected clock).
func TestGitHubServerErrorIsRetried(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a")
	r.gh.FailNext("GET", "/repos/acme/tax/pulls", 502, nil, "Server Error")
	out, _ := r.cycle()
	if out.PR == "" || len(r.gh.PRs()) != 1 {
		t.Fatalf("after one 502: outcome %+v, %d pull requests", out, len(r.gh.PRs()))
	}
}

// interleave runs another publisher between this one's push and its
// edit of the pull request: the window in which shards race.
type interleave struct {
	publish.PullRequests
	between func()
	done    bool
}

func (i *interleave) EditPR(ctx context.Context, number int, title, body string) error {
	if !i.done {
		i.done = true
		i.between()
	}
	return i.PullRequests.EditPR(ctx, number, title, body)
}

// TestOnePictureWhateverTheShardsOrder: shard A pushes the bot branch;
// before A edits the pull request, shard B pushes a newer picture and
// edits it. A's edit lands last, yet the body ends up describing the
// branch's tip, B's newer picture.
func TestOnePictureWhateverTheShardsOrder(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b", "t-c", "t-d", "t-e", "t-f")
	shardOf := map[string]string{}
	o0, _ := r.options("1/1")
	for _, src := range o0.Set.Sources {
		shardOf[src.ID] = "2/2"
		if s, _ := lease.ParseShard("1/2"); s.Owns(src.Host) {
			shardOf[src.ID] = "1/2"
		}
	}
	var inA, inB string // a source of each shard
	for id, s := range shardOf {
		if s == "1/2" && inB == "" {
			inB = id
		}
		if s == "2/2" && inA == "" {
			inA = id
		}
	}
	if inA == "" || inB == "" {
		t.Fatalf("the six hosts do not spread over both shards: %v", shardOf)
	}
	run := r.shardCycle
	run("1/2", nil)
	run("2/2", nil)                  // the pull request is open, with both shards' sources
	r.now = r.now.Add(2 * time.Hour) // the sources are due again
	r.docs[inA] = inA + " rates, edition 2"
	r.docs[inB] = inB + " rates, edition 2"
	run("2/2", func(gh publish.PullRequests) publish.PullRequests {
		return &interleave{PullRequests: gh, between: func() { run("1/2", nil) }}
	})
	body := r.gh.PRs()[0].Body
	for _, id := range []string{inA, inB} {
		sum := sha256.Sum256([]byte(r.docs[id]))
		if !strings.Contains(body, hex.EncodeToString(sum[:])[:12]) {
			t.Errorf("the pull request's body does not show %s's new bytes %.12x, changed on its shard (the tip's picture):\n%s", id, sum, body)
		}
	}
}

// beforePublish runs another cycle between this one's push to the cache
// branch and its first look at the pull request.
type beforePublish struct {
	publish.PullRequests
	between func()
	done    bool
}

func (b *beforePublish) LatestPR(ctx context.Context, head string) (*github.PRState, error) {
	if !b.done {
		b.done = true
		b.between()
	}
	return b.PullRequests.LatestPR(ctx, head)
}

// TestShardsPublishAUnion: shard 1 pushes its results to the cache branch;
// before it publishes, shard 2 runs a whole cycle and publishes first, with
// shard 1's results in the state it reads. Whichever shard publishes last,
// the bot branch holds every blob its index and report name, and every
// shard's entries.
func TestShardsPublishAUnion(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"2 publishes first", "1 publishes first"} {
		t.Run(order, func(t *testing.T) {
			r := newRepo(t, "t-a", "t-b", "t-c", "t-d", "t-e", "t-f")
			r.coded = map[string]bool{"t-a": true, "t-d": true, "t-f": true}
			run := func(shard string, wrap func(publish.PullRequests) publish.PullRequests) {
				r.shardCycle(shard, wrap)
				assertHeld(t, r)
			}
			first, second := "1/2", "2/2"
			if order == "1 publishes first" {
				first, second = second, first
			}
			run(second, func(gh publish.PullRequests) publish.PullRequests {
				return &beforePublish{PullRequests: gh, between: func() { run(first, nil) }}
			})
			ix, err := store.ParseIndex([]byte(r.show(botrepo.BotBranch, botrepo.IndexJSON)))
			must(t, err)
			for _, id := range r.ids {
				if len(ix.Entries(id)) != 1 {
					t.Errorf("the bot branch's index has %d entries for %s, want 1: %s", len(ix.Entries(id)), id, r.show(botrepo.BotBranch, botrepo.IndexJSON))
				}
			}
			// Merged, main verifies: every blob is there.
			r.squashMerge(1)
			assertHeld(t, r)
			if got := r.show(botrepo.CacheBranch, botrepo.PendingIndex); got != "" {
				o, _ := r.options("1/1")
				o.Run = r.runner(&o)
				r.now = r.now.Add(2 * time.Hour)
				if _, err := Run(context.Background(), o); err != nil {
					t.Fatal(err)
				}
				if got := r.show(botrepo.CacheBranch, botrepo.PendingIndex); got != "" {
					t.Errorf("after the merge, the cache branch still keeps entries main holds:\n%s", got)
				}
			}
		})
	}
}

// TestFailingForDaysReachesAPerson: a source gone for three days gets one
// issue; quiet days write nothing; it is closed when the source recovers.
func TestFailingForDaysReachesAPerson(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.docs["t-b"] = "" // a 404 from the first day
	for d := 1; d <= 5; d++ {
		before := len(r.gh.Writes())
		r.cycle()
		issues := r.gh.Issues()
		switch {
		case d < 4 && len(issues) != 0:
			t.Fatalf("day %d: an issue after %d day(s) of failure, want none before 3 days: %+v", d, d-1, issues)
		case d == 4 && (len(issues) != 1 || issues[0].State != "open" || !strings.Contains(issues[0].Body, "t-b")):
			t.Fatalf("day 4: issues %+v, want one open for t-b", issues)
		case d == 5:
			if w := r.gh.Writes()[before:]; len(w) != 0 {
				t.Errorf("day 5 (nothing changed): GitHub writes %v", w)
			}
		}
	}
	r.docs["t-b"] = "t-b rates, edition 1"
	r.cycle()
	if is := r.gh.Issues(); len(is) != 1 || is[0].State != "closed" || len(is[0].Comments) == 0 {
		t.Fatalf("after recovery: %+v, want the issue closed with a comment", is)
	}
}

// TestUnindexedBlobIsNeverProposed: bytes a killed run stored but never
// indexed stay out of the bot commit; only what the hash index names goes.
func TestUnindexedBlobIsNeverProposed(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a")
	o, log := r.options("1/1")
	run := r.runner(&o)
	var stray store.Sum
	o.Run = func(ctx context.Context, lim pipeline.Limits) error {
		s, err := store.Open(o.Snapshots)
		must(t, err)
		stray, _, err = s.Put(ctx, strings.NewReader("half a document from a killed run"))
		must(t, err)
		return run(ctx, lim)
	}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if r.show(botrepo.BotBranch, "snapshots/"+stray.Path()) != "" {
		t.Errorf("the bot branch carries blob %.12s, which no index names", stray)
	}
	if ix := r.show(botrepo.BotBranch, "snapshots/index.json"); !strings.Contains(ix, "t-a") {
		t.Errorf("the bot branch lacks the indexed source:\n%s", ix)
	}
}

// TestHandEditOfTheReportOnMainRebuildsTheBranch: someone merges a hand
// edit of a file the bot writes while its pull request is open. Nothing
// new was fetched, yet the branch is rebuilt on main, so the pull request
// does not conflict; a change to other files of main leaves it alone.
func TestHandEditOfTheReportOnMainRebuildsTheBranch(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a")
	r.cycle()
	tip := r.tip(botrepo.BotBranch)
	r.git.Commit(t, repoName, "main", "docs", map[string][]byte{"README.md": []byte("tax, v2\n")})
	r.cycle()
	if r.tip(botrepo.BotBranch) != tip {
		t.Fatal("a change to README on main moved the bot branch, though nothing new was fetched")
	}
	r.git.Commit(t, repoName, "main", "fix the report by hand", map[string][]byte{"reports/coverage.md": []byte("# Coverage, by hand\n")})
	if r.mergeable() {
		t.Fatal("the test's premise: the hand edit conflicts with the open pull request")
	}
	before := len(r.gh.Writes())
	r.cycle()
	if r.git.Git(t, repoName, "rev-parse", botrepo.BotBranch+"^") != r.tip("main") || !r.mergeable() {
		t.Errorf("after a hand edit of the report on main, the branch was not rebuilt on main (mergeable %v)", r.mergeable())
	}
	if w := r.gh.Writes()[before:]; len(w) > 1 {
		t.Errorf("GitHub writes %v, want at most the edit of the body", w)
	}
}

// assertHeld checks, with git itself, that every hash the bot branch's
// hash index and coverage report name is a blob on that branch or on main.
func assertHeld(t *testing.T, r *repo) {
	t.Helper()
	onMain := r.files(botrepo.BaseBranch)
	for _, branch := range []string{botrepo.BotBranch, botrepo.BaseBranch} {
		if r.tip(branch) == "" {
			continue
		}
		on := r.files(branch)
		var stores blobs.Stores
		if r.stores != nil {
			stores = r.stores(clock.NewFake(r.now))
		}
		for _, sum := range citedBy(t, r, branch) {
			p := "snapshots/" + store.BlobPath(sum)
			if !on[p] && !onMain[p] && !heldByAll(t, stores, store.Sum(sum)) {
				t.Errorf("%s cites %.12s, which neither %s nor %s holds", branch, sum, branch, botrepo.BaseBranch)
			}
		}
	}
}

// heldByAll says whether every one of the stores (none: false) holds sum
// and serves its bytes intact.
func heldByAll(t *testing.T, stores blobs.Stores, sum store.Sum) bool {
	t.Helper()
	for _, b := range stores {
		rc, err := b.Load(context.Background(), sum)
		if err == nil {
			_, err = io.Copy(io.Discard, rc) // re-hashed to the end
			rc.Close()
		}
		if err != nil {
			t.Logf("%s: %.12s: %v", b.Name(), sum, err)
			return false
		}
	}
	return len(stores) > 0
}

// citedBy lists the hashes a branch's index and coverage report name.
func citedBy(t *testing.T, r *repo, branch string) []string {
	t.Helper()
	var out []string
	if data := r.show(branch, botrepo.IndexJSON); data != "" {
		ix, err := store.ParseIndex([]byte(data))
		must(t, err)
		for _, id := range ix.IDs() {
			for _, e := range ix.Entries(id) {
				for _, sum := range e.Blobs() {
					out = append(out, string(sum))
				}
			}
		}
	}
	if data := r.show(branch, botrepo.CoverageJSON); data != "" {
		rep, err := report.Parse([]byte(data))
		must(t, err)
		for _, e := range rep.Sources {
			if e.SHA256 != "" {
				out = append(out, e.SHA256)
			}
		}
	}
	return out
}

// TestServerWithoutFilteredFetches: against a git server that does not
// offer filtered fetches, the cycle reads main whole, publishes as usual,
// and says so once in its summary.
func TestServerWithoutFilteredFetches(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.git.Git(t, repoName, "config", "uploadpack.allowFilter", "false")
	_, log := r.cycle()
	if n := len(r.gh.PRs()); n != 1 {
		t.Fatalf("%d pull requests, want #1 opened\n%s", n, log)
	}
	if got := strings.Count(log, "downloaded whole"); got != 1 {
		t.Errorf("the fallback is said %d times, want once:\n%s", got, log)
	}
	assertHeld(t, r)
}

// TestLedgerPushesAcrossShardsStayUnderGitHubsRate: GitHub asks for at
// most 6 pushes a minute to a repository. Twelve shards of one matrix run
// at once; over their hour-long runs their ledger pushes, all shards
// together, never pass 6 in any minute, and each shard still pushes during
// its run.
func TestLedgerPushesAcrossShardsStayUnderGitHubsRate(t *testing.T) {
	t.Parallel()
	const shards = 12
	perMinute := map[int64]int{}
	for k := 1; k <= shards; k++ {
		c := &Cycle{o: Options{Limits: pipeline.Limits{RunID: "900-1"}, PushEvery: 5 * time.Minute, Shard: lease.Shard{K: k, N: shards}}}
		at, pushes := time.Duration(0), 0
		for at += c.pushGap(); at < time.Hour; at += c.pushGap() {
			perMinute[int64(at/time.Minute)]++
			pushes++
		}
		if pushes == 0 {
			t.Errorf("shard %d/%d pushes no ledger during an hour", k, shards)
		}
	}
	for minute, n := range perMinute {
		if n > 6 {
			t.Errorf("minute %d: %d ledger pushes from %d shards, over GitHub's 6 a minute", minute, n, shards)
		}
	}
}

// TestABigDayIsPushedInParts: when a run's documents are more than one
// push should carry, they reach the cache branch in several commits, none
// over the bound, the last with the state that names them.
func TestABigDayIsPushedInParts(t *testing.T) {
	// Not parallel, as the others are: it lowers the package's MaxPushBytes.
	defer func(n int) { MaxPushBytes = n }(MaxPushBytes)
	MaxPushBytes = 100 // bytes: each document of the harness is about 20
	ids := make([]string, 12)
	for i := range ids {
		ids[i] = fmt.Sprintf("t-%02d", i)
	}
	r := newRepo(t, ids...)
	o, log := r.options("1/1")
	o.Run, o.NoPublish = r.runner(&o), true
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	parts := strings.Count(r.git.Git(t, repoName, "log", "--format=%s", botrepo.CacheBranch), "pending documents, part")
	if parts < 2 {
		t.Errorf("%d part commits for 12 documents over a bound of 100 bytes, want several", parts)
	}
	for _, c := range strings.Split(r.git.Git(t, repoName, "log", "--format=%H", botrepo.CacheBranch), "\n") {
		out, err := r.git.Run(repoName, "diff", "--numstat", c+"^", c, "--", "pending/sha256")
		if err != nil {
			continue // the root commit
		}
		added := 0
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 3 {
				data := r.show(c, f[2])
				added += len(data)
			}
		}
		if added > MaxPushBytes+40 { // one document may pass the bound it starts under
			t.Errorf("commit %.12s adds %d bytes of documents, over the bound", c, added)
		}
	}
	assertHeld(t, r)
	if r.show(botrepo.CacheBranch, botrepo.PendingIndex) == "" {
		t.Error("no pending index after the parts")
	}
}
