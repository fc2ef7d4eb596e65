//go:build race

package textview

const raceEnabled = true
