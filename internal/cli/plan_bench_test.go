package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

// BenchmarkDryRunBesideValidate measures `run --dry-run` beside
// `validate` on the same generated manifests (a fresh checkout: no state,
// no ledgers), at 1k, 10k and 100k sources spread over 1,000 and 5,000
// hosts. Each iteration runs validate, then the dry run, so that both see
// the same machine; it reports the seconds of each and their ratio.
// Planning is linear: the dry run should stay within a small factor of
// validate at every size, and ten times the sources should cost about ten
// times the time.
//
//	go test -run '^$' -bench DryRunBesideValidate -benchtime 3x ./internal/cli
func BenchmarkDryRunBesideValidate(b *testing.B) {
	for _, size := range []struct{ sources, hosts int }{
		{1_000, 1_000}, {10_000, 1_000}, {10_000, 5_000}, {100_000, 1_000}, {100_000, 5_000},
	} {
		p := generatedManifests(b, size.sources, size.hosts)
		quiet := IO{Out: io.Discard, Err: io.Discard, Getenv: func(string) string { return "" }}
		b.Run(fmt.Sprintf("sources=%d/hosts=%d", size.sources, size.hosts), func(b *testing.B) {
			var validate, dry time.Duration
			for b.Loop() {
				start := time.Now()
				if err := runValidate(ctx, validateOptions{paths: p, IO: quiet}); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				opts := runOptions{
					paths: p, IO: quiet, Limits: pipeline.Limits{
						DryRun: true, MaxDuration: 50 * time.Minute,
						Clock: clock.NewFake(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)),
					},
				}
				if err := runRun(ctx, opts); err != nil {
					b.Fatal(err)
				}
				validate, dry = validate+mid.Sub(start), dry+time.Since(mid)
			}
			n := float64(b.N)
			b.ReportMetric(validate.Seconds()/n, "validate-s")
			b.ReportMetric(dry.Seconds()/n, "dry-run-s")
			b.ReportMetric(dry.Seconds()/validate.Seconds(), "dry/validate")
		})
	}
}

// generatedManifests writes n sources over hosts hosts, in manifests of
// 1,000 sources each, with the built-in policy, into a temp dir.
func generatedManifests(b *testing.B, n, hosts int) paths {
	b.Helper()
	dir := b.TempDir()
	p := paths{
		Manifests: filepath.Join(dir, "manifests"),
		Snapshots: filepath.Join(dir, "snapshots"),
		Reports:   filepath.Join(dir, "reports"),
		State:     filepath.Join(dir, "state"),
	}
	must(b, os.MkdirAll(p.Manifests, 0o755))
	must(b, os.WriteFile(filepath.Join(p.Manifests, "policy.yaml"), []byte("daily_cap: 200\n"), 0o644))
	const perFile = 1_000
	for f := 0; f*perFile < n; f++ {
		j := fmt.Sprintf("gen-%03d", f)
		var m strings.Builder
		fmt.Fprintf(&m, "jurisdiction: %s\nname: Generated %d\ntimezone: UTC\nsources:\n", j, f)
		for i := f * perFile; i < min(n, (f+1)*perFile); i++ {
			fmt.Fprintf(&m, "  - id: s-%06d\n    url: https://h%04d.example.gov/doc/%d\n    kind: rates-page\n    title: Source %d\n",
				i, i%hosts, i, i)
		}
		must(b, os.WriteFile(filepath.Join(p.Manifests, j+".yaml"), []byte(m.String()), 0o644))
	}
	return p
}
