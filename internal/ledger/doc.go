// Package ledger keeps the per-day, per-host record of every request:
// <dir>/<YYYY-MM-DD>/<host>.jsonl (UTC day; "host:port" written "host_port"),
// one JSON object per line. A "dispatch" line is made durable before the
// request is sent, a "result" line after it. Lines are appended with one
// write each and fsynced; a torn last line left by a crash is repaired when
// the file is next opened, so counting dispatches never breaks.
//
// The package owns ledger files wherever they are kept, in a local
// directory or on the cache branch (where they sit under ledgers/ in the
// same layout): writing them (Append), reading them (Read, ReadDay,
// Requests), counting a host's dispatches on a day (Count over a file's
// bytes, CountFile, CountDaysFS; every cap and lease figure is this count)
// and merging a local copy into the branch's (Merge, append-only). It
// imports nothing of the lease or cycle packages that use it.
package ledger
