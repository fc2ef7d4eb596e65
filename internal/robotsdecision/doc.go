// Package robotsdecision is the one place where a robots.txt fetch, or the
// copy of one kept in the state, becomes a decision: the rules to apply and
// what the outcome means (parsed, missing, unavailable, unreachable), with
// the rules that a copy is only used while younger than robots_ttl and that
// a parsed copy whose body went missing is no copy. A run, `taxkernelbot
// robots` and `validate` all decide through it, so they cannot disagree.
package robotsdecision
