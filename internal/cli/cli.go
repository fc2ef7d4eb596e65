package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/escape/workflow"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// Exit codes. Each has one meaning.
const (
	ExitOK       = 0 // done
	ExitFailures = 1 // failures found and recorded (a run's failing sources, a stopped run, verify's problems, report --check's differences)
	ExitUsage    = 2 // bad command line (an unknown source id too) or invalid manifests
	ExitCannot   = 3 // no answer: could not run (lease held, store unwritable), or nothing to answer from yet (cite, robots, ledger, warc, dataset before a run brings it)
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
// cite, no robots.txt copy kept, no request in the ledgers, nothing to
// archive, no document in the period): exit 3, not 1, which only a
// completed run with failures returns, nor 0. The message says which run
// brings it.
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
		"report":   {"rewrite reports/ from the manifests, the state and the index (no network); --check: fail when they differ", cmdReport},
		"cite":     {"print the citation of a source's held bytes (exit 3 while none are held yet)", cmdCite},
		"verify":   {"re-hash every blob and check the index against the store (--stores: every cited hash held twice)", cmdVerify},
		"blob":     {"bring a hash's bytes from whichever store holds them, verified (blob SHA256 -o FILE)", cmdBlob},
		"migrate":  {"move the blobs main holds under snapshots/ into the stores, a bounded number a run (--max N)", cmdMigrate},
		"robots":   {"explain the robots.txt decision for a URL from the kept copy (exit 3 while none is kept)", cmdRobots},
		"demo":     {"run the whole pipeline against embedded local servers (no network)", cmdDemo},
		"ci":       {"in GitHub Actions: pull the cache branch, lease, run, push, and open the pull request", cmdCI},
		"publish":  {"push the state to the cache branch and open or update the bot's pull request", cmdPublish},
		"dataset":  {"build the release of a month's record: WARC, WACZ package, index, coverage, texts, SHA256SUMS (dataset -o DIR)", cmdDataset},
		"warc":     {"export the fetched versions as a WARC file for web archives (warc -o FILE.warc.gz)", cmdWarc},
		"keys":     {"generate a request-signing key, or write the public key directory or the agent card (keys generate | keys directory | keys card)", cmdKeys},
		"ledger":   {"print every request made to a host, from the ledgers in the state or on the cache branch", cmdLedger},
		"version":  {"print the version, the commit and the Go version this binary was built from", cmdVersion},
		"policy":   {"render reports/POLICY.md, the rules the code enforces, from the manifests", cmdPolicy},
		"refs":     {"match the references of a rules repository's parameter files to the archive (refs DIR; --suggest drafts manifest entries)", cmdRefs},
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
//
// Help is an answer: `--help`, `-h`, `help` and `help CMD` print on Out and
// exit 0. No command at all is a usage error (the help on Err, exit 2), and
// a mistyped one gets the closest command and a line of usage.
func Main(ctx context.Context, args []string, io IO) int {
	io, flush := guard(io)
	defer flush()
	if len(args) == 0 {
		usage(io.Err)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		if args[0] == "help" && len(args) > 1 && args[1] != "help" {
			// help CMD is CMD --help.
			args = []string{args[1], "--help"}
			break
		}
		usage(io.Out)
		return ExitOK
	case "--version", "-v":
		args = []string{"version"}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		unknownCommand(io.Err, args[0])
		return ExitUsage
	}
	err := cmd.run(ctx, io, args[1:])
	code := exitCode(err)
	if err != nil && code != ExitOK {
		printError(io.Err, args[0], err)
	}
	return code
}

// unknownCommand says that name is no command, suggests the closest one,
// and where the list is: two lines, not the whole help.
func unknownCommand(w io.Writer, name string) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	hint := ""
	if c := closest(name, names); c != "" {
		hint = fmt.Sprintf("; did you mean %q?", c)
	}
	fmt.Fprintf(w, "taxkernelbot: unknown command %s%s\n", workflow.Line(strconv.Quote(name)), hint)
	fmt.Fprintln(w, "Usage: taxkernelbot <command> [flags]; taxkernelbot --help lists the commands")
}

// printError prints a command's error as "taxkernelbot CMD: message": the
// command named once (a message that starts with it already loses that
// start), each further line of the message on a line of its own,
// indented, never as a literal "\n".
func printError(w io.Writer, name string, err error) {
	msg := strings.TrimSpace(err.Error())
	if rest, ok := strings.CutPrefix(msg, name+": "); ok && rest != "" {
		msg = rest // a package's own prefix ("ledger: day …")
	} else if rest, ok := strings.CutPrefix(msg, name+" -"); ok {
		msg = "-" + rest // "publish --preview: …"
	}
	lines := strings.Split(msg, "\n")
	fmt.Fprintf(w, "taxkernelbot %s: %s\n", name, workflow.Line(lines[0]))
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			fmt.Fprintf(w, "  %s\n", workflow.Line(l))
		}
	}
}

// closest is the name in names nearest to got, when it is near enough
// to be a typo (a few edits, or got a prefix of it); "" otherwise.
func closest(got string, names []string) string {
	got = strings.ToLower(got)
	best, bestD := "", 0
	for _, n := range names {
		d := manifest.EditDistance(got, n)
		if len(got) >= 3 && strings.HasPrefix(n, got) {
			d = min(d, 1)
		}
		if best == "" || d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > max(2, len(got)/3) {
		return ""
	}
	return best
}

// isTerminal reports whether w is a character device (a terminal), or a
// writer that says it is one (IsTerminal).
func isTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	f, ok := w.(*os.File)
	return ok && isTerminalFile(f)
}

// drawable reports whether w is a terminal that can show the live view,
// whose lines are redrawn with cursor escapes: not a log, not TERM=dumb
// (an editor's or a CI's terminal), and not when NO_COLOR asks for plain
// output.
func drawable(o IO, w io.Writer) bool {
	return isTerminal(w) && o.getenv("TERM") != "dumb" && o.getenv("NO_COLOR") == ""
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
	fmt.Fprintln(w, "\nUsage: taxkernelbot <command> [flags]   (taxkernelbot <command> --help, or taxkernelbot help <command>, for its flags)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun from any folder of the repository: the default paths (manifests, snapshots, reports, .taxkernelbot/state)")
	fmt.Fprintln(w, "are found from the nearest folder above that holds manifests/policy.yaml or .git, as git finds its root.")
	fmt.Fprintln(w, "\nFlags: --help, -h; --version, -v.")
	fmt.Fprintf(w, "\n%s", exitCodesHelp)
}

// exitCodesHelp is the one table of exit codes, the same for every
// command.
const exitCodesHelp = `Exit codes, the same for every command:
  0  ok
  1  failures found and recorded: a run's failing sources (or a run stopped by a signal), verify's problems,
     report --check's differences
  2  bad command line (an unknown source id too), or invalid manifests; nothing was sent
  3  no answer: could not run (lease held, store unwritable, no network), or nothing to answer from yet
     (cite, robots, ledger, warc or dataset before a run has fetched what they read); the message says which run brings it
`

// flagSet is a command's flags, and whether it takes arguments besides.
type flagSet struct {
	*flag.FlagSet
	noArgs bool   // the command takes only flags: parse refuses any argument
	args   string // what the usage line shows after the command's name
	out    io.Writer
	// rooted are the path flags whose default is relative to the
	// repository's root (see findRoot).
	rooted []string
}

// newFlags returns a flag set whose errors are ours to report (exit 2),
// once, by Main. The command takes only flags, and parse refuses any
// argument, unless withArgs says otherwise: a stray word is a mistake to
// name, not to ignore. --help prints the command's help on Out.
func newFlags(name, args string, o IO) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, noArgs: true, args: args, out: o.Out}
}

// usageLine is the command's one line of usage, and where its help is.
func (fs *flagSet) usageLine() string {
	return fmt.Sprintf("usage: taxkernelbot %s %s (taxkernelbot %s --help for the flags and examples)", fs.Name(), fs.args, fs.Name())
}

// printHelp writes the command's help: usage, what it does, its flags
// (as --flag, a one-letter flag as -o), examples and the exit codes.
func (fs *flagSet) printHelp(w io.Writer) {
	name := fs.Name()
	summary := commands[name].summary
	fmt.Fprintf(w, "Usage: taxkernelbot %s %s\n\n%s.\n\nFlags:\n", name, fs.args, strings.ToUpper(summary[:1])+summary[1:])
	fs.VisitAll(func(f *flag.Flag) {
		typ, text := flag.UnquoteUsage(f)
		dashes := "--"
		if len(f.Name) == 1 {
			dashes = "-"
		}
		line := "  " + dashes + f.Name
		if typ != "" {
			line += " " + typ
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "0s" {
			if _, isString := f.Value.(interface{ Get() any }).Get().(string); isString {
				def = strconv.Quote(def)
			}
			text += " (default " + def + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(text, "\n", "\n    \t"))
	})
	fmt.Fprintln(w, "  --help, -h\n    \tprint this help")
	if ex := examples[name]; len(ex) > 0 {
		fmt.Fprintf(w, "\nExamples:\n  %s\n", strings.Join(ex, "\n  "))
	}
	if more := helpMore[name]; more != "" {
		fmt.Fprintf(w, "\n%s", more)
	}
	fmt.Fprintf(w, "\n%s", exitCodesHelp)
}

// root marks the flag name as a path whose default is relative to the
// checkout's root: left at its default, it is found from any folder of
// the checkout, as git finds its root (see findRoot).
func (fs *flagSet) root(name string) {
	fs.rooted = append(fs.rooted, name)
}

// rebase makes the rooted flags left at their relative defaults relative
// to the checkout's root, when the working directory is below it. A flag
// given on the command line is the user's, taken as written.
func (fs *flagSet) rebase() {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var todo []*flag.Flag
	for _, name := range fs.rooted {
		if f := fs.Lookup(name); f != nil && !given[name] && f.DefValue != "" && !filepath.IsAbs(f.DefValue) {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	root, ok := findRoot(wd)
	if !ok || root == wd {
		return
	}
	rel, err := filepath.Rel(wd, root)
	if err != nil {
		return
	}
	for _, f := range todo {
		f.Value.Set(filepath.Join(rel, f.DefValue))
	}
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
				fs.printHelp(fs.out)
				return err
			}
			return withCode(ExitUsage, fmt.Errorf("%w\n%s", flagError(fs.FlagSet, explainFlagError(fs.FlagSet, err)), fs.usageLine()))
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
	fs.rebase()
	// Parse again with nothing but "--" and the arguments, so that
	// fs.Args() returns them all.
	return fs.Parse(append([]string{"--"}, positional...))
}

// flagName is a flag as the flag package's messages name it: one dash.
var flagName = regexp.MustCompile(`(^|: |for flag |for )-([A-Za-z0-9][-A-Za-z0-9_]+)`)

// undefinedFlag is the flag package's message for a flag it does not know.
var undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)

// flagError is a flag error as a user reads it: each flag named with
// the two dashes the help shows, and an unknown flag with the closest
// one the command has.
func flagError(fs *flag.FlagSet, err error) error {
	msg := flagName.ReplaceAllString(err.Error(), "${1}--${2}")
	if m := undefinedFlag.FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if c := closest(m[1], names); c != "" {
			msg += "; did you mean --" + c + "?"
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
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
