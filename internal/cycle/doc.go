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
// Everything the cycle touches is injected: the clock, the fetch run
// (Runner), the git remote and the GitHub API (PullRequests), so that each
// step is tested on its own against a real git server and a fake API.
package cycle
