package review

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taxkernel/taxkernelbot/internal/audit"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.md")

func sha(seed string) string {
	return strings.Repeat(seed, 64/len(seed)+1)[:64]
}

func fresh(j, id, sum string, size int64) report.Entry {
	return report.Entry{Jurisdiction: j, ID: id, URL: "https://www." + j + ".example/" + id, Kind: "rates-page",
		Title: "Rates of " + id, Status: state.Fresh, Since: "2026-11-01", HTTPStatus: 200, SHA256: sum, Size: size, ContentType: "text/html"}
}

// mixReports has one source of every kind of change, Diff's and Body's
// own (a pending source fetched for the first time), plus text that must
// stay inert: Markdown in a title, backticks, a mention and a newline in
// a server's detail.
func mixReports() (old, new *report.Report) {
	set := func(e report.Entry, f func(*report.Entry)) report.Entry { f(&e); return e }
	oldE := []report.Entry{
		fresh("de", "de-estg", sha("ab12"), 120_000),
		fresh("de", "de-lstb", sha("cd34"), 5_000),
		fresh("nz", "nz-paye", sha("ef56"), 2_048),
		set(fresh("nz", "nz-rates", sha("0a0b"), 1_000), func(e *report.Entry) {
			e.Status, e.HTTPStatus, e.Detail = state.Failing, 503, "503 Service Unavailable"
		}),
		set(fresh("uk", "uk-gone", "", 0), func(e *report.Entry) { e.Status, e.HTTPStatus, e.Detail = state.Failing, 500, "500" }),
		set(fresh("uk", "uk-new-pending", "", 0), func(e *report.Entry) { e.Status, e.HTTPStatus, e.ContentType = state.Pending, 0, "" }),
		fresh("uk", "uk-old-source", sha("9999"), 10),
		fresh("uk", "uk-redirected", sha("7777"), 10),
		set(fresh("uk", "uk-detail", "", 0), func(e *report.Entry) { e.Status, e.HTTPStatus, e.Detail = state.Failing, 502, "HTTP 502" }),
		fresh("us", "us-robots", sha("1212"), 10),
		set(fresh("us", "us-pending", "", 0), func(e *report.Entry) { e.Status, e.HTTPStatus, e.ContentType = state.Pending, 0, "" }),
	}
	newE := []report.Entry{
		set(oldE[0], func(e *report.Entry) { e.SHA256, e.Size = sha("f00d"), 121_500 }),
		set(oldE[1], func(e *report.Entry) { e.Title = "Lohnsteuer *Tabellen* [2027] <b>|</b> @irs #12" }),
		set(oldE[2], func(e *report.Entry) {
			e.Status, e.HTTPStatus, e.Detail = state.Failing, 429, "429 Too Many Requests: `slow down` @octocat\nsee https://x.example/(status)"
		}),
		set(oldE[3], func(e *report.Entry) { e.Status, e.HTTPStatus, e.Detail, e.SHA256 = state.Fresh, 200, "", sha("0a0c") }),
		set(oldE[4], func(e *report.Entry) { e.Status, e.HTTPStatus, e.Detail = state.Gone, 410, "410 Gone" }),
		set(oldE[5], func(e *report.Entry) {
			e.Status, e.HTTPStatus, e.SHA256, e.Size, e.ContentType = state.Fresh, 200, sha("5e5e"), 3_300_000, "application/pdf"
			e.Audit = &audit.Audit{Date: "2026-12-07", Form: "a PDF", Size: 3_300_000, Title: "Rates 2026 <b>@irs</b> [x](https://x.example)"}
		}),
		set(oldE[7], func(e *report.Entry) { e.FinalURL = "https://www.uk.example/uk-redirected-2026" }),
		set(oldE[8], func(e *report.Entry) { e.Detail = "HTTP 504 after 60s" }),
		set(oldE[9], func(e *report.Entry) {
			e.Status, e.HTTPStatus, e.Detail = state.BlockedRobots, 0, "robots.txt: Disallow: /rates/"
		}),
		oldE[10],
		set(fresh("us", "us-w4", "", 0), func(e *report.Entry) { e.Status, e.HTTPStatus, e.ContentType = state.Pending, 0, "" }),
		set(fresh("us", "us-p15t", sha("1515"), 8_000), func(e *report.Entry) {
			e.URL = "https://www.us.example/pub/p15t.pdf"
			e.Audit = &audit.Audit{Date: "2026-12-07", Form: "an HTML page", Size: 8_000, Title: "Publication 15-T | @octocat",
				FinalURL:   "https://www.us.example/publications/p15t",
				Mismatches: []string{"the address ends in .pdf, which promises a PDF, but the server sent an HTML page: a landing page, not the document? List the document's own address"}}
		}),
	}
	return &report.Report{Sources: oldE}, &report.Report{Sources: newE}
}

// testFileURL links a file of the bot branch as github.Config.FileURL
// does for github.com.
func testFileURL(p string) string {
	if p == "" {
		return ""
	}
	return "https://github.com/octo/coverage/blob/taxkernelbot/update/" + p
}

func testBlobURL() func(string) string { return BlobLink(testFileURL) }

// links are the blob links and the run link, or none for runURL "".
func links(runURL string) Links { return Links{Blob: testBlobURL(), Run: runURL} }

const testRunURL = "https://github.com/octo/coverage/actions/runs/1234"

func TestBodyGolden(t *testing.T) {
	old, new := mixReports()
	changes := report.Diff(old, new)
	kinds := map[string]bool{}
	for _, c := range changes {
		kinds[c.Kind] = true
	}
	for _, k := range []string{report.KindNewSource, report.KindRemovedSource, report.KindChanged, report.KindNewFailure,
		report.KindRecovered, report.KindNewGap, report.KindStatus, report.KindURL, report.KindOther} {
		if !kinds[k] {
			t.Errorf("the mix lacks a change of kind %s", k)
		}
	}
	got := Title(changes) + "\n\n" + Body(changes, SummaryOf(new), links(testRunURL), Details{})
	golden(t, "body.golden.md", got)
}

// The server's text never escapes its code span: no mention, no link, no
// second line.
func TestBodyKeepsServerTextInert(t *testing.T) {
	old, new := mixReports()
	body := Body(report.Diff(old, new), SummaryOf(new), links(""), Details{})
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, "nz-paye") && strings.Contains(line, "429") {
			if !strings.Contains(line, "``429 Too Many Requests: `slow down` @octocat see https://x.example/(status)``") {
				t.Errorf("detail not in one code span: %s", line)
			}
			return
		}
	}
	t.Error("no line for nz-paye")
}

func TestTitle(t *testing.T) {
	ch := func(kind string, old state.Status) report.Change {
		return report.Change{ID: "x", Kind: kind, Old: report.Entry{Status: old}}
	}
	for _, tc := range []struct {
		changes []report.Change
		want    string
	}{
		{nil, "TaxKernelBot: no coverage change"},
		{[]report.Change{ch(report.KindChanged, state.Fresh), ch(report.KindChanged, state.Fresh), ch(report.KindChanged, state.Fresh), ch(report.KindNewFailure, state.Fresh)},
			"TaxKernelBot: 3 documents changed, 1 new failure"},
		{[]report.Change{ch(report.KindRecovered, state.Pending), ch(report.KindRecovered, state.Failing), ch(report.KindRemovedSource, state.Fresh), ch("brand-new-kind", state.Fresh)},
			"TaxKernelBot: 1 recovery, 1 first fetched, 1 source removed, 1 other change"},
	} {
		if got := Title(tc.changes); got != tc.want {
			t.Errorf("Title = %q, want %q", got, tc.want)
		}
	}
}

// manyChanged is n changed documents, plus a few failures and pending
// sources, as a report might hold after a mass re-publication.
func manyChanged(n int) ([]report.Change, Summary) {
	var changes []report.Change
	for i := range n {
		id := fmt.Sprintf("xx-document-with-a-long-identifier-%05d", i)
		o := fresh("xx", id, sha(fmt.Sprintf("%04x", i)), int64(1000+i))
		nw := o
		nw.SHA256, nw.Size = sha(fmt.Sprintf("%04x", i+1)), int64(2000+i)
		changes = append(changes, report.Change{ID: id, Jurisdiction: "xx", Old: o, New: nw, Kind: report.KindChanged})
	}
	for i := range 7 {
		id := fmt.Sprintf("yy-failing-%d", i)
		o := fresh("yy", id, sha("aa"), 10)
		nw := o
		nw.Status, nw.HTTPStatus, nw.Detail = state.Failing, 503, "503 Service Unavailable"
		changes = append(changes, report.Change{ID: id, Jurisdiction: "yy", Old: o, New: nw, Kind: report.KindNewFailure})
	}
	s := Summary{Sources: n + 7 + 300, Fresh: n}
	for i := range 300 {
		s.Pending = append(s.Pending, fmt.Sprintf("zz-pending-%03d", i))
	}
	return changes, s
}

func TestBodyStaysUnderGitHubLimit(t *testing.T) {
	changes, sum := manyChanged(5000)
	body := Body(changes, sum, links(testRunURL), Details{})
	if len(body) > MaxBody {
		t.Fatalf("body is %d bytes, over %d", len(body), MaxBody)
	}
	if len(body) < MaxBody*3/4 {
		t.Errorf("body is only %d bytes: shortened more than it had to be", len(body))
	}
	// Changed documents lost lines and say how many.
	m := regexp.MustCompile(`(?m)^- … and (\d+) more \(see reports/coverage\.md\)$`).FindAllStringSubmatch(body, -1)
	if len(m) == 0 {
		t.Fatal("no '… and N more' line")
	}
	left, _ := strconv.Atoi(m[0][1])
	shown := strings.Count(body, "\n- `xx-document-with-a-long-identifier-")
	if shown+left != 5000 || shown == 0 {
		t.Errorf("%d changed documents shown + %d left out, want 5000 in all and some shown", shown, left)
	}
	// The short section lost nothing; the counts table still has the total.
	if got := strings.Count(body, "\n- `yy-failing-"); got != 7 {
		t.Errorf("%d of 7 new failures shown: the longest section must be cut first", got)
	}
	if !strings.Contains(body, "| Documents that changed | 5000 |") || !strings.Contains(body, "| Still pending (in all) | 300 |") {
		t.Error("counts table lacks the full counts")
	}
	// Every line is whole: each list item ends as an item does.
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "- `xx-") && !strings.HasSuffix(line, "KiB)") {
			t.Errorf("line cut: %q", line)
		}
	}
}

func TestBodyDeterministic(t *testing.T) {
	old, new := mixReports()
	changes := report.Diff(old, new)
	want := Body(changes, SummaryOf(new), links(testRunURL), Details{})
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		r.Shuffle(len(changes), func(i, j int) { changes[i], changes[j] = changes[j], changes[i] })
		if got := Body(changes, SummaryOf(new), links(testRunURL), Details{}); got != want {
			t.Fatalf("body depends on the order of changes:\n%s", cmp.Diff(want, got))
		}
	}
	big, sum := manyChanged(5000)
	if first, second := Body(big, sum, links(""), Details{}), Body(big, sum, links(""), Details{}); first != second {
		t.Error("shortened body differs between two calls")
	}
}

func TestBodyWithoutLinks(t *testing.T) {
	old, new := mixReports()
	body := Body(report.Diff(old, new), SummaryOf(new), Links{}, Details{})
	if strings.Contains(body, "/blob/") || strings.Contains(body, "workflow run") {
		t.Errorf("links without a blobURL or runURL:\n%s", body)
	}
}

func TestCountsTableOmitsZeroRows(t *testing.T) {
	before := &report.Report{Sources: []report.Entry{{Jurisdiction: "uk", ID: "uk-rates", Status: "fresh", SHA256: strings.Repeat("a", 64)}}}
	after := &report.Report{Sources: []report.Entry{{Jurisdiction: "uk", ID: "uk-rates", Status: "fresh", SHA256: strings.Repeat("b", 64)}}}
	body := Body(report.Diff(before, after), SummaryOf(after), links(""), Details{})
	if !strings.Contains(body, "| Documents that changed | 1 |") {
		t.Errorf("no row for the change:\n%s", body)
	}
	if strings.Contains(body, "| New failures |") || strings.Contains(body, "| 0 |\n| Recoveries") {
		t.Errorf("rows of zeros are listed:\n%s", body)
	}
	if !strings.Contains(body, "| Still pending (in all) | 0 |") {
		t.Errorf("the pending total must always be shown:\n%s", body)
	}
}

// A reviewer's body: the text diff of each changed document (the one that
// encodes rules first), its rules, gaps and links, a lasting failure with
// its count of checks, and "gone" under failures.
func TestBodyWithTextDiffsGolden(t *testing.T) {
	set := func(e report.Entry, f func(*report.Entry)) report.Entry { f(&e); return e }
	oldE := []report.Entry{
		fresh("uk", "uk-cookies", sha("aa11"), 900),
		set(fresh("uk", "uk-income-tax-rates", sha("bb22"), 48_000), func(e *report.Entry) {
			e.Encodes = []string{"uk.income-tax.bands"}
			e.Gaps = []string{"Scottish rates not encoded yet"}
		}),
		set(fresh("uk", "uk-ni", sha("cc33"), 10), func(e *report.Entry) {
			e.Status, e.Since, e.HTTPStatus, e.Detail = state.Failing, "2026-11-02", 503, "HTTP 503"
		}),
		fresh("uk", "uk-old-guide", sha("dd44"), 10),
	}
	newE := []report.Entry{
		set(oldE[0], func(e *report.Entry) { e.SHA256, e.Size = sha("aa12"), 905 }),
		set(oldE[1], func(e *report.Entry) { e.SHA256, e.Size = sha("bb23"), 48_010 }),
		oldE[2],
		set(oldE[3], func(e *report.Entry) {
			e.Status, e.Since, e.HTTPStatus, e.Detail = state.Gone, "2026-11-30", 404, "404: the document is gone"
		}),
	}
	textPath := func(sum string) string { return "snapshots/text/v1/" + sum[:2] + "/" + sum + ".txt" }
	rates := textview.Diff(textPath(sha("bb22")), textPath(sha("bb23")),
		"Income Tax rates\nBand | Taxable income | Rate\nPersonal Allowance | Up to £12,570 | 0%\nBasic rate | £12,571 to £50,270 | 20%\nHigher rate | £50,271 to £125,140 | 40%\n",
		"Income Tax rates\nBand | Taxable income | Rate\nPersonal Allowance | Up to £12,570 | 0%\nBasic rate | £12,571 to £50,070 | 20%\nHigher rate | £50,071 to £125,140 | 40%\n",
		textview.DiffOptions{})
	cookies := textview.Diff(textPath(sha("aa11")), textPath(sha("aa12")), "Cookies\nWe use 3 cookies.\n", "Cookies\nWe use 4 cookies.\n", textview.DiffOptions{})
	d := Details{
		Texts: map[string]TextChange{
			"uk-income-tax-rates": {Diff: rates, OldPath: textPath(sha("bb22")), NewPath: textPath(sha("bb23"))},
			"uk-cookies":          {Diff: cookies, OldPath: textPath(sha("aa11")), NewPath: textPath(sha("aa12"))},
		},
		FailedChecks: map[string]int{"uk-ni": 14, "uk-old-guide": 1},
	}
	newR := &report.Report{Sources: newE}
	changes := report.Diff(&report.Report{Sources: oldE}, newR)
	got := Title(changes) + "\n\n" + Body(changes, SummaryOf(newR), Links{Blob: testBlobURL(), File: testFileURL, Run: testRunURL}, d)
	golden(t, "body_text.golden.md", got)
	for _, must := range []string{"failing since 2026-11-02, 14 checks", "**£50,270** → **£50,070**", "### Still failing (1)"} {
		if !strings.Contains(got, must) {
			t.Errorf("body lacks %q", must)
		}
	}
	if strings.Index(got, "uk-income-tax-rates") > strings.Index(got, "uk-cookies") {
		t.Error("the changed document that encodes rules is not first")
	}
}

// Hundreds of changed documents with long text diffs still fit GitHub's
// limit, the documents that encode rules shown first.
func TestBodyWithTextDiffsStaysUnderGitHubLimit(t *testing.T) {
	var oldE, newE []report.Entry
	d := Details{Texts: map[string]TextChange{}}
	var oldText, newText strings.Builder
	for i := range 200 {
		fmt.Fprintf(&oldText, "Band %d | £%d\n", i, 1000+i)
		fmt.Fprintf(&newText, "Band %d | £%d\n", i, 2000+i)
	}
	diff := textview.Diff("old.txt", "new.txt", oldText.String(), newText.String(), textview.DiffOptions{})
	for i := range 300 {
		id := fmt.Sprintf("xx-doc-%03d", i)
		e := fresh("xx", id, sha(fmt.Sprintf("%04x", i)), 100)
		if i%100 == 99 {
			e.Encodes = []string{"xx.rule"}
		}
		oldE = append(oldE, e)
		n := e
		n.SHA256 = sha(fmt.Sprintf("%04x", i+5000))
		newE = append(newE, n)
		d.Texts[id] = TextChange{Diff: diff}
	}
	newR := &report.Report{Sources: newE}
	changes := report.Diff(&report.Report{Sources: oldE}, newR)
	got := Body(changes, SummaryOf(newR), Links{Blob: testBlobURL(), File: testFileURL, Run: testRunURL}, d)
	if len(got) > MaxBody {
		t.Fatalf("body is %d bytes, past %d", len(got), MaxBody)
	}
	first := strings.Index(got, "\n- `")
	if first < 0 || !strings.HasPrefix(got[first+1:], "- `xx-doc-099`") {
		t.Errorf("the first changed document is not one that encodes rules:\n%.300s", got[max(first, 0):])
	}
	if !strings.Contains(got, "more (") {
		t.Error("the shortened section does not say how many it left out")
	}
}

// TestBodyPointsPastTheDiffView: a pull request that changes more files
// than GitHub's diff view shows sends the reader to the report on the
// branch; a small one says nothing of it.
func TestBodyPointsPastTheDiffView(t *testing.T) {
	fileURL := func(p string) string { return "https://github.example/o/r/blob/abc/" + p }
	big := Body(nil, Summary{}, Links{File: fileURL}, Details{Files: 1200})
	if !strings.Contains(big, "changes 1200 files") || !strings.Contains(big, "(https://github.example/o/r/blob/abc/reports/coverage.md)") {
		t.Errorf("the body of a 1,200-file pull request does not link the report:\n%s", big)
	}
	if small := Body(nil, Summary{}, Links{File: fileURL}, Details{Files: 40}); strings.Contains(small, "diff view") {
		t.Errorf("a 40-file pull request speaks of the diff view:\n%s", small)
	}
}

// TestMaxBodyIsTheClients: the body keeps to the limit the client checks.
func TestMaxBodyIsTheClients(t *testing.T) {
	if MaxBody != github.MaxBody {
		t.Errorf("review.MaxBody = %d, github.MaxBody = %d", MaxBody, github.MaxBody)
	}
}

// TestOtherChangesSayWhatChanged: a source whose only change is that it
// became noisy, stopped being noisy, or got another suggested view is
// listed with what changed, never a bare "changed (other)".
func TestOtherChangesSayWhatChanged(t *testing.T) {
	plain := fresh("uk", "uk-news", sha("ab"), 10)
	noisy := plain
	noisy.Noisy = &report.Noisy{Since: "2026-11-20", Drop: []string{".banner"}, Matched: true}
	other := plain
	other.Noisy = &report.Noisy{Since: "2026-11-20", Drop: []string{".clock"}, Matched: true}
	for _, tc := range []struct {
		name     string
		old, new report.Entry
		want     string
	}{
		{"became noisy", plain, noisy, "`uk-news` (uk) Rates of uk-news: became noisy since 2026-11-20: new bytes at each fetch, the same text (see Noisy sources in reports/coverage.md)"},
		{"no longer noisy", noisy, plain, "`uk-news` (uk) Rates of uk-news: no longer noisy"},
		{"another suggestion", noisy, other, "`uk-news` (uk) Rates of uk-news: another view suggested for its noise (see Noisy sources in reports/coverage.md)"},
	} {
		changes := report.Diff(&report.Report{Sources: []report.Entry{tc.old}}, &report.Report{Sources: []report.Entry{tc.new}})
		if len(changes) != 1 || changes[0].Kind != report.KindOther {
			t.Fatalf("%s: changes %+v, want one of kind other", tc.name, changes)
		}
		body := Body(changes, Summary{}, Links{}, Details{})
		if !strings.Contains(body, "### Other changes (1)\n\n- "+tc.want+"\n") {
			t.Errorf("%s: want the line %q in:\n%s", tc.name, tc.want, body)
		}
		if strings.Contains(body, "changed (") {
			t.Errorf("%s: a bare changed (kind):\n%s", tc.name, body)
		}
	}
}

// TestOtherChangesNameEveryField: a change of a field the body has no
// words for is named by its field in the report, not hidden behind the
// change's kind.
func TestOtherChangesNameEveryField(t *testing.T) {
	o := fresh("uk", "uk-news", sha("ab"), 10)
	n := o
	n.Jurisdiction = "gb"
	body := Body([]report.Change{{ID: o.ID, Jurisdiction: "gb", Old: o, New: n, Kind: report.KindOther}}, Summary{}, Links{}, Details{})
	if !strings.Contains(body, ": changed jurisdiction\n") {
		t.Errorf("the jurisdiction is not named:\n%s", body)
	}
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("body differs from %s (-want +got; go test -update rewrites it):\n%s", path, d)
	}
}

// A first fetch that does not look like what its entry promised is
// flagged where a reviewer reads first, and under its source; what the
// server wrote in its title stays inert.
func TestBodyFlagsFirstFetchMismatches(t *testing.T) {
	old, new := mixReports()
	body := Body(report.Diff(old, new), SummaryOf(new), links(""), Details{})
	head, _, _ := strings.Cut(body, "### ")
	if !strings.Contains(head, "> [!WARNING]\n> 1 source fetched for the first time does not look like what its entry promised") {
		t.Errorf("no warning above the sections:\n%s", head)
	}
	for _, want := range []string{
		"found an HTML page titled “Publication 15-T \\| \\@&#8203;octocat”",
		"  - :warning: **Check the address:** the address ends in .pdf, which promises a PDF, but the server sent an HTML page",
		"found a PDF titled “Rates 2026",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<b>") || strings.Contains(body, "[x](https://x.example)") {
		t.Errorf("a title's markup renders:\n%s", body)
	}
	// Without a mismatch, no warning.
	new.Sources = new.Sources[:len(new.Sources)-1]
	if body := Body(report.Diff(old, new), SummaryOf(new), links(""), Details{}); strings.Contains(body, "[!WARNING]") {
		t.Errorf("a warning with no mismatch:\n%s", body)
	}
}
