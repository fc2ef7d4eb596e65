// Package lease makes "one request at a time per host" and the
// per-host daily cap hold across runs that overlap, run on different
// runners, or die at any point. Its job is the leases, the reservations
// they hold and their accounting (Spent, Remaining); what a ledger file
// holds and how two copies merge is package ledger's (Count, Merge), and
// how two states merge is package state's (Merge). It is pure: functions
// on bytes and structs, given the time, that the caller runs inside a
// compare-and-swap edit of the cache branch (re-applied on the newest tip
// when a push is rejected). It never touches the network, the disk or a
// clock.
//
// # Files in the cache branch
//
//   - leases/<shard>.json, one per shard ("1-of-1", "2-of-4"): the current
//     Lease of that shard and, in its "superseded" list, the records of
//     earlier leases of the shard that were never released (their runs are
//     presumed dead). Records are what keeps a dead run's reservation
//     counting as spent for its day; they are dropped once their day is more
//     than a day old. A released lease needs no record: its ledger lines,
//     pushed in the same commit as the release, are what it spent.
//   - ledgers/<YYYY-MM-DD>/<host file>.jsonl (package ledger): merged with
//     ledger.Merge, which only ever appends to the branch's copy, and
//     counted with ledger.Count, whose Usage is what Spent subtracts from.
//   - state.json and robots/ (package state): merged with state.Merge,
//     which keeps the most conservative value of every politeness field.
//
// # The accounting
//
// A run reserves, before its first request, up to today's remaining cap of
// each host it wants. For a host and a UTC day, Spent counts the dispatch
// lines in the branch's ledger plus, for every other run with a lease (or a
// record) of that day, what its lease allows beyond the lines it has
// already pushed: max(0, Σ reservations − pushed) while unreleased, live or
// expired; max(0, Σ dispatched − pushed) once released (normally 0). A run
// that dies between reserving and releasing thus keeps its whole
// reservation spent, and a live run's pushed lines are never counted twice.
// Lines are attributed to runs by their "run" field, so a run id must be
// unique per process: on GitHub Actions use "<GITHUB_RUN_ID>-<GITHUB_RUN_ATTEMPT>"
// (shards of one matrix job may share it: they touch disjoint hosts). Acquire
// refuses a run id that an earlier holder of the shard used.
//
// # One request at a time
//
// A live lease (not released, not expired) of another run makes Acquire on
// the same shard fail with ErrHeld. Runs sharded differently (a "1/1" run
// next to a "2/4" matrix) hold different lease files, so Remaining also
// gives 0 for a host that a live lease of any other shard reserves: a host
// is only ever reserved by one live lease. A holder must stop dispatching
// at StopBy(margin), margin at least the request timeout plus clock skew,
// unless a Renew has been pushed; an expired lease is never renewed.
//
// # Shards
//
// Shard K/N owns the hosts whose FNV-1a 64-bit hash (hash/fnv New64a over
// the host string, "host[:port]" in canonical lower case) is K−1 modulo N.
// That mapping is part of the cache branch's format and must never change.
package lease
