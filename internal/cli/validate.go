package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/robotsdecision"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

type validateOptions struct {
	paths
	Base string // a git revision: report what the pull request adds
	// CacheBranch, when set, is the cache branch's ref in the local
	// repository (origin/fetch-cache): its kept robots.txt copies and host
	// state stand in for --state's.
	CacheBranch string
	Clock       clock.Clock // when the base report takes a pause or backoff to end; default clock.Real
	// JSON prints one validateReport on stdout instead of the text.
	JSON bool
	IO   IO
}

func cmdValidate(ctx context.Context, io IO, args []string) error {
	opts := validateOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("validate", "[flags]", io)
	opts.register(fs, "manifests", "state")
	fs.StringVar(&opts.Base, "base", "", "the pull request's base `REV` (e.g. origin/main) in the local repository: report duplicates on the added lines, and what the bot would do with each added or changed URL")
	fs.StringVar(&opts.CacheBranch, "cache-branch", "", "read the kept robots.txt copies and the hosts' state from this `REF` of the local repository (e.g. origin/fetch-cache) instead of --state; nothing is fetched, and a missing branch leaves the robots.txt decisions unknown")
	fs.BoolVar(&opts.JSON, "json", false, "print the result as one JSON document (see below), the problems in it and not on stderr")
	if err := parse(fs, args); err != nil {
		return err
	}
	return runValidate(ctx, opts)
}

// runValidate checks the manifests without any network: the only outside
// knowledge it uses is the robots.txt copies already kept in the state.
func runValidate(_ context.Context, opts validateOptions) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.JSON {
		if opts.Base != "" {
			return usageError("--json and --base do not go together: --base's report is text only; run validate --json, and validate --base for the report")
		}
		return validateJSON(opts)
	}
	var base *manifest.Base
	if opts.Base != "" {
		var err error
		if base, err = readBase(opts.Manifests, opts.Base); err != nil {
			return usageError("%w", err)
		}
	}
	set, err := loadManifestsAgainst(opts.Manifests, base, opts.IO)
	if err != nil {
		return err
	}
	if err := borrowedIdentity(set, opts.IO); err != nil {
		return err
	}
	st, err := validateState(opts)
	if err != nil {
		return cannotRun("%w", err)
	}
	parsed := newKeptRules() // shared by the warnings and the base report
	printDiagnostics(append(robotsWarnings(set, base, st, parsed), editionWarnings(set, base, opts.Clock.Now())...), opts.IO)
	var added []addedSource
	summary := overridesSummary(set)
	if base != nil {
		added = assessAdded(set, base, st, parsed, opts.Clock.Now())
		summary = addedSummary(added, opts.Base) + "\n" + summary
	}
	if err := writeStepSummary(summary, opts.IO); err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(opts.IO.Out, "%s: %d manifest(s), %d source(s), %d host(s): valid\n",
		opts.Manifests, len(set.Manifests), len(set.Sources), len(set.Hosts))
	if base != nil {
		baseReport(opts.IO.Out, added, opts.Base)
	}
	return nil
}

// validateJSON is validate's answer as one validateReport on stdout:
// every diagnostic, each on its own (a repeated problem is not collapsed),
// with the robots.txt warnings a valid set gets. Manifests with an error
// still exit 2.
func validateJSON(opts validateOptions) error {
	set, diags := manifest.LoadAgainst(opts.Manifests, nil)
	rep := validateReport{Manifests: opts.Manifests, Diagnostics: []validateDiagnostic{}}
	if set != nil && !diags.HasErrors() {
		if err := borrowedIdentity(set, opts.IO); err != nil {
			return err
		}
		st, err := validateState(opts)
		if err != nil {
			return cannotRun("%w", err)
		}
		diags = append(diags, robotsWarnings(set, nil, st, newKeptRules())...)
		diags = append(diags, editionWarnings(set, nil, opts.Clock.Now())...)
		if err := writeStepSummary(overridesSummary(set), opts.IO); err != nil {
			return cannotRun("%w", err)
		}
		rep.Counts.Manifests, rep.Counts.Sources, rep.Counts.Hosts = len(set.Manifests), len(set.Sources), len(set.Hosts)
	}
	for _, d := range diags {
		severity := "error"
		if d.Severity == manifest.Warning {
			severity = "warning"
			rep.Counts.Warnings++
		} else {
			rep.Counts.Errors++
		}
		rep.Diagnostics = append(rep.Diagnostics, validateDiagnostic{
			File: d.File, Line: d.Line, Column: d.Column, Severity: severity, Message: d.Message, Fix: fixOf(d.Message),
		})
	}
	rep.Valid = rep.Counts.Errors == 0
	if err := writeJSON(opts.IO.Out, rep); err != nil {
		return err
	}
	if !rep.Valid {
		return usageError("%d problem(s) in %s: fix them and run `taxkernelbot validate`", rep.Counts.Errors, opts.Manifests)
	}
	return nil
}

// fixOf is the advice of a diagnostic's message, which says what is
// wrong, then what to do: its "did you mean …?", else what follows its
// first "; ". A message without either has no advice apart: "".
func fixOf(msg string) string {
	if i := strings.Index(msg, "did you mean "); i >= 0 {
		fix := msg[i:]
		if j := strings.IndexByte(fix, '?'); j >= 0 {
			fix = fix[:j+1]
		}
		return fix
	}
	if _, fix, ok := strings.Cut(msg, "; "); ok {
		return strings.TrimSpace(fix)
	}
	return ""
}

// validateState is what validate knows of the hosts without a network:
// the cache branch's state and robots.txt copies when --cache-branch names
// one, else the state directory's. No state at hand is the normal case on
// a fresh checkout: an empty state, every robots.txt decision unknown.
func validateState(opts validateOptions) (*state.State, error) {
	if opts.CacheBranch == "" {
		st, err := state.Load(opts.State)
		if err != nil {
			return state.New(), nil // a state this run cannot read tells nothing
		}
		return st, nil
	}
	branch, name, done, err := cacheBranch(opts.Manifests, opts.CacheBranch)
	if errors.Is(err, errNoCacheBranch) {
		fmt.Fprintf(opts.IO.Err, "validate: %v: robots.txt decisions are unknown\n", err)
		return state.New(), nil
	}
	if err != nil {
		return nil, err
	}
	defer done()
	st, err := state.Decode(branch)
	if err != nil {
		return nil, fmt.Errorf("state.json of the cache branch %s: %w", name, err)
	}
	fmt.Fprintf(opts.IO.Err, "validate: robots.txt copies and host state from the cache branch %s\n", name)
	return st, nil
}

// robotsWarnings warns about sources that the kept robots.txt of their host
// disallows, so a contributor learns before merging that the URL is a gap.
// Given a base, only the sources the pull request adds or changes: the
// others are known gaps, in the coverage report already.
func robotsWarnings(set *manifest.Set, base *manifest.Base, st *state.State, parsed keptRules) manifest.Diagnostics {
	var out manifest.Diagnostics
	token := set.Policy.ProductToken()
	for _, src := range set.Sources {
		if base != nil && !base.Added(src) {
			continue
		}
		key := robots.Key(src.Parsed)
		kept, ok := st.Robots(key)
		if !ok || kept.Outcome != state.RobotsParsed || kept.Body == nil {
			continue // only rules actually read can tell a contributor anything
		}
		if !parsed.of(key, kept).Allowed(token, src.Parsed) && set.Host(src.Host).Override == nil {
			out = append(out, manifest.Diagnostic{
				File: src.File, Line: src.Line, Severity: manifest.Warning,
				Message: fmt.Sprintf("%s: robots.txt of %s (kept copy of %s) disallows this URL; it will be reported as blocked-robots, not fetched",
					src.ID, src.Host, kept.FetchedAt.UTC().Format("2006-01-02")),
			})
		}
	}
	return out
}

// editionWarnings warns about sources whose address names a tax year
// older than their jurisdiction's current one with no later edition
// listed (edition.Stale), read from the manifests alone. Given a base,
// only of the sources the pull request adds or changes, as robotsWarnings.
func editionWarnings(set *manifest.Set, base *manifest.Base, now time.Time) manifest.Diagnostics {
	if base == nil {
		return edition.Stale(set, now, nil)
	}
	return edition.Stale(set, now, base.Added)
}

// keptRules are the rules of the kept robots.txt copies by key, each
// parsed once however many sources its host has.
type keptRules struct {
	rules map[string]*robots.Rules
	parse func(state.Robots) *robots.Rules // robotsdecision.Rules
}

func newKeptRules() keptRules {
	return keptRules{rules: map[string]*robots.Rules{}, parse: robotsdecision.Rules}
}

func (k keptRules) of(key string, kept state.Robots) *robots.Rules {
	rules, ok := k.rules[key]
	if !ok {
		rules = k.parse(kept)
		k.rules[key] = rules
	}
	return rules
}

// borrowedIdentity refuses, in GitHub Actions, a copy of the repository
// that would fetch under TaxKernelBot's identity.
func borrowedIdentity(set *manifest.Set, io IO) error {
	repo := ""
	if io.Getenv != nil {
		repo = io.Getenv("GITHUB_REPOSITORY")
	}
	if err := set.Policy.BorrowedIdentity(repo); err != nil {
		return usageError("%w", err)
	}
	return nil
}
