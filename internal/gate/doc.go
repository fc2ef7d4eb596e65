// Package gate is the per-host door every request passes through: one
// request at a time, spacing between dispatches, the daily cap counted on
// dispatch, backoff after failures (honouring Retry-After), the pause after
// repeated 403s and off-peak windows. It knows nothing of
// HTTP; the caller reports each outcome back through the Permit.
package gate
