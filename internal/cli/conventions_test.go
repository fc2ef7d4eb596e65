package cli

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
)

// Help is an answer, not an error: on stdout, exit 0, however it is asked
// for.
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, stdout, stderr := runMain(t, nil, args...)
		if code != ExitOK || !strings.Contains(stdout, "Commands:") || stderr != "" {
			t.Errorf("%v: exit %d, want 0 with the help on stdout\nstdout %q\nstderr %q", args, code, stdout, stderr)
		}
	}
	for name := range commands {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			code, stdout, stderr := runMain(t, nil, args...)
			if code != ExitOK || !strings.Contains(stdout, "Usage: taxkernelbot "+name) || stderr != "" {
				t.Errorf("%v: exit %d, want 0 with the command's help on stdout\nstdout %q\nstderr %q", args, code, stdout, stderr)
			}
		}
	}
	// help of a command that does not exist is a mistake.
	if code, _, stderr := runMain(t, nil, "help", "runn"); code != ExitUsage || !strings.Contains(stderr, `did you mean "run"?`) {
		t.Errorf("help runn: exit %d, stderr %q", code, stderr)
	}
}

// A mistyped command gets the closest one and a line of usage, not the
// whole help.
func TestMistypedCommandSuggests(t *testing.T) {
	for typed, want := range map[string]string{"runn": "run", "valdate": "validate", "ctie": "cite", "robot": "robots"} {
		code, stdout, stderr := runMain(t, nil, typed)
		if code != ExitUsage || !strings.Contains(stderr, `unknown command "`+typed+`"; did you mean "`+want+`"?`) || stdout != "" {
			t.Errorf("%s: exit %d, want 2 suggesting %s\nstdout %q\nstderr %q", typed, code, want, stdout, stderr)
		}
		if lines := strings.Count(stderr, "\n"); lines > 2 || strings.Contains(stderr, "Commands:") {
			t.Errorf("%s: %d lines of usage, want a line or two:\n%s", typed, lines, stderr)
		}
	}
	// Nothing close: no suggestion, still short.
	code, _, stderr := runMain(t, nil, "frobnicate")
	if code != ExitUsage || strings.Contains(stderr, "did you mean") || strings.Count(stderr, "\n") > 2 || !strings.Contains(stderr, "taxkernelbot --help") {
		t.Errorf("frobnicate: exit %d\n%s", code, stderr)
	}
}

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		code, stdout, stderr := runMain(t, nil, args...)
		if code != ExitOK || !strings.HasPrefix(stdout, "taxkernelbot ") || !strings.Contains(stdout, "go1.") || stderr != "" {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", args, code, stdout, stderr)
		}
	}
}

// Flags are shown as they are written in docs/commands.md: --flag, and a
// one-letter flag as -o.
func TestHelpShowsFlagsWithTwoDashes(t *testing.T) {
	_, stdout, _ := runMain(t, nil, "run", "--help")
	for _, want := range []string{"\n  --dry-run\n", "\n  --manifests string\n", "\n  --only ID\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --help lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "\n  -dry-run") {
		t.Errorf("run --help shows -dry-run:\n%s", stdout)
	}
	if _, stdout, _ := runMain(t, nil, "warc", "--help"); !strings.Contains(stdout, "\n  -o FILE\n") {
		t.Errorf("warc --help does not show -o FILE:\n%s", stdout)
	}
}

// A wrong flag is said once, with the flag as it was typed, and a line
// saying where the help is, not the whole help.
func TestFlagErrorIsShort(t *testing.T) {
	code, stdout, stderr := runMain(t, nil, "run", "--dry-rnu")
	if code != ExitUsage || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	want := "taxkernelbot run: flag provided but not defined: --dry-rnu; did you mean --dry-run?\n"
	if !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") > 2 || !strings.Contains(stderr, "taxkernelbot run --help") {
		t.Errorf("stderr %q, want it to start %q and be two lines at most", stderr, want)
	}
}

// Every error is "taxkernelbot CMD: message", the command named once.
func TestErrorPrefixOnce(t *testing.T) {
	for _, args := range [][]string{
		{"ledger", "www.gov.uk", "--since", "yesterday", "--state", t.TempDir()},
		{"dataset", "-o", t.TempDir(), "--month", "2020-01", "--manifests", "../../manifests", "--snapshots", t.TempDir(), "--reports", t.TempDir()},
		{"keys", "rotate"},
	} {
		code, _, stderr := runMain(t, nil, args...)
		prefix := "taxkernelbot " + args[0] + ": "
		// The error is the last line; a manifest's warnings may come first.
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if last := lines[len(lines)-1]; code == ExitOK || !strings.HasPrefix(last, prefix) || strings.Contains(stderr, prefix+args[0]+":") || strings.Contains(stderr, prefix+args[0]+" ") {
			t.Errorf("%v: exit %d, stderr %q: want one prefix %q", args, code, stderr, prefix)
		}
	}
}

// An error of several lines is shown as several lines, each a plain line,
// never with a literal \n.
func TestMultiLineErrorHasNoLiteralNewline(t *testing.T) {
	code, _, stderr := runMain(t, nil, "ci", "--dry-run", "--manifests", "../../manifests")
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	if strings.Contains(stderr, `\n`) {
		t.Errorf("a literal \\n in the message:\n%s", stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "taxkernelbot ci: GITHUB_REPOSITORY is not set") || !strings.HasPrefix(lines[1], "  GITHUB_TOKEN is not set") {
		t.Errorf("want the two problems on two lines, the second indented:\n%s", stderr)
	}
}

// "Nothing to answer from yet" is one exit code in every command that
// reads what a run brings: 3, with the message on stderr saying which run
// brings it, and nothing on stdout.
func TestNothingToAnswerFromYetIsExit3(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	noRepo := t.TempDir() // a git repository without a cache branch to fall back on
	if _, err := git.PlainInit(noRepo, false); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "x.warc.gz")
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"ledger", "www.gov.uk", "--state", w.State, "--repo", noRepo}, "no request to www.gov.uk"},
		{[]string{"ledger", "www.gov.uk", "--json", "--state", w.State, "--repo", noRepo}, "no request to www.gov.uk"},
		{[]string{"warc", "-o", archive, "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}, "nothing fetched yet"},
		{[]string{"cite", "t-rates", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}, "nothing to cite yet"},
		{[]string{"robots", "http://127.0.0.1:1/rates", "--manifests", w.Manifests, "--state", w.State}, "no robots.txt copy yet"},
	} {
		code, stdout, stderr := runMain(t, nil, tc.args...)
		if code != ExitCannot || stdout != "" || !strings.Contains(stderr, tc.says) || !strings.Contains(stderr, "taxkernelbot run") {
			t.Errorf("%v: exit %d, want %d with %q and the run that brings it on stderr\nstdout %q\nstderr %q", tc.args, code, ExitCannot, tc.says, stdout, stderr)
		}
	}
	if _, err := os.Stat(archive); !os.IsNotExist(err) {
		t.Errorf("warc wrote %s with nothing in it (%v)", archive, err)
	}
	// The help says so.
	_, stdout, _ := runMain(t, nil, "--help")
	if !strings.Contains(stdout, "nothing to answer from yet") || !strings.Contains(stdout, "ledger, warc or dataset") {
		t.Errorf("the help's exit codes do not say what 3 means:\n%s", stdout)
	}
}

// ttyBuffer is a terminal as far as the commands can tell.
type ttyBuffer struct{ bytes.Buffer }

func (*ttyBuffer) IsTerminal() bool { return true }

// The live view moves the cursor only on a terminal that can draw it:
// not under TERM=dumb, nor with NO_COLOR set.
func TestNoCursorEscapesUnlessTheTerminalDrawsThem(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/": text("x")})
	w := newWorkspace(t, testPolicy, "", src{"test-a", a.url("/a"), ""}, src{"test-b", a.url("/b"), ""})
	for _, tc := range []struct {
		env     map[string]string
		escapes bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, true},
		{map[string]string{"TERM": "dumb"}, false},
		{map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, false},
	} {
		out := &ttyBuffer{}
		code := Main(ctx, []string{"run", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State},
			IO{Out: out, Err: out, Getenv: func(k string) string { return tc.env[k] }})
		if code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", tc.env, code, out)
		}
		if got := strings.Contains(out.String(), "\033["); got != tc.escapes {
			t.Errorf("%v: cursor escapes %v, want %v:\n%q", tc.env, got, tc.escapes, out)
		}
	}
}

func TestDemoDrawsNoCursorEscapesOnADumbTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs real millisecond delays")
	}
	out := &ttyBuffer{}
	env := map[string]string{"TERM": "dumb"}
	if err := runDemo(ctx, demoOptions{Dir: t.TempDir(), IO: IO{Out: out, Err: out, Getenv: func(k string) string { return env[k] }}}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	if n := strings.Count(out.String(), "\033["); n > 0 {
		t.Errorf("%d cursor escapes on a TERM=dumb terminal", n)
	}
}

// Run from any folder of a checkout, a command finds the manifests, the
// store, the reports and the state where the checkout keeps them, as git
// finds its root; a path given on the command line is taken as written.
func TestCommandsFindTheRootFromASubfolder(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"test-rates", "http://127.0.0.1:1/rates", ""})
	root := filepath.Dir(w.Manifests)
	deep := filepath.Join(root, "reports", "old")
	must(t, os.MkdirAll(deep, 0o755))
	for _, dir := range []string{w.Manifests, deep} {
		t.Chdir(dir)
		code, stdout, stderr := runMain(t, nil, "validate")
		if code != ExitOK || !strings.Contains(stdout, "1 manifest(s), 1 source(s), 1 host(s): valid") {
			t.Errorf("validate in %s: exit %d\nstdout %q\nstderr %q", dir, code, stdout, stderr)
		}
	}
	// What is written lands in the root's folders, not beside the
	// working directory.
	t.Chdir(w.Manifests)
	if code, stdout, stderr := runMain(t, nil, "policy"); code != ExitOK {
		t.Fatalf("policy: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "reports", "POLICY.md")); err != nil {
		t.Errorf("policy from manifests/ did not write the root's reports/POLICY.md: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Manifests, "reports")); !os.IsNotExist(err) {
		t.Errorf("policy from manifests/ wrote manifests/reports (%v)", err)
	}
	// A path given is the user's: relative to where they are.
	if code, _, _ := runMain(t, nil, "validate", "--manifests", "manifests"); code != ExitUsage {
		t.Errorf("validate --manifests manifests inside manifests/: exit %d, want 2 (no manifests/manifests)", code)
	}
	// A folder with .git is a root too, even without manifests.
	bare := t.TempDir()
	must(t, os.Mkdir(filepath.Join(bare, ".git"), 0o755))
	must(t, os.Mkdir(filepath.Join(bare, "sub"), 0o755))
	if got, ok := findRoot(filepath.Join(bare, "sub")); !ok || got != bare {
		t.Errorf("findRoot below a .git folder = %q, %v; want %q", got, ok, bare)
	}
}

// TestArgumentsAfterDoubleDashAreNotFlags: after "--" everything is an
// argument. cite and refs parsed their extra arguments again as flags, so
// `cite ID -- --json` printed JSON instead of refusing a second argument.
func TestArgumentsAfterDoubleDashAreNotFlags(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"cite", "uk-income-tax-rates", "--", "--json"},
		{"refs", dir, "--", "--json"},
	} {
		code, stdout, stderr := runMain(t, nil, args...)
		if code != ExitUsage || !strings.Contains(stderr, "takes exactly one") || strings.Contains(stdout, "{") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d refusing the second argument", args, code, stdout, stderr, ExitUsage)
		}
	}
}
