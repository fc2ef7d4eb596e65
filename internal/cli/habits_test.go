package cli

import (
	"net/http"
	"strings"
	"testing"
)

func TestFlagsMayFollowArguments(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/rates": text("rates")})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	w.run(ctx)
	code, stdout, stderr := runMain(t, nil, "cite", "t-rates", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State)
	if code != ExitOK || !strings.Contains(stdout, a.url("/rates")) {
		t.Fatalf("cite ID --state DIR: exit %d\n%s%s", code, stdout, stderr)
	}
	// After "--" everything is an argument, even what looks like a flag.
	code, _, stderr = runMain(t, nil, "cite", "--manifests", w.Manifests, "--", "--state")
	if code != ExitUsage || !strings.Contains(stderr, `no source "--state"`) && !strings.Contains(stderr, "--state") {
		t.Errorf("cite -- --state: exit %d, %s", code, stderr)
	}
}

func TestUnknownArgumentsAreErrors(t *testing.T) {
	for _, args := range [][]string{
		{"verify", "anything"},
		{"report", "now"},
		{"demo", "fast"},
		{"run", "uk"},
		{"validate", "manifests/uk.yaml"},
	} {
		code, _, stderr := runMain(t, nil, args...)
		if code != ExitUsage || !strings.Contains(stderr, `unexpected argument(s) "`+args[1]+`"`) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the argument named", args, code, stderr)
		}
	}
}

func TestOnlySuggestsCloseMatches(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"test-rates", "http://127.0.0.1:1/rates", ""})
	code, _, stderr := runMain(t, nil, "run", "--manifests", w.Manifests, "--state", w.State, "--snapshots", w.Snapshots, "--reports", w.Reports, "--only", "TEST")
	if code != ExitUsage || !strings.Contains(stderr, `did you mean "test"?`) {
		t.Errorf("--only TEST: exit %d, %s", code, stderr)
	}
	code, _, stderr = runMain(t, nil, "run", "--manifests", w.Manifests, "--state", w.State, "--snapshots", w.Snapshots, "--reports", w.Reports, "--only", "test-rate")
	if code != ExitUsage || !strings.Contains(stderr, `did you mean "test-rates"?`) {
		t.Errorf("--only test-rate: exit %d, %s", code, stderr)
	}
}

func TestDurationWithoutUnitSaysWhatToAdd(t *testing.T) {
	code, _, stderr := runMain(t, nil, "run", "--max-duration", "50")
	if code != ExitUsage || !strings.Contains(stderr, "50 has no unit: write 50m, 50s or 50h") {
		t.Errorf("--max-duration 50: exit %d, %s", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := runMain(t, nil, "version")
	if code != ExitOK || !strings.Contains(stdout, "taxkernelbot ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("version: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestHelpShowsExamples(t *testing.T) {
	for name := range commands {
		code, stdout, _ := runMain(t, nil, name, "--help")
		if code != ExitOK || !strings.Contains(stdout, "Examples:\n  taxkernelbot "+name) {
			t.Errorf("%s --help shows no example:\n%s", name, stdout)
		}
	}
}
