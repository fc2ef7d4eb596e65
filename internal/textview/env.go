package textview

import (
	"os"
	"strings"
)

// parserEnv is the environment of every child that reads fetched bytes
// (pdftotext, the extraction child): what a parser needs to find its
// programs, fonts, locale and temp space, and the Go runtime's own knobs,
// and nothing else. A hostile document that took over such a child finds
// no token or key to take with it: the bot's credentials are never among
// these names, whatever the parent's environment holds.
func parserEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if parserVar(name) && !(raceEnabled && name == "GORACE") {
			env = append(env, kv)
		}
	}
	if raceEnabled {
		env = append(env, "GORACE="+quickRaceExit(os.Getenv("GORACE")))
	}
	return env
}

// quickRaceExit is the race detector's options for an extraction child
// built with -race (in the tests, whose binary is its own child): the race
// runtime sleeps a second at every exit (atexit_sleep_ms, 1000 by default)
// for other goroutines to report, which a child that has written its
// status does not need, and which cost every extraction of the tests a
// second. An atexit_sleep_ms already set is kept.
func quickRaceExit(opts string) string {
	if strings.Contains(opts, "atexit_sleep_ms=") {
		return opts
	}
	return strings.TrimSpace(opts + " atexit_sleep_ms=0")
}

// parserVar reports whether the variable name may reach a parser.
func parserVar(name string) bool {
	upper := strings.ToUpper(name)
	for _, secret := range []string{"TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH"} {
		if strings.Contains(upper, secret) {
			return false
		}
	}
	switch upper {
	case "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TMP", "TEMP",
		// Windows needs these to start a program.
		"SYSTEMROOT", "WINDIR", "PATHEXT",
		// The Go runtime of the extraction child, and the race detector
		// and coverage of its tests.
		"GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG", "GOTRACEBACK", "GORACE", "GOCOVERDIR":
		return true
	}
	return strings.HasPrefix(upper, "LC_") || strings.HasPrefix(upper, "FONTCONFIG_")
}
