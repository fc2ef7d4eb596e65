package cli

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// paths are the four roots every command works under (SPEC §6b defaults).
type paths struct {
	Manifests, Snapshots, Reports, State string
}

func (p *paths) register(fs *flag.FlagSet, which ...string) {
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
		}
	}
}

func (p paths) indexPath() string { return filepath.Join(p.Snapshots, "index.json") }
func (p paths) ledgerDir() string { return filepath.Join(p.State, "ledgers") }
func (p paths) lockPath() string  { return filepath.Join(p.State, "lock") }

// loadManifests loads and prints the diagnostics; errors mean exit 2.
func loadManifests(dir string, io IO) (*manifest.Set, error) {
	set, diags := manifest.Load(dir)
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

func printDiagnostics(diags manifest.Diagnostics, io IO) {
	gha := io.Getenv != nil && io.Getenv("GITHUB_ACTIONS") == "true"
	for _, d := range diags {
		fmt.Fprintln(io.Err, d.String())
		if gha {
			fmt.Fprintln(io.Out, d.Annotation())
		}
	}
}
