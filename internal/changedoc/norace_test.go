//go:build !race

package changedoc

const raceEnabled = false
