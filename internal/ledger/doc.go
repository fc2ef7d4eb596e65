// Package ledger keeps the per-day, per-host record of every request:
// <dir>/<YYYY-MM-DD>/<host>.jsonl (UTC day; "host:port" written "host_port"),
// one JSON object per line. A "dispatch" line is made durable before the
// request is sent, a "result" line after it. Lines are appended with one
// write each and fsynced; a torn last line left by a crash is repaired when
// the file is next opened, so counting dispatches never breaks.
package ledger
