// Package cycle is one scheduled cycle of TaxKernelBot in a repository, as
// GitHub Actions runs it every hour: pull the shared memory from the cache
// branch (fetch-cache), take the shard's lease, run the fetch within the
// reservation, push the ledgers and the state back, release the lease, and
// hand over to the publisher (internal/publish), which brings the outcome
// to reviewers on the bot's pull request branch (taxkernelbot/update).
//
// The cache branch is only ever added to (compare-and-swap pushes, never
// forced). Nothing fetched is lost: the bytes a state names travel with
// it. Every push of the state to the cache branch carries, in the same
// commit, what main does not hold yet under pending/ (pending.go), so
// shards publish a union in any order and a runner that dies after its
// push, or a deleted bot branch, loses nothing. A final push that fails
// keeps the run's ledgers and state for a re-run, which takes the lease
// over and counts what the attempt it takes over sent, not what it
// reserved. A vanished cache branch is recovered from the newest place
// that still holds it, and no request goes out before the next UTC day
// (halt.go).
//
// The fetch run is session.Run, which the `run` command calls too; the cycle
// gives it the lease's limits (the shard's hosts, the reservation, the
// time to stop by). Everything the cycle touches is injected: the clock,
// the fetch run (Runner, nil for session.Run), the git remote and the
// GitHub API (publish.PullRequests), so that each step is tested on its
// own against a real git server and a fake API. The tests that drive
// whole cycles, publishing included, are here.
package cycle
