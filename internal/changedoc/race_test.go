//go:build race

package changedoc

// raceEnabled: the race detector counts allocations of its own, so
// allocation bounds are checked without it.
const raceEnabled = true
