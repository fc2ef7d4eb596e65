// Package pipeline runs one fetch: it picks the due sources, groups them by
// host, and for each host — concurrently with the others, strictly one
// request at a time within it — consults robots.txt, passes every request
// (robots, document, redirect hop) through the host's gate, streams bodies
// into the store, judges whether each answer is the document (package
// answer: a block page, a maintenance page or a redirect home is kept as
// evidence, never cited), and records every outcome in the ledger, the
// state and the hash index. Before the first request it checks that the
// runner is online at all, so that a runner's outage is blamed on no site. Before a run, Recover puts back into the index the blobs a
// killed run stored but never indexed, where the ledger or the state proves
// their source, and removes the rest. It composes the other packages; none
// of them knows it.
package pipeline
