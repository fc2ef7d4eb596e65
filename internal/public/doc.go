// Package public renders what site operators and contributors read about
// the bot: reports/POLICY.md (the rules, from the values the gate
// enforces), reports/hosts.md (each host's settings and how much it was
// asked for), reports/index.html (the page the User-Agent's URL leads
// to), reports/.well-known/security.txt (RFC 9116: who runs the bot and
// how to reach them), the Atom feeds of changes under reports/feeds/, and
// the bot's Signature Agent Card (who we are, how fast each host can
// expect us, which URLs, which keys), which the command line writes
// beside the key directory; Write writes the pages. It gathers nothing
// itself: its callers (outputs, for a run's end, the report command and
// the publisher; the policy and keys commands) hand in the manifests, the
// state, the index, the ledger counts and the key directory.
package public
