// Command taxkernelbot fetches the tax documents listed in manifests/,
// politely, and keeps the exact bytes it was served. See README.md.
//
// What calls what: main only wires the process (signals, standard streams,
// GOMAXPROCS) to cli, which parses each subcommand's flags and maps errors
// to exit codes in one place. A fetch run is a session (internal/session:
// lock, recover, fetch, save), called by cli's run and by cycle, the
// scheduled job in a repository (pull the state from the cache branch, take
// a lease, run the session, push), which then calls publish (rebuild the
// bot branch, open or edit its pull request); botrepo is the repository's
// layout the two share. The session drives pipeline, which plans what is
// due and runs one turn per host through gate (the pacing), robots and
// robotsdecision, fetch (one request) and textview (derived text), and
// records into store (the bytes under their SHA-256), ledger (each day's
// dispatches per host) and state.
//
// What people read is rendered by outputs alone, from one input (the
// manifests, the coverage report, the state and its ledger counts, the
// index, and the derived texts of the local store or of a branch's tree):
// at a run's end, through a hook its caller hands the session; by cli's
// report; and by publish for the bot commit. outputs renders through report
// (coverage.json and coverage.md) and public (the pages and the feeds);
// review renders the pull request and failure issue texts, which github
// sends; gitstore is the git remote; lease shares a host's daily cap
// between shards. refs matches what a rules repository's parameters cite
// to the archive, for cli's refs.
//
// At the bottom, policy, clock, atomicfile, view (a source's view, as its
// manifest writes it), answer, usage, sign, escape, robots, manifest,
// ledger, store and state import only one another, and none of them
// imports textview (internal/repotest holds manifest, ledger, store and
// state to that).
//
// The binary is also the extraction child: textview reads PDFs, workbooks
// and big texts in a child process bounded in memory and CPU time, which
// is this same program started again with TAXKERNELBOT_TEXTVIEW_CHILD set.
// textview's init() sees that variable before main runs and does the
// extraction instead, so any program that links textview doubles as its
// child; packages that need only a manifest's views link view instead.
package main
