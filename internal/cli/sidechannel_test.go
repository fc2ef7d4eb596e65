package cli

import (
	"io"
	"strings"
	"testing"
)

// TestFlagsWithoutArgumentsRefuseThemEveryTime: a command that takes only
// flags refuses an argument however often its flags are parsed (the
// knowledge is the flag set's own, not a global's consumed by the first
// parse).
func TestFlagsWithoutArgumentsRefuseThemEveryTime(t *testing.T) {
	fs := newFlags("report", "[flags]", IO{Out: io.Discard, Err: io.Discard})
	for i := range 2 {
		if err := parse(fs, []string{"stray"}); exitCode(err) != ExitUsage {
			t.Fatalf("parse %d: %v, want a usage error for the argument", i+1, err)
		}
	}
	if fs := newFlags("cite", "[flags] ID", IO{Out: io.Discard, Err: io.Discard}).withArgs(); parse(fs, []string{"an-id"}) != nil {
		t.Fatal("a command that takes an argument refused one")
	}
}

// TestEveryFlagOnlyCommandRefusesAnArgument: whatever its usage line
// says, a command that takes no argument names a stray one (a usage
// line with more than "[flags]" once let verify and dataset ignore it).
func TestEveryFlagOnlyCommandRefusesAnArgument(t *testing.T) {
	for _, cmd := range []string{"ci", "dataset", "demo", "policy", "publish", "report", "run", "validate", "verify", "version", "warc"} {
		code, _, stderr := runMain(t, nil, cmd, "stray")
		if code != ExitUsage || !strings.Contains(stderr, `unexpected argument(s) "stray"`) {
			t.Errorf("%s stray: exit %d, %q; want 2 and the argument named", cmd, code, stderr)
		}
	}
}
