// Package session is one fetch run in a working directory, from start to
// saved: it loads the state, the store and the index, locks the state
// directory against another run on the machine and opens the ledger
// (while the manifests load, when it is given them to load), checks the
// options against the manifests, recovers what an interrupted run left
// (blobs no index names, temp files), signs requests when a key is set,
// runs the pipeline with a progress view, and saves the ledger, the index
// and the state, also after an interruption, so that nothing fetched is
// lost: lock, recover, fetch, save. What the run leaves for people to read
// (the reports, pages and feeds) is its caller's Outputs hook
// (outputs.Start), which hears of each source's and host's turn and ends
// beside the save. A dry run plans instead (pipeline.Simulate) and prints
// the plan, sending and writing nothing.
//
// The command line (cli: flags, exit codes) and the scheduled cycle
// (cycle: cache branch, lease, pull request) both call Run; session
// imports neither. What a run prints goes to the writers of Output, its
// time comes from the injected clock and its environment from Getenv.
// Errors carry their kind (ErrUsage, ErrCannot, ErrInterrupted,
// ErrFailures) for errors.Is, so that each caller maps them in one place.
package session
