package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/session"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// One mapping from errors to exit codes, whatever wraps the error.
func TestExitCodeMapping(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"--help", flag.ErrHelp, ExitOK},
		{"--help wrapped", fmt.Errorf("cite: %w", flag.ErrHelp), ExitOK},
		{"failures recorded", sessionError(session.ErrFailures), ExitFailures},
		{"failures recorded, wrapped", fmt.Errorf("run 2: %w", sessionError(fmt.Errorf("%w; the report is r.md", session.ErrFailures))), ExitFailures},
		{"run interrupted", sessionError(fmt.Errorf("%w: ctx", session.ErrInterrupted)), ExitFailures},
		{"run option wrong", sessionError(fmt.Errorf("%w: --only", session.ErrUsage)), ExitUsage},
		{"run could not start", sessionError(fmt.Errorf("%w: lock", session.ErrCannot)), ExitCannot},
		{"run stopped by a fatal error", sessionError(fmt.Errorf("%w: ledger", pipeline.ErrFatal)), ExitCannot},
		{"a cycle's own failure", sessionError(errors.New("push refused")), ExitCannot},
		{"a code of its own", sessionError(usageError("bad")), ExitUsage},
		{"usage", usageError("no source %q", "x"), ExitUsage},
		{"usage, wrapped", fmt.Errorf("demo: %w", usageError("bad")), ExitUsage},
		{"cannot run", cannotRun("lease held"), ExitCannot},
		{"cannot run, wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", cannotRun("store unwritable"))), ExitCannot},
		{"nothing held yet", withCode(ExitCannot, errors.New("no bytes")), ExitCannot},
		{"an error without a code", errors.New("boom"), ExitCannot},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// Main maps through exitCode: an unknown command is a usage problem.
func TestMainExitCodes(t *testing.T) {
	if code, _, _ := runMain(t, nil, "no-such-command"); code != ExitUsage {
		t.Errorf("unknown command: exit %d, want %d", code, ExitUsage)
	}
	if code, _, _ := runMain(t, nil, "cite", "--help"); code != ExitOK {
		t.Errorf("cite --help: exit %d, want 0", code)
	}
	if code, _, _ := runMain(t, nil, "cite", "--no-such-flag", "x"); code != ExitUsage {
		t.Errorf("unknown flag: exit %d, want %d", code, ExitUsage)
	}
}

// Exit 1 means only "the run completed with failures recorded": cite with
// nothing held and robots with no kept copy say so and exit 3.
func TestNothingHeldYetIsNotExit1(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	code, stdout, stderr := runMain(t, nil, "cite", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "t-rates")
	if code != ExitCannot || !strings.Contains(stderr, "nothing to cite yet") || !strings.Contains(stderr, "taxkernelbot run --only t-rates") || stdout != "" {
		t.Errorf("cite with nothing held: exit %d, want %d with what to do\nstdout %q\nstderr %q", code, ExitCannot, stdout, stderr)
	}
	code, _, stderr = runMain(t, nil, "cite", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "no-such-id")
	if code != ExitUsage || !strings.Contains(stderr, `no source "no-such-id"`) {
		t.Errorf("cite of an unknown id: exit %d, want %d\n%s", code, ExitUsage, stderr)
	}
	code, _, stderr = runMain(t, nil, "robots", "--manifests", w.Manifests, "--state", w.State, "https://unknown.example/x")
	if code != ExitCannot || !strings.Contains(stderr, "no robots.txt copy yet") {
		t.Errorf("robots with no kept copy: exit %d, want %d\n%s", code, ExitCannot, stderr)
	}
	code, _, stderr = runMain(t, nil, "robots", "--state", w.State, "ftp://x")
	if code != ExitUsage {
		t.Errorf("robots of a non-http URL: exit %d, want %d\n%s", code, ExitUsage, stderr)
	}
}

// A command's error keeps what caused it for errors.Is, and still maps to
// its exit code: a state.json with a 1-character hash stops report with
// exit 3, an error that is state.ErrCorrupt, naming the file and field.
func TestCommandErrorsWrapTheirCause(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	must(t, os.MkdirAll(w.State, 0o755))
	must(t, os.WriteFile(filepath.Join(w.State, "state.json"), []byte(`{"sources":{"t-rates":{"status":"fresh","sha256":"a"}}}`), 0o644))
	err := runReport(ctx, reportOptions{paths: w.paths, IO: IO{Out: &w.out, Err: &w.out}})
	if !errors.Is(err, state.ErrCorrupt) || exitCode(err) != ExitCannot {
		t.Fatalf("report on a bad state.json: %v (exit %d); want state.ErrCorrupt, exit 3", err, exitCode(err))
	}
	for _, want := range []string{filepath.Join(w.State, "state.json"), `sources["t-rates"].sha256`, "remove it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
