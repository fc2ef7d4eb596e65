package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/session"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// paths are the four roots every command works under.
type paths struct {
	Manifests, Snapshots, Reports, State string
}

func (p *paths) register(fs *flagSet, which ...string) {
	for _, w := range which {
		switch w {
		case "manifests":
			fs.StringVar(&p.Manifests, "manifests", "manifests", "directory of the jurisdiction manifests and policy.yaml")
		case "snapshots":
			fs.StringVar(&p.Snapshots, "snapshots", "snapshots", "content-addressed store and index.json")
		case "reports":
			fs.StringVar(&p.Reports, "reports", "reports", "where coverage.json and coverage.md are written")
		case "state":
			fs.StringVar(&p.State, "state", ".taxkernelbot/state", "ledgers, robots copies, validators, backoff (the cache branch's content)")
		default:
			continue
		}
		fs.root(w)
	}
}

func (p paths) indexPath() string { return filepath.Join(p.Snapshots, "index.json") }
func (p paths) ledgerDir() string { return filepath.Join(p.State, "ledgers") }

// dirs are the directories a run works in.
func (p paths) dirs() session.Dirs {
	return session.Dirs{Snapshots: p.Snapshots, Reports: p.Reports, State: p.State}
}

// outputDirs are the directories the outputs are read from and written to.
func (p paths) outputDirs() outputs.Dirs {
	return outputs.Dirs{Snapshots: p.Snapshots, Reports: p.Reports, Ledgers: p.ledgerDir()}
}

// outputs is a run's Outputs hook: the reports, pages and feeds under
// Reports, the feeds linking blobs on the repository getenv names.
func (p paths) outputs(getenv func(string) string) func(*manifest.Set, *state.State, *store.Index) session.RunOutputs {
	return func(set *manifest.Set, st *state.State, ix *store.Index) session.RunOutputs {
		return outputs.Start(p.outputDirs(), getenv, set, st, ix)
	}
}

// loadManifests loads and prints the diagnostics; errors mean exit 2.
func loadManifests(dir string, io IO) (*manifest.Set, error) {
	return loadManifestsAgainst(dir, nil, io)
}

// loadManifestsAgainst is loadManifests for a pull request against base
// (nil: none), so that duplicates are reported on the added lines.
func loadManifestsAgainst(dir string, base *manifest.Base, io IO) (*manifest.Set, error) {
	set, diags := manifest.LoadAgainst(dir, base)
	printDiagnostics(diags, io)
	if diags.HasErrors() {
		n := 0
		for _, d := range diags {
			if d.Severity == manifest.Error {
				n++
			}
		}
		return nil, usageError("%d problem(s) in %s: fix them and run `taxkernelbot validate`", n, dir)
	}
	return set, nil
}

// printDiagnostics prints each problem once: "file:line:column: message"
// on stderr, or, under GitHub Actions, only as an annotation on stdout
// (which the log shows as well). Identical messages are collapsed into the
// first with a count and the other places, since GitHub shows only ten
// annotations of a kind per step.
func printDiagnostics(diags manifest.Diagnostics, io IO) {
	gha := io.Getenv != nil && io.Getenv("GITHUB_ACTIONS") == "true"
	for _, d := range collapse(diags) {
		if gha {
			d.Annotate(io.Out)
			continue
		}
		kind := ""
		if d.Severity == manifest.Warning {
			kind = "warning: "
		}
		fmt.Fprintf(io.Err, "%s: %s%s\n", d.Position(), kind, d.Message)
	}
}

// collapse merges diagnostics of the same severity and message into the
// first, whose message then says how many there are and where the others
// are (up to five places).
func collapse(diags manifest.Diagnostics) manifest.Diagnostics {
	type key struct {
		sev manifest.Severity
		msg string
	}
	first := map[key]int{}
	var out manifest.Diagnostics
	var others [][]string
	for _, d := range diags {
		k := key{d.Severity, d.Message}
		if i, ok := first[k]; ok {
			others[i] = append(others[i], d.Position())
			continue
		}
		first[k] = len(out)
		out = append(out, d)
		others = append(others, nil)
	}
	for i := range out {
		if n := len(others[i]); n > 0 {
			places := others[i]
			more := ""
			if len(places) > 5 {
				more = fmt.Sprintf(" and %d more", len(places)-5)
				places = places[:5]
			}
			out[i].Message += fmt.Sprintf(" (%d times; also at %s%s)", n+1, strings.Join(places, ", "), more)
		}
	}
	return out
}

// findRoot is the checkout dir is in, found as git finds its root: the
// nearest of dir and the folders above it that holds manifests/policy.yaml
// or .git.
func findRoot(dir string) (string, bool) {
	for {
		for _, mark := range []string{filepath.Join("manifests", "policy.yaml"), ".git"} {
			if _, err := os.Stat(filepath.Join(dir, mark)); err == nil {
				return dir, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
