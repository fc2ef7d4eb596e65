package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/escape/workflow"
)

// Exit codes. Each has one meaning.
const (
	ExitOK       = 0 // done
	ExitFailures = 1 // failures found and recorded (a run's failing sources, a stopped run, verify's problems)
	ExitUsage    = 2 // bad command line (an unknown source id too) or invalid manifests
	ExitCannot   = 3 // could not run or nothing to answer from yet: lease held, store unwritable, nothing held to cite, no robots.txt copy kept
)

// exitError carries the exit code an error maps to.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

func usageError(format string, args ...any) error {
	return withCode(ExitUsage, fmt.Errorf(format, args...))
}

func cannotRun(format string, args ...any) error {
	return withCode(ExitCannot, fmt.Errorf(format, args...))
}

// nothingYet says that what was asked for is not held yet (nothing to
// cite, no robots.txt copy kept): exit 3, not 1, which only a completed
// run with failures returns. The message says which run brings it.
func nothingYet(format string, args ...any) error {
	return withCode(ExitCannot, fmt.Errorf(format, args...))
}

// IO is where a command writes, and the environment it reads.
type IO struct {
	Out, Err io.Writer
	Getenv   func(string) string // nil: an empty environment
}

// getenv reads key from the environment, or "" when there is none.
func (io IO) getenv(key string) string {
	if io.Getenv == nil {
		return ""
	}
	return io.Getenv(key)
}

type command struct {
	summary string
	run     func(ctx context.Context, io IO, args []string) error
}

// commands is filled in init because each command's flag usage reads its
// summary back from this table.
var commands map[string]command

func init() {
	commands = map[string]command{
		"run":      {"fetch the due sources, then write snapshots, state and reports", cmdRun},
		"validate": {"check the manifests (no network)", cmdValidate},
		"report":   {"rewrite reports/ from the manifests, the state and the index (no network)", cmdReport},
		"cite":     {"print the citation of a source's held bytes (exit 3 while none are held yet)", cmdCite},
		"verify":   {"re-hash every blob and check the index against the store", cmdVerify},
		"robots":   {"explain the robots.txt decision for a URL from the kept copy (exit 3 while none is kept)", cmdRobots},
		"demo":     {"run the whole pipeline against embedded local servers (no network)", cmdDemo},
		"ci":       {"in GitHub Actions: pull the cache branch, lease, run, push, and open the pull request", cmdCI},
		"publish":  {"push the state to the cache branch and open or update the bot's pull request", cmdPublish},
		"dataset":  {"build the release of a month's record: WARC, index, coverage, texts, SHA256SUMS (dataset -o DIR)", cmdDataset},
		"warc":     {"export the fetched versions as a WARC file for web archives (warc -o FILE.warc.gz)", cmdWarc},
		"keys":     {"generate a request-signing key, or write the public key directory (keys generate | keys directory)", cmdKeys},
		"ledger":   {"print every request made to a host, from the ledgers in the state or on the cache branch", cmdLedger},
		"version":  {"print the version, the commit and the Go version this binary was built from", cmdVersion},
		"policy":   {"render reports/POLICY.md, the rules the code enforces, from the manifests", cmdPolicy},
	}
}

// Procs is the GOMAXPROCS the command runs with: at least 8, whatever the
// core count. A run spends its time waiting and in fsyncs, and a goroutine
// in an fsync keeps its processor until the runtime takes it back (up to
// milliseconds when the process has been idle). With as many processors as
// a small runner has cores (2), the wake-ups of the other hosts then queue
// behind the fsyncs, and every politeness gap runs over its delay:
// BenchmarkPolitenessOverhead measures 1.5–2 ms over per gap at 2, 1.2–1.5
// ms at 8. Idle processors cost nothing.
func Procs() int { return max(runtime.GOMAXPROCS(0), 8) }

// Main runs the command named by args[0] and returns the process exit code.
// Out and Err are guarded (see guard) for the command's whole run.
func Main(ctx context.Context, args []string, io IO) int {
	io, flush := guard(io)
	defer flush()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(io.Err)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(io.Err, "taxkernelbot: unknown command %s\n\n", workflow.Line(strconv.Quote(args[0])))
		usage(io.Err)
		return ExitUsage
	}
	err := cmd.run(ctx, io, args[1:])
	code := exitCode(err)
	if err != nil && code != ExitOK {
		fmt.Fprintf(io.Err, "taxkernelbot %s: %s\n", args[0], workflow.Line(err.Error()))
	}
	return code
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// guard makes every line a command prints to a log (a pipe, a file:
// anything but a terminal) a plain line, through workflow.Writer: in
// GitHub Actions no message, whatever server or manifest text it quotes,
// gives the runner a workflow command or a control character. A terminal
// is left as it is, for the live view's own escape sequences; what is
// shown there escapes its fields with terminal.Text. The function
// returned flushes a last line without a newline.
func guard(o IO) (IO, func()) {
	var ws []*workflow.Writer
	wrap := func(w io.Writer) io.Writer {
		if w == nil || isTerminal(w) {
			return w
		}
		if g, ok := w.(*workflow.Writer); ok {
			return g
		}
		g := workflow.NewWriter(w)
		ws = append(ws, g)
		return g
	}
	o.Out, o.Err = wrap(o.Out), wrap(o.Err)
	return o, func() {
		for _, g := range ws {
			g.Flush()
		}
	}
}

// exitCode maps what a command returned to the process's exit code; Main,
// demo, ci and the tests all map through it. An error carries its code
// however deeply it is wrapped; one without a code could not run (3), and
// so could a write refused because it went through a link, whatever code
// wraps it.
func exitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if _, ok := errors.AsType[*atomicfile.LinkError](err); ok {
		return ExitCannot
	}
	if ee, ok := errors.AsType[*exitError](err); ok {
		return ee.code
	}
	return ExitCannot
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "TaxKernelBot fetches the tax documents listed in manifests/, politely, and keeps the exact bytes.")
	fmt.Fprintln(w, "\nUsage: taxkernelbot <command> [flags]   (taxkernelbot <command> --help for its flags)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nExit codes: 0 ok, 1 run completed with failures recorded, 2 usage (an unknown source id too) or invalid manifests,")
	fmt.Fprintln(w, "3 could not run, or nothing held yet to answer from (cite before a source's first fetch, robots before its host's).")
}

// flagSet is a command's flags, and whether it takes arguments besides.
type flagSet struct {
	*flag.FlagSet
	noArgs bool // the command takes only flags: parse refuses any argument
}

// newFlags returns a flag set whose errors are ours to report (exit 2).
// The command takes only flags, and parse refuses any argument, unless
// withArgs says otherwise: a stray word is a mistake to name, not to
// ignore.
func newFlags(name, args string, io IO) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Err)
	fs.Usage = func() {
		fmt.Fprintf(io.Err, "Usage: taxkernelbot %s %s\n\n%s.\n\nFlags:\n", name, args, strings.ToUpper(commands[name].summary[:1])+commands[name].summary[1:])
		fs.PrintDefaults()
		if ex := examples[name]; len(ex) > 0 {
			fmt.Fprintf(io.Err, "\nExamples:\n  %s\n", strings.Join(ex, "\n  "))
		}
	}
	return &flagSet{FlagSet: fs, noArgs: true}
}

// withArgs lets the command take arguments besides its flags (its usage
// names them).
func (fs *flagSet) withArgs() *flagSet {
	fs.noArgs = false
	return fs
}

// parse parses flags, mapping flag errors to exit 2 and --help to success.
// Flags may come after arguments (`cite ID --state DIR`): parsing goes on
// past each argument until a "--", after which everything is an argument.
// fs.Args() then holds the arguments, in order.
func parse(fs *flagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return withCode(ExitUsage, explainFlagError(fs.FlagSet, err))
		}
		rest := fs.Args()
		// flag stops at the first argument, or just after a "--".
		consumed := len(args) - len(rest)
		if len(rest) == 0 || (consumed > 0 && args[consumed-1] == "--") {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	if fs.noArgs && len(positional) > 0 {
		return usageError("unexpected argument(s) %q: %s takes only flags; see taxkernelbot %s --help", strings.Join(positional, " "), fs.Name(), fs.Name())
	}
	// The reports, the snapshots and the state are written beneath
	// without links (a reports/ committed as a link must not send the
	// reports out of the repository).
	for _, name := range []string{"reports", "snapshots", "state"} {
		if f := fs.Lookup(name); f != nil {
			atomicfile.Confine(f.Value.String())
		}
	}
	// Parse again with nothing but "--" and the arguments, so that
	// fs.Args() returns them all.
	return fs.Parse(append([]string{"--"}, positional...))
}

// badValue is the flag package's message for a value that does not parse.
var badValue = regexp.MustCompile(`^invalid value "([^"]*)" for flag -([^:]+): `)

// explainFlagError says what to write instead when a duration flag got a
// bare number, the one mistake the flag package's "parse error" leaves
// unexplained.
func explainFlagError(fs *flag.FlagSet, err error) error {
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	f := fs.Lookup(m[2])
	if f == nil {
		return err
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return err
	}
	if _, isDuration := g.Get().(time.Duration); !isDuration {
		return err
	}
	if _, numErr := strconv.ParseFloat(m[1], 64); numErr == nil {
		return fmt.Errorf("--%s %s has no unit: write %sm, %ss or %sh", m[2], m[1], m[1], m[1], m[1])
	}
	return fmt.Errorf("--%s %q is not a duration: write a number and a unit, e.g. 50m, 90s or 2h", m[2], m[1])
}
