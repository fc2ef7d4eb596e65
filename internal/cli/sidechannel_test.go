package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
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

// wallClock is the real clock under another type, as a caller may wrap it.
type wallClock struct{ clock.Real }

// TestProgressTicksOnAnyClockGivenATick: the summary of a waiting run
// comes from the tick the run asks for, whatever type its clock is.
func TestProgressTicksOnAnyClockGivenATick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(&buf, wallClock{}, false, time.Second)
		stop := p.start(t.Context())
		now := time.Now()
		p.hostEvent(pipeline.HostEvent{Host: "www.gov.uk", Kind: pipeline.HostWaiting, At: now, Until: now.Add(70 * time.Second), Reason: "spacing", Left: 10})
		time.Sleep(35 * time.Second)
		synctest.Wait()
		stop()
		if !strings.Contains(buf.String(), "summary:") {
			t.Fatalf("no summary after 35 s of waiting:\n%s", buf.String())
		}
	})
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
