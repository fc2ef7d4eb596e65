// Package public renders what site operators and contributors read about
// the bot: reports/POLICY.md (the rules, from the values the gate
// enforces), reports/hosts.md (each host's settings and how much it was
// asked for), reports/index.html (the page the User-Agent's URL leads
// to) and reports/.well-known/security.txt (RFC 9116: who runs the bot
// and how to reach them), and the bot's Signature Agent Card (who we are,
// how fast each host can expect us, which URLs, which keys), which the
// command line writes beside the key directory. It only renders: the
// command line gathers the manifests, the state, the ledger counts and
// the key directory and hands them in.
package public
