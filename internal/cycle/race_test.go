//go:build race

package cycle

// raceEnabled: the race detector slows the git server's Go side and the
// bot alike, several times over.
const raceEnabled = true
