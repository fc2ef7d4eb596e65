package decade

import (
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

var (
	benchHours = flag.Int("decade.hours", Decade, "hourly runs BenchmarkDecade simulates (a decade: 87,660)")
	benchScale = flag.Float64("decade.scale", 1, "BenchmarkDecade's factor on every document's size")
	benchMerge = flag.Int("decade.merge-days", 1, "BenchmarkDecade's days between two merges of the bot's pull request")
	benchModes = flag.String("decade.modes", "before,after", "the layouts BenchmarkDecade measures, comma-separated")
)

// BenchmarkDecade simulates a decade of hourly runs over today's manifests
// in each layout, and reports main's packed size as a contributor clones
// it, the clone + validate time, the stores' sizes, what the runs upload,
// and the GitHub limits crossed (logged with where and when first).
//
//	go test -run '^$' -bench BenchmarkDecade -benchtime 1x -timeout 150m ./internal/decade/ -args -decade.merge-days 7
func BenchmarkDecade(b *testing.B) {
	for _, mode := range []Mode{RecordOnly, RecordOnlyTextByHash, BytesInMain} {
		if !slices.Contains(strings.Split(*benchModes, ","), mode.Name) {
			continue
		}
		b.Run(mode.Name, func(b *testing.B) {
			for range b.N {
				benchDecade(b, mode)
			}
		})
	}
}

func benchDecade(b *testing.B, mode Mode) {
	real := clock.Real{}
	plan, err := NewPlan(Config{Start: start, Hours: *benchHours, Seed: 1, SizeScale: *benchScale, MergeEveryDays: *benchMerge}, todaysSources(b))
	if err != nil {
		b.Fatal(err)
	}
	began := real.Now()
	res, s := simulateServed(b, plan, mode)
	simulated := clock.Since(real, began)

	began = real.Now()
	dir, packed := cloneMain(b, s)
	cloned := clock.Since(real, began)
	validateClone(b, dir)
	cloneAndValidate := clock.Since(real, began)

	const mb = 1e6
	b.ReportMetric(float64(packed)/mb, "main-clone-MB")
	b.ReportMetric(cloneAndValidate.Seconds(), "clone+validate-s")
	b.ReportMetric(cloned.Seconds(), "clone-s")
	b.ReportMetric(simulated.Seconds(), "simulate-s")
	b.ReportMetric(float64(res.Served)/mb, "served-MB")
	b.ReportMetric(100*float64(packed)/float64(res.Served), "main/served-%")
	b.ReportMetric(float64(res.StoreBytes)/mb, "each-store-MB")
	b.ReportMetric(float64(res.Releases), "releases")
	b.ReportMetric(float64(res.MostAssets), "most-assets")
	up := slices.Clone(res.Uploads)
	sort.Slice(up, func(i, j int) bool { return up[i] < up[j] })
	b.ReportMetric(float64(len(up)), "runs-with-new-versions")
	b.ReportMetric(float64(up[len(up)/2])/mb, "upload-p50-MB")
	b.ReportMetric(float64(up[len(up)*99/100])/mb, "upload-p99-MB")
	b.ReportMetric(float64(up[len(up)-1])/mb, "upload-max-MB")
	b.ReportMetric(float64(slices.Max(res.Pushes))/mb, "push-max-MB")
	b.ReportMetric(float64(res.IndexSize)/mb, "index-MB")
	b.ReportMetric(float64(res.LargestFile)/mb, "largest-file-MB")
	b.ReportMetric(float64(res.LargestFolder), "largest-folder")
	b.ReportMetric(float64(res.SiteSize)/mb, "site-MB")
	b.ReportMetric(float64(len(res.Crossings)), "limits-crossed")

	b.Logf("%s: %d hourly runs, %d versions fetched, %d merges into main; served %.1f MB", mode.Name, res.Runs, res.Fetched, res.Merges, float64(res.Served)/mb)
	b.Logf("main: clone %.1f MB packed (%d files, %.1f MB in the last tree), clone %.1f s + validate = %.1f s", float64(packed)/mb, res.MainFiles, float64(res.BytesInTree)/mb, cloned.Seconds(), cloneAndValidate.Seconds())
	b.Logf("largest file %s (%.1f MB); fullest folder %s/ (%d entries); index.json %.1f MB; site %.1f MB", res.LargestFilePath, float64(res.LargestFile)/mb, res.LargestFolderPath, res.LargestFolder, float64(res.IndexSize)/mb, float64(res.SiteSize)/mb)
	b.Logf("uploads per run with new versions: p50 %.2f MB, p90 %.2f MB, p99 %.2f MB, max %.1f MB (the first run)", float64(up[len(up)/2])/mb, float64(up[len(up)*9/10])/mb, float64(up[len(up)*99/100])/mb, float64(up[len(up)-1])/mb)
	for _, c := range res.Crossings {
		b.Logf("limit crossed: %s", c)
	}
	if len(res.Crossings) == 0 {
		b.Logf("no limit crossed; largest values met: %v", res.Largest)
	}
	b.Logf("profiles:\n%s", profileTable(plan))
}

// profileTable lists the sources per kind and form with the figures they
// were given and where the figures come from.
func profileTable(plan *Plan) string {
	type key struct{ kind, form string }
	count := map[key]int{}
	versions := map[key]int{}
	src := map[key]Profile{}
	for _, d := range plan.Docs {
		k := key{string(d.Source.Kind), string(d.Form)}
		count[k]++
		versions[k] += len(d.Versions)
		src[k] = d.Profile
	}
	keys := make([]key, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].kind+keys[i].form < keys[j].kind+keys[j].form })
	var sb strings.Builder
	for _, k := range keys {
		p := src[k]
		fmt.Fprintf(&sb, "  %s/%s: %d sources, %d versions; median %d KiB, %.2g changes a year — %s\n", k.kind, k.form, count[k], versions[k], p.MedianSize>>10, p.ChangesPerYear, p.Source)
	}
	return sb.String()
}

// BenchmarkDecadeRuns is BenchmarkDecade without git, in seconds: what
// each hourly run uploads and pushes, the stores and the limits, per
// layout.
//
//	go test -run '^$' -bench BenchmarkDecadeRuns -benchtime 1x ./internal/decade/
func BenchmarkDecadeRuns(b *testing.B) {
	project, err := ProjectFiles(repoRoot)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []Mode{RecordOnly, RecordOnlyTextByHash, BytesInMain} {
		b.Run(mode.Name, func(b *testing.B) {
			for range b.N {
				plan, err := NewPlan(Config{Start: start, Hours: *benchHours, Seed: 1, SizeScale: *benchScale, MergeEveryDays: *benchMerge}, todaysSources(b))
				if err != nil {
					b.Fatal(err)
				}
				res, err := Account(plan, mode, project)
				if err != nil {
					b.Fatal(err)
				}
				const mb = 1e6
				up, push := sorted(res.Uploads), sorted(res.Pushes)
				b.ReportMetric(float64(len(up)), "runs-with-new-versions")
				for _, q := range []struct {
					name string
					at   int
				}{{"p50", len(up) / 2}, {"p99", len(up) * 99 / 100}, {"max", len(up) - 1}} {
					b.ReportMetric(float64(up[q.at])/mb, "upload-"+q.name+"-MB")
					b.ReportMetric(float64(push[q.at])/mb, "push-"+q.name+"-MB")
				}
				b.ReportMetric(float64(res.StoreBytes)/mb, "each-store-MB")
				b.ReportMetric(float64(res.Releases), "releases")
				b.ReportMetric(float64(res.MostAssets), "most-assets")
				b.ReportMetric(float64(res.BytesInTree)/mb, "main-tree-MB")
				b.ReportMetric(float64(len(res.Crossings)), "limits-crossed")
				for _, c := range res.Crossings {
					b.Logf("limit crossed: %s", c)
				}
				b.Logf("%s: largest values met: %v", mode.Name, res.Largest)
			}
		})
	}
}

func sorted(xs []int64) []int64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}
