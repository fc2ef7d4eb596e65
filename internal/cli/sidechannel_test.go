package cli

import (
	"io"
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
	if fs := newFlags("cite", "[flags] ID", IO{Out: io.Discard, Err: io.Discard}); parse(fs, []string{"an-id"}) != nil {
		t.Fatal("a command that takes an argument refused one")
	}
}
