package cli

import (
	"context"
	"fmt"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/robotsdecision"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

type validateOptions struct {
	paths
	IO IO
}

func cmdValidate(ctx context.Context, io IO, args []string) error {
	opts := validateOptions{IO: io}
	fs := newFlags("validate", "[flags]", io)
	opts.register(fs, "manifests", "state")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected arguments %q", fs.Args())
	}
	return runValidate(ctx, opts)
}

// runValidate checks the manifests without any network: the only outside
// knowledge it uses is the robots.txt copies already kept in the state.
func runValidate(_ context.Context, opts validateOptions) error {
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	printDiagnostics(robotsWarnings(set, opts.State), opts.IO)
	fmt.Fprintf(opts.IO.Out, "%s: %d manifest(s), %d source(s), %d host(s): valid\n",
		opts.Manifests, len(set.Manifests), len(set.Sources), len(set.Hosts))
	return nil
}

// robotsWarnings warns about sources that the kept robots.txt of their host
// disallows, so a contributor learns before merging that the URL is a gap.
func robotsWarnings(set *manifest.Set, stateDir string) manifest.Diagnostics {
	st, err := state.Load(stateDir)
	if err != nil {
		return nil // no state at hand is the normal case on a pull request
	}
	var out manifest.Diagnostics
	token := set.Policy.ProductToken()
	// Each kept copy is parsed once, however many sources its host has.
	parsed := map[string]*robots.Rules{}
	for _, src := range set.Sources {
		key := robots.Key(src.Parsed)
		kept, ok := st.Robots(key)
		if !ok || kept.Outcome != state.RobotsParsed || kept.Body == nil {
			continue // only rules actually read can tell a contributor anything
		}
		rules, seen := parsed[key]
		if !seen {
			rules = robotsdecision.Rules(kept)
			parsed[key] = rules
		}
		if !rules.Allowed(token, src.Parsed) && set.Host(src.Host).Override == nil {
			out = append(out, manifest.Diagnostic{
				File: src.File, Line: src.Line, Severity: manifest.Warning,
				Message: fmt.Sprintf("%s: robots.txt of %s (kept copy of %s) disallows this URL; it will be reported as blocked-robots, not fetched",
					src.ID, src.Host, kept.FetchedAt.UTC().Format("2006-01-02")),
			})
		}
	}
	return out
}
