// Package outputs renders and writes what the bot leaves for people to
// read under the reports directory: the coverage report (coverage.json,
// coverage.md), the public pages (POLICY.md, hosts.md, index.html,
// security.txt) and the change feeds with their change documents. It
// renders them from one Input — the manifests, the coverage report, the
// state and its ledger counts (or a committed report that holds them),
// the hash index and a Texts that reads derived texts — whoever asks: a
// fetch run's end (Start, whose writer also writes each source's feed
// while the run waits on its hosts), the report command (Render, Compare)
// and the publisher of the bot's pull request, which reads texts from
// main's and the bot branch's trees. So one rendering answers for what a
// run, a clone and a pull request show.
package outputs
