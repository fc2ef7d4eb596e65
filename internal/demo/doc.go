// Package demo runs scripted authority servers on loopback — the kinds of
// behaviour real tax offices show (validators, robots rules, a robots.txt
// that fails, rate limiting, a missing page, a redirect, refusals) — and
// writes manifests naming them, so the whole pipeline can be tried with no
// network. The servers record what they saw, as an operator's log would.
package demo
