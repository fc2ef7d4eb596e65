// Package state is the memory a run leaves for the next: per-source status
// and validators, per-host backoff, pause and spacing, and the robots.txt
// copies with their fetch times. It lives in <state>/state.json and
// <state>/robots/, is written atomically, and holds nothing that cannot be
// rebuilt from the ledgers plus the store.
//
// Merge joins two States (the cache branch's and a runner's) keeping the
// most conservative value of every politeness field, so that runs that
// overlap never forget each other's backoffs and pauses.
//
// A State is safe for concurrent use: values go in and out by copy.
package state
