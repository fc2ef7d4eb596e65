// Package clock is how TaxKernelBot waits and measures time: every sleep,
// timer and elapsed time outside this package goes through a Clock
// (internal/repotest holds the code to it).
//
// A run's politeness delays and its stamps are read on the run's Clock,
// so that tests replace real seconds with a Fake that advances instantly,
// records what was asked and fires timers when the test moves its time.
// Waits that space the machine's own work (the feed writer's pauses, the
// ledger's settling) and measurements of it (a response's duration) are
// read on Real, the machine's clock, unless a test passes its own.
package clock
