package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/demo"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

type demoOptions struct {
	Dir  string // where to work; a new temp dir when empty
	Keep bool   // keep the temp dir instead of removing it
	// RealManifests holds the policy the demo compares its own with.
	RealManifests string
	IO            IO
	tempRoot      string // parent of the temp dir; os.TempDir() when empty
}

func cmdDemo(ctx context.Context, io IO, args []string) error {
	opts := demoOptions{IO: io}
	fs := newFlags("demo", "[flags]", io)
	fs.StringVar(&opts.Dir, "dir", "", "work in this directory instead of a new temporary one (never removed)")
	fs.BoolVar(&opts.Keep, "keep", false, "keep the temporary folder and say where it is, instead of removing it")
	fs.StringVar(&opts.RealManifests, "manifests", "manifests", "the real manifests, whose policy is shown beside the demo's (the built-in values when absent)")
	if err := parse(fs, args); err != nil {
		return err
	}
	return runDemo(ctx, opts)
}

// runDemo starts the scripted authorities, runs the pipeline twice — the
// second run shows 304s, kept robots copies, the pause and unchanged
// reports — and prints the report and what the servers saw.
func runDemo(ctx context.Context, opts demoOptions) error {
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp(opts.tempRoot, "taxkernelbot-demo-"); err != nil {
			return cannotRun("%w", err)
		}
		if !opts.Keep {
			defer func() {
				if err := os.RemoveAll(dir); err != nil {
					fmt.Fprintf(opts.IO.Err, "demo: could not remove %s: %v\n", dir, err)
					return
				}
				fmt.Fprintf(opts.IO.Out, "\nRemoved the demo's temporary folder %s (run with --keep to keep it).\n", dir)
			}()
		}
	}
	auth := demo.Start()
	defer auth.Close()
	p := paths{
		Manifests: filepath.Join(dir, "manifests"),
		Snapshots: filepath.Join(dir, "snapshots"),
		Reports:   filepath.Join(dir, "reports"),
		State:     filepath.Join(dir, "state"),
	}
	w := opts.IO.Out
	// A signing key of the demo's own, its key directory on a page of its
	// own, and servers that verify every request against it.
	env, keyDir, err := demoSigningKey(dir, w)
	if err != nil {
		return err
	}
	auth.ServeKeyDirectory(keyDir)
	if err := auth.WriteManifests(p.Manifests); err != nil {
		return cannotRun("%w", err)
	}
	if err := explainDemoPolicy(w, p.Manifests, opts.RealManifests); err != nil {
		return err
	}
	var before []byte
	for i := 1; i <= 2; i++ {
		fmt.Fprintf(w, "── run %d ──\n", i)
		err := runRun(ctx, runOptions{paths: p, MaxDuration: 20 * time.Second, RunID: fmt.Sprintf("demo-%d", i), IO: IO{Out: w, Err: w, Getenv: env}})
		if code := exitCode(err); code != ExitOK && code != ExitFailures {
			return err // failures are the demo's point; anything else is not
		}
		after, err := os.ReadFile(filepath.Join(p.Reports, "coverage.json"))
		if err != nil {
			return cannotRun("%w", err)
		}
		if i == 2 {
			same := "changed"
			if string(after) == string(before) {
				same = "byte-identical to run 1: a quiet day makes no diff"
			}
			fmt.Fprintf(w, "coverage.json after run 2: %s\n", same)
		}
		before = after
	}
	md, err := os.ReadFile(filepath.Join(p.Reports, "coverage.md"))
	if err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(w, "\n%s\nWhat the servers saw:\n%s\n", md, auth.Seen())
	fmt.Fprintf(w, "Signed requests:\n%s\n", auth.Signatures())
	archive := filepath.Join(dir, "demo.warc.gz")
	if err := runWarc(ctx, warcOptions{paths: p, Out: archive, Clock: clock.Real{}, IO: IO{Out: w, Err: w}}); err != nil {
		return err
	}
	if opts.Dir != "" || opts.Keep {
		fmt.Fprintf(w, "Files kept in %s:\n", dir)
		for _, f := range []string{p.Reports + "/coverage.md", p.Reports + "/coverage.json", p.Reports + "/POLICY.md", p.Reports + "/hosts.md", p.Reports + "/index.html", p.indexPath(), p.Snapshots + "/sha256/", p.ledgerDir() + "/", p.State + "/state.json", keyDir, archive} {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	return nil
}

// demoSigningKey makes a key for this demo only, writes its key directory
// with `keys directory`, and returns the environment that hands the key to
// the runs.
func demoSigningKey(dir string, w io.Writer) (func(string) string, string, error) {
	key, err := sign.GenerateKey()
	if err != nil {
		return nil, "", cannotRun("%w", err)
	}
	pemKey, err := sign.MarshalKey(key)
	if err != nil {
		return nil, "", cannotRun("%w", err)
	}
	env := func(k string) string {
		if k == sign.KeyEnv {
			return pemKey
		}
		return ""
	}
	keyDir := filepath.Join(dir, "site", ".well-known", "http-message-signatures-directory")
	if err := runKeys(IO{Out: w, Err: w, Getenv: env}, clock.Real{}, []string{"directory", "-o", keyDir}); err != nil {
		return nil, "", err
	}
	return env, keyDir, nil
}

// explainDemoPolicy says, before anything runs, that the demo's speed is
// not the bot's: it prints the demo's sped-up policy beside the real one.
func explainDemoPolicy(w io.Writer, demoManifests, realManifests string) error {
	demoSet, diags := manifest.Load(demoManifests)
	if demoSet == nil {
		return cannotRun("the demo's own manifests do not load: %v", diags)
	}
	real, where := policy.Default(), "the built-in values"
	if realManifests != "" {
		if set, _ := manifest.Load(realManifests); set != nil {
			real, where = set.Policy, filepath.Join(realManifests, "policy.yaml")
		}
	}
	d := demoSet.Policy
	fmt.Fprintf(w, "This demo runs with a sped-up test policy against servers on loopback (127.0.0.1), which is the only place it is allowed (allow_private_networks: true). Against real hosts the bot follows the real policy (%s):\n\n", where)
	fmt.Fprintf(w, "| rule | demo (loopback only) | real |\n| --- | --- | --- |\n")
	dur := policy.FormatDuration
	span := func(x policy.Delay) string { return dur(x.Min) + "–" + dur(x.Max) }
	fmt.Fprintf(w, "| delay between dispatches | %s | %s |\n", span(d.Delay), span(real.Delay))
	fmt.Fprintf(w, "| daily cap per host | %d | %d |\n", d.DailyCap, real.DailyCap)
	fmt.Fprintf(w, "| longest backoff | %s | %s |\n", dur(d.BackoffMax), dur(real.BackoffMax))
	fmt.Fprintf(w, "| pause after 403s in a row | %d | %d |\n", d.PauseAfter403, real.PauseAfter403)
	fmt.Fprintf(w, "| timeout | %s | %s |\n", dur(d.Timeout), dur(real.Timeout))
	fmt.Fprintf(w, "| private networks | allowed | refused |\n\n")
	fmt.Fprintf(w, "So a host's requests here are about %d times closer together than they would be on the internet.\n\n", max(int64(real.Delay.Min/max(d.Delay.Min, 1)), 1))
	return nil
}
