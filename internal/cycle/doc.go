// Package cycle is one scheduled cycle of TaxKernelBot in a repository, as
// GitHub Actions runs it every hour: pull the shared memory from the cache
// branch (fetch-cache), take the shard's lease, run the fetch within the
// reservation, push the ledgers and the state back, release the lease, and
// bring the outcome to reviewers on the bot's pull request branch
// (taxkernelbot/update).
//
// The cache branch is only ever added to (compare-and-swap pushes, never
// forced). The bot branch is the bot's: each publishing cycle rebuilds it
// as main's tip plus one bot commit and moves it with an expected-old-value
// push, so a merge, a squash or a rebase-merge of the pull request never
// conflicts with the next one. A commit that someone else pushed onto it is
// never dropped: the bot says so once on the pull request and leaves the
// branch alone until a maintainer adds the label taxkernelbot:rebase, or
// the pull request is merged or closed. A pull request closed without
// merging is a reviewer's "no": what it proposed is not proposed again.
// A cycle in which nothing meaningful changed pushes nothing to the bot
// branch and writes nothing to GitHub.
//
// Nothing fetched is lost and nothing cited is missing. The bytes a state
// names travel with it: every push of the state to the cache branch
// carries, in the same commit, what main does not hold yet under pending/
// (pending.go), so shards publish a union in any order and a runner that
// dies after its push, or a deleted bot branch, loses nothing. Before each
// push of the bot branch, checkRecord refuses a commit that cites a hash
// neither it nor main holds or that loses what main records. A vanished
// cache branch is recovered from the newest place that still holds it
// (halt.go); a pull request closed because its branch was deleted is not a
// reviewer's "no" (GitHub's events say head_ref_deleted); a re-run counts
// what the attempt it takes over sent, not what it reserved.
//
// The fetch run is session.Run, which the `run` command calls too; the cycle
// gives it the lease's limits (the shard's hosts, the reservation, the
// time to stop by). Everything the cycle touches is injected: the clock,
// the fetch run (Runner, nil for session.Run), the git remote and the
// GitHub API (PullRequests), so that each step is tested on its own
// against a real git server and a fake API.
package cycle
