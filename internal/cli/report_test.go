package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// reportsTree reads every file under dir, by slash path.
func reportsTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	must(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

func (w *workspace) reportCmd(now time.Time, check bool) (int, string) {
	w.t.Helper()
	var out bytes.Buffer
	err := runReport(ctx, reportOptions{paths: w.paths, Check: check, Clock: clock.NewFake(now), IO: IO{Out: &out, Err: &out, Getenv: func(string) string { return "" }}})
	if err != nil {
		out.WriteString(err.Error())
	}
	return exitCode(err), out.String()
}

// TestReportOnACloneWritesWhatIsCommitted: the reports a run committed
// are written again, byte for byte, by report in a clone that has no
// state, on any later day: what the hosts page counts and the statuses
// are the committed report's, not an empty state's, and its weeks and
// security.txt's Expires follow the report's week, not the wall clock.
// Before, a clone's report put every source back to pending, dropped
// the robots.txt states and request counts, and moved the weeks.
func TestReportOnACloneWritesWhatIsCommitted(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nDisallow: /private\n"),
		"/rates":      text("rates"),
		"/missing":    status(404),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""}, src{"t-missing", a.url("/missing"), ""}, src{"t-private", a.url("/private"), ""})
	if code := w.run(ctx); code != ExitOK && code != ExitFailures {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	// The pull request of a week later: its counts are in the last
	// complete week.
	later := time.Now().AddDate(0, 0, 7)
	if code, out := w.reportCmd(later, false); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	committed := reportsTree(t, w.Reports)
	hosts := committed["hosts.md"]
	if !strings.Contains(hosts, "read, obeyed; 1 source(s) disallowed | 0 | 0 | 0 | 3 |") {
		t.Fatalf("hosts.md before the clone lacks the run's robots.txt state and its 3 requests:\n%s", hosts)
	}
	if !strings.Contains(committed["coverage.json"], `"status":"fresh"`) {
		t.Fatalf("coverage.json lacks the fresh source:\n%s", committed["coverage.json"])
	}

	// A clone: the same files, no state. Checked and written on later
	// days, report holds what is committed.
	must(t, os.RemoveAll(w.State))
	for _, day := range []time.Time{later, later.AddDate(0, 0, 9), later.AddDate(1, 0, 0)} {
		if code, out := w.reportCmd(day, true); code != ExitOK || !strings.Contains(out, "is what report writes") {
			t.Fatalf("report --check on %s in a clone: exit %d\n%s", day.Format(time.DateOnly), code, out)
		}
		if code, out := w.reportCmd(day, false); code != ExitOK || !strings.Contains(out, "unchanged") {
			t.Fatalf("report on %s in a clone: exit %d\n%s", day.Format(time.DateOnly), code, out)
		}
		if got := reportsTree(t, w.Reports); len(got) != len(committed) {
			t.Fatalf("report on %s: %d files, %d committed", day.Format(time.DateOnly), len(got), len(committed))
		} else {
			for name, data := range committed {
				if got[name] != data {
					t.Errorf("report on %s in a clone rewrote %s:\n%s", day.Format(time.DateOnly), name, got[name])
				}
			}
		}
	}
}

// TestReportCheckCatchesManifestsAheadOfReports: a source added to the
// manifests, or removed from them, leaves the pages rendered for the
// manifests before, which check lets stand (they are rendered where they
// are published); a report that does not say which manifests it was
// rendered for is held to these, named file by file, with the command
// that fixes it; report then writes what is missing and removes the
// left-over feed.
func TestReportCheckCatchesManifestsAheadOfReports(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	public := "user_agent: \"TaxKernelBot/1.0 (+https://taxkernel.com/bot)\"\nfrom: contact@taxkernel.com\n"
	w := newWorkspace(t, public, "", src{"t-a", "https://a.example/rates", ""}, src{"t-b", "https://b.example/rates", ""})
	if code, out := w.reportCmd(now, false); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	if code, out := w.reportCmd(now, true); code != ExitOK {
		t.Fatalf("report --check right after report: exit %d\n%s", code, out)
	}

	// t-b leaves, t-c and its host arrive.
	w.writeManifest("", src{"t-a", "https://a.example/rates", ""}, src{"t-c", "https://c.example/rates", ""})
	if code, out := w.reportCmd(now, true); code != ExitOK || !strings.Contains(out, "rendered for other manifests") {
		t.Fatalf("report --check with a changed manifest: exit %d, want %d\n%s", code, ExitOK, out)
	}
	jsonPath := filepath.Join(w.Reports, "coverage.json")
	data, err := os.ReadFile(jsonPath)
	must(t, err)
	unnamed := regexp.MustCompile(`(?m)^  "manifests": "[0-9a-f]{64}",\n`).ReplaceAll(data, nil)
	if bytes.Equal(unnamed, data) {
		t.Fatalf("coverage.json does not name the manifests it was rendered for:\n%s", data)
	}
	must(t, os.WriteFile(jsonPath, unnamed, 0o644))
	code, out := w.reportCmd(now, true)
	if code != ExitFailures {
		t.Fatalf("report --check with a changed manifest: exit %d, want %d\n%s", code, ExitFailures, out)
	}
	for _, want := range []string{
		filepath.Join(w.Reports, "coverage.json") + " differs",
		filepath.Join(w.Reports, "hosts.md") + " differs",
		filepath.Join(w.Reports, "POLICY.md") + " differs",
		filepath.Join(w.Reports, "feeds/sources/t-c.atom") + " differs",
		filepath.Join(w.Reports, "feeds/sources/t-b.atom") + " is left over",
		"run `taxkernelbot report` and commit",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report --check says nothing of %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Reports, "feeds/sources/t-b.atom")); err != nil {
		t.Fatalf("--check removed a file: %v", err)
	}

	// t-b's feed, its page and TimeMap on the site, and b.example's page.
	if code, out := w.reportCmd(now, false); code != ExitOK || !strings.Contains(out, "4 removed") {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	for _, name := range []string{"feeds/sources/t-b.atom", "site/sources/t-b.html", "site/sources/t-b.wlnk", "site/hosts/b.example.html"} {
		if _, err := os.Stat(filepath.Join(w.Reports, name)); !os.IsNotExist(err) {
			t.Errorf("%s of the removed source is still there: %v", name, err)
		}
	}
	hosts, err := os.ReadFile(filepath.Join(w.Reports, "hosts.md"))
	must(t, err)
	if !strings.Contains(string(hosts), "`c.example`") || strings.Contains(string(hosts), "`b.example`") {
		t.Errorf("hosts.md does not follow the manifests:\n%s", hosts)
	}
	if !strings.Contains(string(hosts), "| any time | not contacted yet | 0 | 0 | 0 | 0 |") {
		t.Errorf("hosts.md does not say the new host was never contacted:\n%s", hosts)
	}
	for _, page := range []string{"POLICY.md", "index.html"} {
		data, err := os.ReadFile(filepath.Join(w.Reports, page))
		must(t, err)
		if !strings.Contains(string(data), "c.example") {
			t.Errorf("%s leaves out the new host c.example", page)
		}
	}
	if code, out := w.reportCmd(now, true); code != ExitOK {
		t.Fatalf("report --check after report: exit %d\n%s", code, out)
	}
}

// TestRepositoryReportsAreWhatReportWrites: the reports committed in this
// repository are what report writes for its manifests, as CI checks.
func TestRepositoryReportsAreWhatReportWrites(t *testing.T) {
	root, err := filepath.Abs("../..")
	must(t, err)
	code, stdout, stderr := runMain(t, nil, "report", "--check",
		"--manifests", filepath.Join(root, "manifests"), "--snapshots", filepath.Join(root, "snapshots"),
		"--reports", filepath.Join(root, "reports"), "--state", filepath.Join(t.TempDir(), "no-state"))
	if code != ExitOK {
		t.Fatalf("report --check on the repository: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestARunsOutputsAreWhatReportWrites: one rendering for a run's end and
// for report: right after a run (its feeds written while it waited, the
// rest at its end), report with the run's state finds nothing to change.
func TestARunsOutputsAreWhatReportWrites(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nDisallow: /private\n"),
		"/rates":      text("rates"),
		"/table":      text("table"),
		"/missing":    status(404),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""}, src{"t-table", a.url("/table"), ""}, src{"t-missing", a.url("/missing"), ""}, src{"t-private", a.url("/private"), ""})
	for range 2 {
		if code := w.run(ctx); code != ExitOK && code != ExitFailures {
			t.Fatalf("run: exit %d\n%s", code, w.out.String())
		}
		if code, out := w.reportCmd(time.Now(), true); code != ExitOK || !strings.Contains(out, "is what report writes") {
			t.Fatalf("report --check after a run: exit %d\n%s", code, out)
		}
	}
}

// TestReportPagesPublishesTheFeedsWindowOfChangeDocuments: of a source
// that changed more often than the feeds keep, report writes the change
// documents their entries link (the source is alone: the feed of every
// document shows the most of its changes); one it no longer renders (an
// older change, which an earlier build linked) stays in reports/, as
// --check agrees, and is left out of the site report --pages writes for
// GitHub Pages, which holds what report renders.
func TestReportPagesPublishesTheFeedsWindowOfChangeDocuments(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	policy := "user_agent: \"TaxKernelBot/1.0 (+https://taxkernel.com/bot)\"\nfrom: contact@taxkernel.com\n"
	w := newWorkspace(t, policy, "", src{"t-a", "https://a.example/rates", ""})
	ix := store.NewIndex()
	var prior store.Sum
	day := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	var sums []store.Sum
	for i := range public.FeedEntries + 11 { // 10 changes more than a feed keeps
		data := fmt.Appendf(nil, "rates, version %d", i)
		sum := sha256.Sum256(data)
		s := store.Sum(hex.EncodeToString(sum[:]))
		ix.Add("t-a", store.Entry{SHA256: s, Size: int64(len(data)), ContentType: "text/plain", FinalURL: "https://a.example/rates", FirstSeen: day.AddDate(0, 0, 7*i).Format(time.DateOnly)}, prior)
		prior = s
		sums = append(sums, s)
	}
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	oldest := changedoc.Path("t-a", day.AddDate(0, 0, 7).Format(time.DateOnly), sums[0], sums[1])
	must(t, os.MkdirAll(filepath.Dir(filepath.Join(w.Reports, oldest)), 0o755))
	must(t, os.WriteFile(filepath.Join(w.Reports, oldest), []byte("{}\n"), 0o644))

	pages := filepath.Join(t.TempDir(), "_site")
	var out bytes.Buffer
	err := runReport(ctx, reportOptions{paths: w.paths, Pages: pages, Clock: clock.NewFake(now), IO: IO{Out: &out, Err: &out, Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatalf("report --pages: %v\n%s", err, out.String())
	}
	held, err := os.ReadDir(filepath.Join(w.Reports, changedoc.Dir, "t-a"))
	must(t, err)
	if len(held) != public.FeedEntries+1 {
		t.Errorf("reports/ holds %d change documents of the source, want %d: the %d the feed of every document links and the older one", len(held), public.FeedEntries+1, public.FeedEntries)
	}
	if code, out := w.reportCmd(now, true); code != ExitOK {
		t.Errorf("report --check with an older change document kept: exit %d\n%s", code, out)
	}
	site := reportsTree(t, pages)
	docs := 0
	for name := range site {
		if strings.HasPrefix(name, changedoc.Dir+"/") {
			docs++
		}
	}
	if docs != public.FeedEntries {
		t.Errorf("the site holds %d change documents of the source, want the %d the feed of every document links", docs, public.FeedEntries)
	}
	if _, ok := site[oldest]; ok {
		t.Errorf("the site publishes %s, which no feed links", oldest)
	}
	for name, data := range reportsTree(t, w.Reports) {
		if site[name] != data && name != oldest {
			t.Errorf("the site's %s is not what reports/ holds", name)
		}
	}
	if _, ok := site[".well-known/security.txt"]; !ok || site["index.html"] == "" {
		t.Errorf("the site lacks its page or security.txt: %d files", len(site))
	}
}
