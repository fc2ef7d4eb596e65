package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/demo"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/report"
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
	fs.root("manifests")
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
	// own, and servers that verify every request against it. The page
	// reads the file when asked, after demoSigningKey has written it.
	keyDir := filepath.Join(dir, "site", ".well-known", "http-message-signatures-directory")
	keyURL := auth.ServeKeyDirectory(keyDir)
	if err := auth.WriteManifests(p.Manifests); err != nil {
		return cannotRun("%w", err)
	}
	// What the demo says first: its speed is not the bot's.
	if err := explainDemoPolicy(w, p.Manifests, opts.RealManifests); err != nil {
		return err
	}
	key, err := demoSigningKey(keyDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "The demo signs its requests with a key of its own, made for this demo only; taxkernelbot keys directory wrote its public key to %s, which the demo serves at %s for the servers to check each request against.\n\n", keyDir, keyURL)
	// The runs see the demo's key, and of the environment only what says
	// how the terminal draws.
	env := func(k string) string {
		if k == "TERM" || k == "NO_COLOR" {
			return opts.IO.getenv(k)
		}
		return key(k)
	}
	var before []byte
	repoDir := filepath.Join(dir, "repo")
	for i := 1; i <= 2; i++ {
		if i == 2 {
			// What a reviewer merged after run 1 is main; then the budget
			// page's rate changes, and the forms page's token turns over.
			if err := commitDemoMain(repoDir, p); err != nil {
				return cannotRun("commit run 1's reports to main: %v", err)
			}
			auth.NextEdition()
			fmt.Fprintf(w, "Run 1's reports and snapshots are committed to main in %s. Between the runs the budget page's basic-rate band changes; the forms page only gets a new token.\n\n", repoDir)
		}
		fmt.Fprintf(w, "── run %d ──\n", i)
		err := runRun(ctx, runOptions{paths: p, Limits: pipeline.Limits{MaxDuration: 20 * time.Second, RunID: fmt.Sprintf("demo-%d", i)}, Tick: time.Second, IO: IO{Out: w, Err: w, Getenv: env}})
		if code := exitCode(err); code != ExitOK && code != ExitFailures {
			return err // failures are the demo's point; anything else is not
		}
		after, err := os.ReadFile(filepath.Join(p.Reports, "coverage.json"))
		if err != nil {
			return cannotRun("%w", err)
		}
		if i == 2 {
			fmt.Fprintf(w, "coverage.json after run 2: %s\n", demoReportChange(before, after))
		}
		before = after
	}
	rep, err := report.Parse(before)
	if err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintln(w)
	if err := plainReport(w, rep, filepath.Join(p.Reports, "coverage.md")); err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(w, "\nWhat the servers saw:\n%s\n", auth.Seen())
	fmt.Fprintf(w, "Signed requests:\n%s\n", auth.Signatures())
	fmt.Fprintf(w, "── taxkernelbot publish --preview --repo %s ──\n", repoDir)
	if err := runPublishPreview(ctx, publishOptions{paths: p, IO: IO{Out: w, Err: w}}, repoDir); err != nil {
		return err
	}
	fmt.Fprintln(w)
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
// to keyDir with `keys directory` (whose advice on serving it is for a
// real deployment, not shown here), and returns the environment that
// hands the key to the runs.
func demoSigningKey(keyDir string) (func(string) string, error) {
	key, err := sign.GenerateKey()
	if err != nil {
		return nil, cannotRun("%w", err)
	}
	pemKey, err := sign.MarshalKey(key)
	if err != nil {
		return nil, cannotRun("%w", err)
	}
	env := func(k string) string {
		if k == sign.KeyEnv {
			return pemKey
		}
		return ""
	}
	var said bytes.Buffer
	if err := runKeys(IO{Out: &said, Err: &said, Getenv: env}, clock.Real{}, []string{"directory", "-o", keyDir}); err != nil {
		return nil, fmt.Errorf("%w (%s)", err, strings.TrimSpace(said.String()))
	}
	return env, nil
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

// demoReportChange says what run 2 changed in coverage.json.
func demoReportChange(before, after []byte) string {
	if string(after) == string(before) {
		return "byte-identical to run 1: a quiet day makes no diff"
	}
	old, errOld := report.Parse(before)
	cur, errNew := report.Parse(after)
	if errOld != nil || errNew != nil {
		return "changed"
	}
	var parts []string
	for _, c := range report.Diff(old, cur) {
		parts = append(parts, c.ID+" ("+c.Kind+")")
	}
	return "changed only for " + strings.Join(parts, ", ") + "; the forms page's new token made no change"
}

// commitDemoMain makes repoDir a git repository whose main branch holds
// the reports and snapshots as they are now, as a merged pull request
// would leave them.
func commitDemoMain(repoDir string, p paths) error {
	repo, err := git.PlainInitWithOptions(repoDir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	copyIn := func(local, rel string) error {
		data, err := os.ReadFile(local)
		if err != nil {
			return err
		}
		dst := filepath.Join(repoDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		_, err = wt.Add(rel)
		return err
	}
	for _, f := range []string{"coverage.json", "coverage.md"} {
		if err := copyIn(filepath.Join(p.Reports, f), "reports/"+f); err != nil {
			return err
		}
	}
	err = filepath.WalkDir(p.Snapshots, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		rel, err := filepath.Rel(p.Snapshots, path)
		if err != nil {
			return err
		}
		return copyIn(path, "snapshots/"+filepath.ToSlash(rel))
	})
	if err != nil {
		return err
	}
	_, err = wt.Commit("coverage as merged after run 1", &git.CommitOptions{Author: &object.Signature{Name: "TaxKernelBot demo", Email: "demo@taxkernel.invalid", When: time.Now()}})
	return err
}
