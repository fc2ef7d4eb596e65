package public_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// decade is a synthetic record of 10,000 sources over 10 years, spread
// over 8 jurisdictions and 500 hosts: most sources change every one to
// twelve months, one in fifty every week; each version's text is a
// 60-line table in which one row's figure moved.
type decade struct {
	set      *manifest.Set
	ix       *store.Index
	rep      *report.Report
	versions map[store.Sum][2]int // sum → source index, version
	last     []store.Sum          // each source's newest sum
	day      []time.Time          // each source's newest version's day
}

const (
	decadeSources = 10_000
	decadeHosts   = 500
)

var decadeStart = time.Date(2016, 12, 1, 0, 0, 0, 0, time.UTC)

func decadeText(src, version int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Rates and thresholds, source %d\n", src)
	for row := range 60 {
		v := row * 1000
		if row == version%60 {
			v += version
		}
		fmt.Fprintf(&b, "Band %d: income above £%d taxed at %d%%\n", row, v, 10+row%30)
	}
	return b.String()
}

func newDecade(b testing.TB) *decade {
	return newRecord(b, decadeSources, decadeHosts, []string{"au", "ca", "de", "es", "ie", "nz", "uk", "us"}, 10)
}

// newRecord is a synthetic record of n sources on hosts hosts, spread
// over jurisdictions, over years.
func newRecord(b testing.TB, n, hosts int, jurisdictions []string, years int) *decade {
	b.Helper()
	dir := b.TempDir()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte("user_agent: \"TaxKernelBot/1.0 (+https://taxkernel.com/bot)\"\nfrom: contact@taxkernel.com\n"), 0o644))
	for j, code := range jurisdictions {
		var m strings.Builder
		fmt.Fprintf(&m, "jurisdiction: %s\nname: Jurisdiction %s\ntimezone: UTC\nsources:\n", code, strings.ToUpper(code))
		for i := j; i < n; i += len(jurisdictions) {
			fmt.Fprintf(&m, "  - id: %s-doc-%05d\n    url: https://h%03d.example.gov/docs/%05d.html\n    kind: rates-page\n    title: Rates and thresholds %05d\n", code, i, i%hosts, i, i)
		}
		must(os.WriteFile(filepath.Join(dir, code+".yaml"), []byte(m.String()), 0o644))
	}
	set, diags := manifest.Load(dir)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	d := &decade{set: set, ix: store.NewIndex(), versions: map[store.Sum][2]int{}, last: make([]store.Sum, len(set.Sources)), day: make([]time.Time, len(set.Sources))}
	end := decadeStart.AddDate(years, 0, 0)
	for i, src := range set.Sources {
		every := 30 + (i%12)*30
		if i%50 == 0 {
			every = 7
		}
		version := 0
		for day := decadeStart.AddDate(0, 0, i%every); day.Before(end); day = day.AddDate(0, 0, every) {
			d.add(i, src.ID, version, day)
			version++
		}
	}
	st := state.New()
	for i, src := range set.Sources {
		s := st.Source(src.ID)
		s.SetStatus(state.Fresh, d.day[i])
		s.SHA256 = d.last[i]
		st.PutSource(src.ID, s)
	}
	d.rep = report.Build(set, st)
	counts := func(host, since, until string) (map[string]int, error) {
		from, _ := time.Parse(time.DateOnly, since)
		out := map[string]int{}
		for k := 0; k < 28; k += 3 {
			out[from.AddDate(0, 0, k).Format(time.DateOnly)] = 20 + len(host)%7 + k
		}
		return out, nil
	}
	if err := public.Observe(d.rep, set, st, counts, end); err != nil {
		b.Fatal(err)
	}
	return d
}

// add records version of source i on day.
func (d *decade) add(i int, id string, version int, day time.Time) {
	text := decadeText(i, version)
	sum := sumOf([]byte(text))
	d.versions[sum] = [2]int{i, version}
	d.ix.Add(id, store.Entry{SHA256: sum, Size: int64(len(text)), ContentType: "text/plain", FinalURL: d.set.Sources[i].URL, FirstSeen: day.Format(time.DateOnly)}, d.last[i])
	d.last[i], d.day[i] = sum, day
}

func (d *decade) input() public.SiteInput {
	return public.SiteInput{
		Feed: public.FeedInput{Set: d.set, Index: d.ix, Text: func(sum, _ string) (string, bool) {
			v, ok := d.versions[store.Sum(sum)]
			if !ok {
				return "", false
			}
			return decadeText(v[0], v[1]), true
		}},
		Report: d.rep,
		BytesURL: func(sum string) string {
			return "https://github.com/taxkernel/taxkernelbot/releases/download/blobs-2026-12/" + sum
		},
	}
}

// BenchmarkSiteDecade builds the site of 10,000 sources over 10 years,
// writes it, then builds it again after 1% of the sources changed, given
// the first build's inputs: it reports the site's size (which GitHub
// Pages holds to 1 GB: the pages link the bytes, never hold them), its
// files, and the time of each build, rendering and writing; and the size
// of the feeds and change documents published beside it, and of all.
//
//	go test -run '^$' -bench BenchmarkSiteDecade -benchtime 1x ./internal/public/
func BenchmarkSiteDecade(b *testing.B) {
	d := newDecade(b)
	rules := public.RulesOf(d.set)
	entries := 0
	for _, src := range d.set.Sources {
		entries += len(d.ix.Entries(src.ID))
	}
	for b.Loop() {
		b.ReportMetric(float64(entries), "versions")
		dir := b.TempDir()
		start := time.Now()
		files, err := rules.Site(d.input())
		if err != nil {
			b.Fatal(err)
		}
		fullRender := time.Since(start)
		if _, err := public.Write(dir, files...); err != nil {
			b.Fatal(err)
		}
		full := time.Since(start)
		size, count := 0, 0
		largest := map[string]int{} // page type → its largest page
		err = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			info, err := e.Info()
			size += int(info.Size())
			count++
			if kind := filepath.Base(filepath.Dir(path)); strings.HasSuffix(path, ".html") {
				largest[kind] = max(largest[kind], int(info.Size()))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, public.SiteInputs))
		if err != nil {
			b.Fatal(err)
		}
		prior, err := public.ParseSiteInputs(data)
		if err != nil {
			b.Fatal(err)
		}

		// A day on which 1% of the sources changed.
		b.StopTimer()
		day := decadeStart.AddDate(10, 0, 1)
		for i := 0; i < len(d.set.Sources); i += 100 {
			d.add(i, d.set.Sources[i].ID, 1_000_000+i, day)
		}
		b.StartTimer()
		start = time.Now()
		in := d.input()
		in.Prior = prior
		again, err := rules.Site(in)
		if err != nil {
			b.Fatal(err)
		}
		incrementalRender := time.Since(start)
		wrote, err := public.Write(dir, again...)
		if err != nil {
			b.Fatal(err)
		}
		incremental := time.Since(start)
		b.ReportMetric(float64(size)/1e6, "site-MB")
		feeds, changes := published(b, d, rules)
		b.ReportMetric(float64(feeds)/1e6, "feeds-MB")
		b.ReportMetric(float64(changes)/1e6, "changes-MB")
		// What GitHub Pages serves of the record (the page, the rules and
		// the coverage report beside it weigh some kilobytes).
		b.ReportMetric(float64(size+feeds+changes)/1e6, "published-MB")
		b.ReportMetric(float64(count), "files")
		b.ReportMetric(float64(largest["sources"])/1024, "largest-source-KiB")
		b.ReportMetric(float64(largest["jurisdictions"])/1024, "largest-jurisdiction-KiB")
		b.ReportMetric(float64(largest["hosts"])/1024, "largest-host-KiB")
		b.ReportMetric(float64(largest[public.SiteDir])/1024, "index-KiB")
		b.ReportMetric(full.Seconds(), "full-build-s")
		b.ReportMetric(incremental.Seconds(), "incremental-build-s")
		b.ReportMetric(fullRender.Seconds(), "full-render-s")
		b.ReportMetric(incrementalRender.Seconds(), "incremental-render-s")
		b.ReportMetric(float64(len(again)), "incremental-rendered")
		b.ReportMetric(float64(len(wrote)), "incremental-written")
	}
}

// published renders the feeds and change documents beside the site for
// the whole record and returns their sizes in bytes.
func published(b *testing.B, d *decade, rules public.Rules) (feeds, changes int) {
	b.StopTimer()
	defer b.StartTimer()
	files, err := rules.Feeds(d.input().Feed)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(f.Name, changedoc.Dir+"/") {
			changes += len(f.Data)
		} else {
			feeds += len(f.Data)
		}
	}
	return feeds, changes
}
