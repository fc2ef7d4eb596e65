package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadFiles writes files into a temp directory and loads it.
func loadFiles(t *testing.T, files map[string]string) (string, *Set, Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Dir(path), filepath.Base(path), content)
	}
	set, diags := Load(dir)
	return dir, set, diags
}

func diagStrings(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

const uk = "jurisdiction: uk\nname: UK\ntimezone: UTC\nsources:\n  - {id: uk-a, url: https://www.gov.uk/a, kind: rates-page, title: A}\n"

func TestPolicyLooseningNeedsAReason(t *testing.T) {
	loose := `delay: {min: 1s, max: 1s}
daily_cap: 100000
pause_after_403: 1000
timeout: 10m
max_body: 90MiB
backoff_max: 1m
`
	_, _, diags := loadFiles(t, map[string]string{"policy.yaml": loose, "uk.yaml": uk})
	got := diagStrings(diags)
	for _, want := range []string{
		"policy.yaml:1: delay {min: 1s, max: 1s} is faster than the built-in {min: 3s, max: 5s}",
		"policy.yaml:2: daily_cap 100000 is higher than the built-in 200",
		"policy.yaml:3: pause_after_403 1000 is higher than the built-in 3",
		"policy.yaml:4: timeout 10m is longer than the built-in 1m",
		"policy.yaml:5: max_body 90 MiB is larger than the built-in 50 MiB",
		"policy.yaml:6: backoff_max 1m is shorter than the built-in 30m",
		`add a reason for it, e.g. reasons: {daily_cap: "owner agreed by email 2026-11-02"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
	if !diags.HasErrors() {
		t.Error("a loosened policy without reasons is not an error")
	}

	// With a reason for each key it loads; a reason for a key that is not
	// loosened is a warning, an empty one an error.
	withReasons := loose + `reasons:
  delay: "agreed with the ops team by email, 2026-11-02"
  daily_cap: "owner agreed by email 2026-11-02"
  pause_after_403: "owner asked for it by email 2026-11-02"
  timeout: "large PDFs on a slow host, email 2026-11-02"
  max_body: "the gazette is 80 MB, email 2026-11-02"
  backoff_max: "owner asked for quick retries, email 2026-11-02"
`
	_, set, diags := loadFiles(t, map[string]string{"policy.yaml": withReasons, "uk.yaml": uk})
	if set == nil {
		t.Fatalf("a loosened policy with reasons does not load:\n%s", diagStrings(diags))
	}
	_, _, diags = loadFiles(t, map[string]string{"policy.yaml": "timeout: 30s\nreasons:\n  timeout: \"slow host\"\n  robots_tl: \"typo\"\n", "uk.yaml": uk})
	got = diagStrings(diags)
	for _, want := range []string{
		`policy.yaml:3: warning: reasons has timeout, which is not loosened`,
		`policy.yaml:4: reasons has "robots_tl", which is not a key that can loosen the policy`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}

	// Tests and the demo (private networks, loopback only) are exempt.
	private := "allow_private_networks: true\ndelay: {min: 5ms, max: 10ms}\ndaily_cap: 1000\n"
	local := "jurisdiction: uk\nname: UK\ntimezone: UTC\nsources:\n  - {id: uk-a, url: http://127.0.0.1:8080/a, kind: rates-page, title: A}\n"
	if _, set, diags := loadFiles(t, map[string]string{"policy.yaml": private, "uk.yaml": local}); set == nil {
		t.Errorf("a private-network policy is held to the public defaults:\n%s", diagStrings(diags))
	}
}

func TestRobotsOverridePermissionNamesChannelAndDate(t *testing.T) {
	manifest := func(perm string) string {
		return "jurisdiction: uk\nname: UK\ntimezone: UTC\nhosts:\n  www.gov.uk:\n    robots_override:\n      permission: " + perm + "\nsources:\n  - {id: uk-a, url: https://www.gov.uk/a, kind: rates-page, title: A}\n"
	}
	for perm, want := range map[string]string{
		`"ok"`:                       "uk.yaml:7: host www.gov.uk robots_override permission \"ok\" does not say how and when it was given",
		`"email from the webmaster"`: "names no date",
		`"2026-10-01"`:               "names no channel",
		`"email from the webmaster, 2026-10-01, ref 4411"`: "",
		`"letter from the site owner, 1 October 2026"`:     "",
	} {
		_, _, diags := loadFiles(t, map[string]string{"uk.yaml": manifest(perm)})
		got := diagStrings(diags)
		if want == "" {
			if diags.HasErrors() {
				t.Errorf("permission %s refused:\n%s", perm, got)
			}
			continue
		}
		if !strings.Contains(got, want) || !diags.HasErrors() {
			t.Errorf("permission %s: want an error containing %q, got:\n%s", perm, want, got)
		}
	}
}

func TestDuplicateURLsAfterNormalisation(t *testing.T) {
	ie := "jurisdiction: ie\nname: IE\ntimezone: UTC\nsources:\n  - {id: ie-a, url: %s, kind: rates-page, title: A}\n"
	for _, u := range []string{"https://www.gov.uk/a/", "HTTPS://WWW.GOV.UK:443/a", "https://www.Gov.uk/a"} {
		_, _, diags := loadFiles(t, map[string]string{"uk.yaml": uk, "ie.yaml": fmt.Sprintf(ie, u)})
		if got := diagStrings(diags); !strings.Contains(got, "is already listed as") {
			t.Errorf("%s and https://www.gov.uk/a are not reported as the same URL:\n%s", u, got)
		}
	}
}

func TestSubfolderIsAnError(t *testing.T) {
	_, _, diags := loadFiles(t, map[string]string{"uk.yaml": uk, "eu/fr.yaml": strings.ReplaceAll(uk, "uk", "fr")})
	if got := diagStrings(diags); !diags.HasErrors() || !strings.Contains(got, "eu/fr.yaml:0: manifests are read from") {
		t.Errorf("a manifest in a subfolder is not an error:\n%s", got)
	}
	// A subfolder without a manifest is named itself.
	_, _, diags = loadFiles(t, map[string]string{"uk.yaml": uk, "drafts/notes.md": "x"})
	if got := diagStrings(diags); !diags.HasErrors() || !strings.Contains(got, "drafts:0: manifests are read from this directory only") {
		t.Errorf("a subfolder is not an error:\n%s", got)
	}
}

// TestSubfolderNamesEachFile: each manifest in a subfolder is named, with
// where it belongs, not only the folder.
func TestSubfolderNamesEachFile(t *testing.T) {
	_, _, diags := loadFiles(t, map[string]string{"uk.yaml": uk, "eu/fr.yaml": strings.ReplaceAll(uk, "uk", "fr"), "eu/de.yaml": strings.ReplaceAll(uk, "uk", "de"), "eu/old/it.yml": strings.ReplaceAll(uk, "uk", "it")})
	got := diagStrings(diags)
	for _, f := range []string{"fr", "de"} {
		if !strings.Contains(got, "eu/"+f+".yaml:0: manifests are read from") || !strings.Contains(got, "move it up to") || !strings.Contains(got, f+".yaml") {
			t.Errorf("eu/%s.yaml is not named:\n%s", f, got)
		}
	}
	if !strings.Contains(got, "eu/old/it.yml:0:") {
		t.Errorf("a manifest two folders down is not named:\n%s", got)
	}
}

func TestIDWithoutJurisdictionPrefixWarns(t *testing.T) {
	m := strings.Replace(uk, "id: uk-a", "id: income-tax", 1)
	_, set, diags := loadFiles(t, map[string]string{"uk.yaml": m})
	if got := diagStrings(diags); set == nil || !strings.Contains(got, `uk.yaml:5: warning: source id "income-tax" does not start with "uk-"`) {
		t.Errorf("want a warning only:\n%s", got)
	}
}

func TestRecheckNeverOnlyForKindsThatNeverChange(t *testing.T) {
	m := "jurisdiction: uk\nname: UK\ntimezone: UTC\nsources:\n  - id: uk-a\n    url: https://www.gov.uk/a\n    kind: rates-page\n    title: A\n    recheck: never\n  - id: uk-b\n    url: https://www.gov.uk/b\n    kind: gazette\n    title: B\n    recheck: never\n  - id: uk-c\n    url: https://www.gov.uk/c\n    kind: legislation\n    title: C as enacted\n    recheck: never\n"
	_, _, diags := loadFiles(t, map[string]string{"uk.yaml": m})
	got := diagStrings(diags)
	if !strings.Contains(got, `uk.yaml:9: recheck: never is only for documents that cannot change`) {
		t.Errorf("recheck: never on a rates page is not refused:\n%s", got)
	}
	if strings.Count(got, "recheck: never") != 1 {
		t.Errorf("gazette or legislation refused too:\n%s", got)
	}
}

func TestMistypedKeyGetsASuggestion(t *testing.T) {
	m := strings.Replace(uk, "title: A", "titel: A", 1)
	_, _, diags := loadFiles(t, map[string]string{"uk.yaml": m, "policy.yaml": "dayly_cap: 100\n"})
	got := diagStrings(diags)
	for _, want := range []string{`unknown key "titel" in source: did you mean "title"? Allowed keys:`, `unknown key "dayly_cap" in policy: did you mean "daily_cap"?`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

func TestSizeAndWeeklyBudget(t *testing.T) {
	big := uk + "# " + strings.Repeat("x", 1<<20) + "\n"
	_, _, diags := loadFiles(t, map[string]string{"uk.yaml": big})
	if got := diagStrings(diags); !strings.Contains(got, "uk.yaml:0: the manifest is 1.0 MiB") {
		t.Errorf("a manifest over 1 MiB is not refused:\n%s", got)
	}

	var b strings.Builder
	b.WriteString("jurisdiction: uk\nname: UK\ntimezone: UTC\nhosts:\n  www.gov.uk:\n    daily_cap: 2\nsources:\n")
	for i := range 8 {
		fmt.Fprintf(&b, "  - {id: uk-%d, url: https://www.gov.uk/%d, kind: rates-page, title: T}\n", i, i)
	}
	_, _, diags = loadFiles(t, map[string]string{"uk.yaml": b.String()})
	if got := diagStrings(diags); !diags.HasErrors() || !strings.Contains(got, "uk.yaml:6: host www.gov.uk has 8 sources, but its daily cap of 2 can check at most 7 a week") {
		t.Errorf("an over-budget host is not refused:\n%s", got)
	}
}

func TestDiagnosticColumn(t *testing.T) {
	m := strings.Replace(uk, "title: A}", "title: A, colour: blue}", 1)
	_, _, diags := loadFiles(t, map[string]string{"uk.yaml": m})
	if len(diags) != 1 || diags[0].Column != 5 {
		t.Fatalf("want one diagnostic at column 5 (the entry's first key): %+v", diags)
	}
	if a := diags[0].Annotation(); !strings.Contains(a, ",line=5,col=5::") {
		t.Errorf("annotation lacks the column: %s", a)
	}
	if p := diags[0].Position(); !strings.HasSuffix(p, "uk.yaml:5:5") {
		t.Errorf("Position() = %s", p)
	}
}

func TestDuplicateIsReportedOnTheAddedLine(t *testing.T) {
	// The base lists ie-a; the pull request adds aa-new with ie-a's URL
	// in aa.yaml, which sorts before ie.yaml: without the base the error
	// would land on ie.yaml, a line the pull request did not touch.
	ie := "jurisdiction: ie\nname: IE\ntimezone: UTC\nsources:\n  - {id: ie-a, url: https://www.revenue.ie/a, kind: rates-page, title: A}\n"
	aa := "jurisdiction: aa\nname: AA\ntimezone: UTC\nsources:\n  - {id: aa-new, url: https://www.revenue.ie/a/, kind: rates-page, title: A}\n"
	base := ReadBase(map[string][]byte{"ie.yaml": []byte(ie)})
	dir := t.TempDir()
	writeFile(t, dir, "ie.yaml", ie)
	writeFile(t, dir, "aa.yaml", aa)
	_, diags := LoadAgainst(dir, &base)
	got := diagStrings(diags)
	if !strings.Contains(got, "aa.yaml:5: url https://www.revenue.ie/a/ is already listed as \"ie-a\" at "+filepath.Join(dir, "ie.yaml")+":5") {
		t.Errorf("the duplicate is not reported on the added line (aa.yaml:5):\n%s", got)
	}
	if strings.Contains(got, "ie.yaml:5: url") {
		t.Errorf("the duplicate is reported on the base's line:\n%s", got)
	}
	if !base.Added(Source{ID: "aa-new", URL: "https://www.revenue.ie/b"}) || base.Added(Source{ID: "ie-a", URL: "https://www.revenue.ie/a/"}) {
		t.Error("Added: wrong answer for a new id or an unchanged one")
	}
	if !base.Added(Source{ID: "ie-a", URL: "https://www.revenue.ie/changed"}) {
		t.Error("Added: a changed URL is not reported")
	}
}

// BenchmarkLoadManyWarnings loads one manifest of 1,000 sources that each
// draw a warning (ids without the jurisdiction's prefix): placing each
// warning's column must not split the file once per warning.
//
//	go test -run '^$' -bench LoadManyWarnings ./internal/manifest
func BenchmarkLoadManyWarnings(b *testing.B) {
	dir := b.TempDir()
	var m strings.Builder
	m.WriteString("jurisdiction: test\nname: Test\ntimezone: UTC\nsources:\n")
	for i := range 1000 {
		fmt.Fprintf(&m, "  - id: p-%04d\n    url: https://www.example.gov/doc%d\n    kind: rates-page\n    title: p-%04d\n    recheck: 24h\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "test.yaml"), []byte(m.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if set, diags := Load(dir); set == nil || diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// TestMaxBodyUnderGitHubsFileLimit: a max_body GitHub could never take a
// file of is refused where it is written.
func TestMaxBodyUnderGitHubsFileLimit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte("max_body: 200MiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := Load(dir)
	if got := fmt.Sprint(diags); !diags.HasErrors() || !strings.Contains(got, "policy.yaml:1") || !strings.Contains(got, "100 MB") {
		t.Errorf("max_body 200MiB: %v, want an error at policy.yaml:1 naming GitHub's 100 MB limit", diags)
	}
}

// TestWeeklyBudgetCountsNeverOnce: a gazette host with many immutable
// issues is not refused for them, since each is fetched once, not every
// week; only the recurring sources must fit the week, with room left.
func TestWeeklyBudgetCountsNeverOnce(t *testing.T) {
	gazette := func(recurring, never int) string {
		var b strings.Builder
		b.WriteString("jurisdiction: uk\nname: UK\ntimezone: UTC\nhosts:\n  www.gov.uk:\n    daily_cap: 2\nsources:\n")
		for i := range recurring {
			fmt.Fprintf(&b, "  - {id: uk-r%d, url: https://www.gov.uk/r%d, kind: rates-page, title: T}\n", i, i)
		}
		for i := range never {
			fmt.Fprintf(&b, "  - {id: uk-g%d, url: https://www.gov.uk/g%d, kind: gazette, title: Issue %d, recheck: never}\n", i, i, i)
		}
		return b.String()
	}
	if _, _, diags := loadFiles(t, map[string]string{"uk.yaml": gazette(3, 40)}); diags.HasErrors() {
		t.Errorf("3 recurring sources and 40 gazette issues on a cap of 2 (7 checks a week) refused:\n%s", diagStrings(diags))
	}
	_, _, diags := loadFiles(t, map[string]string{"uk.yaml": gazette(7, 1)})
	if got := diagStrings(diags); !diags.HasErrors() || !strings.Contains(got, "would never be fetched") {
		t.Errorf("7 recurring sources leave no room for a gazette issue on a cap of 2, yet:\n%s", got)
	}
	if _, _, diags := loadFiles(t, map[string]string{"uk.yaml": gazette(7, 0)}); diags.HasErrors() {
		t.Errorf("7 recurring sources on a cap of 2 refused:\n%s", diagStrings(diags))
	}
}

// TestHostConflictIsReportedOnTheAddedBlock: a hosts: entry that a pull
// request adds and that disagrees with one already on the base branch is
// warned about on the added lines, even in a file that sorts first;
// without a base, on the later file in name order.
func TestHostConflictIsReportedOnTheAddedBlock(t *testing.T) {
	uk := "jurisdiction: uk\nname: UK\ntimezone: UTC\nhosts:\n  www.gov.uk:\n    delay: {min: 5s, max: 8s}\n    daily_cap: 120\n    off_peak: [\"Sat-Sun\"]\nsources:\n  - {id: uk-a, url: https://www.gov.uk/a, kind: rates-page, title: A}\n"
	aa := "jurisdiction: aa\nname: AA\ntimezone: UTC\nhosts:\n  www.gov.uk:\n    delay: {min: 4s, max: 10s}\n    daily_cap: 80\n    off_peak: [\"Sun\"]\nsources:\n  - {id: aa-a, url: https://www.gov.uk/aa, kind: rates-page, title: A}\n"
	dir := t.TempDir()
	writeFile(t, dir, "uk.yaml", uk)
	writeFile(t, dir, "aa.yaml", aa)
	base := ReadBase(map[string][]byte{"uk.yaml": []byte(uk)})
	set, diags := LoadAgainst(dir, &base)
	if set == nil {
		t.Fatalf("a host conflict is a warning, yet no Set:\n%s", diagStrings(diags))
	}
	ukAt := filepath.Join(dir, "uk.yaml")
	checkDiags(t, diags, []string{
		"aa.yaml:6: warning: host www.gov.uk delay {min: 4s, max: 10s} differs from {min: 5s, max: 8s} set at " + ukAt + ":6; the strictest wins: {min: 5s, max: 10s} is used",
		"aa.yaml:7: warning: host www.gov.uk daily_cap 80 differs from 120 set at " + ukAt + ":7; the strictest wins: 80 is used",
		`aa.yaml:8: warning: host www.gov.uk off_peak ["Sun"] in UTC differs from ["Sat-Sun"] in UTC set at ` + ukAt + `:8; the first in file-name order is used, this one: make them agree`,
	})

	// Without a base, the later file in name order.
	_, diags = Load(dir)
	aaAt := filepath.Join(dir, "aa.yaml")
	checkDiags(t, diags, []string{
		"uk.yaml:6: warning: host www.gov.uk delay {min: 5s, max: 8s} differs from {min: 4s, max: 10s} set at " + aaAt + ":6",
		"uk.yaml:7: warning: host www.gov.uk daily_cap 120 differs from 80 set at " + aaAt + ":7",
		"uk.yaml:8: warning: host www.gov.uk off_peak",
	})

	// A setting the pull request changes is its own, whatever the file;
	// a disagreement already on the base stays on the later file.
	writeFile(t, dir, "aa.yaml", strings.Replace(aa, "daily_cap: 80", "daily_cap: 70", 1))
	base = ReadBase(map[string][]byte{"uk.yaml": []byte(uk), "aa.yaml": []byte(aa)})
	_, diags = LoadAgainst(dir, &base)
	checkDiags(t, diags, []string{
		"aa.yaml:7: warning: host www.gov.uk daily_cap 70 differs from 120 set at " + ukAt + ":7; the strictest wins: 70 is used",
		"uk.yaml:6: warning: host www.gov.uk delay {min: 5s, max: 8s} differs from {min: 4s, max: 10s} set at " + aaAt + ":6",
		"uk.yaml:8: warning: host www.gov.uk off_peak",
	})
}

// TestApplicationPageWarns: a URL that names a web application's page (a
// JSF or Xaver viewer, a form) or a viewer that loads the document its
// query names is a warning that says to list the document instead; a
// document's own address, with or without a query, is not.
func TestApplicationPageWarns(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"https://bmf-steuerrechner.de/SteuerrechnerWeb/bl/bl2022/eingabeformbl2022.xhtml", "looks like an application page (a .xhtml page of a web application), not a document"},
		{"https://www.example.gov/app/form.JSF", "looks like an application page (a .jsf page"},
		{"https://www.example.gov/app/form.faces?id=3", "looks like an application page (a .faces page"},
		{"https://www.bgbl.de/Xaver/start.xav?startbk=Bundesanzeiger_BGBl&start=//*[@attr_id='bgbl184s1493.pdf']", "looks like an application page (a .xav page of a web application that loads the document its query names: start=//*[@attr_id='bgbl184s1493.pdf']), not a document"},
		{"https://www.bgbl.de/xaver/bgbl/start.xav?start=//*%5B@attr_id='bgbl188s1093.pdf'%5D", "start=//*[@attr_id='bgbl188s1093.pdf']"},
		{"https://www.example.gov/viewer?file=%2Fdocs%2Frates.pdf", "looks like an application page (a viewer that loads the document its query names: file=/docs/rates.pdf), not a document"},
		{"https://www.example.gov/show?doc=//*[@id='x']", "a viewer that loads the document its query names: doc=//*[@id='x']"},
		{"https://www.bundesfinanzministerium.de/Content/DE/Downloads/pap-2022.pdf?__blob=publicationFile&v=2", ""},
		{"https://www.boe.es/buscar/act.php?id=BOE-A-2006-20764", ""},
		{"https://www.ato.gov.au/law/view/document?DocID=PAC%2F19920111%2Fatotoc", ""},
		{"https://www.irs.gov/pub/irs-pdf/p17.pdf", ""},
		{"https://www.example.gov/xhtml/rates", ""},
	} {
		m := "jurisdiction: uk\nname: UK\ntimezone: UTC\nsources:\n  - id: uk-a\n    url: \"" + tt.url + "\"\n    kind: tax-table\n    title: A\n"
		_, set, diags := loadFiles(t, map[string]string{"uk.yaml": m})
		got := diagStrings(diags)
		if set == nil {
			t.Errorf("%s: refused, want at most a warning:\n%s", tt.url, got)
			continue
		}
		if tt.want == "" {
			if len(diags) != 0 {
				t.Errorf("%s: a document's address draws:\n%s", tt.url, got)
			}
			continue
		}
		if !strings.Contains(got, "uk.yaml:6: warning: url ") || !strings.Contains(got, tt.want) || !strings.Contains(got, "list the document's own address") {
			t.Errorf("%s: want a warning at line 6 containing %q and the fix, got:\n%s", tt.url, tt.want, got)
		}
	}
}

// TestKindPromisesAForm: an address whose extension is a form its kind
// is never published in is a warning on the url's line; the forms the
// manifests list for each kind draw none.
func TestKindPromisesAForm(t *testing.T) {
	for _, tt := range []struct{ url, kind, want string }{
		{"https://www.example.gov/stats/rates.xlsx", "legislation", "is a spreadsheet (.xlsx), which a legislation is not published as: a table of figures is a tax-table"},
		{"https://www.example.gov/notices/2026.csv", "gazette", "is a spreadsheet (.csv), which a gazette is not published as"},
		{"https://www.example.gov/rates/all.zip", "rates-page", "is a ZIP archive, which a rates-page is not published as"},
		{"https://www.example.gov/tables/paye.xlsx", "tax-table", ""},
		{"https://www.gesetze-im-internet.de/estg/xml.zip", "legislation", ""},
		{"https://www.irs.gov/pub/irs-pdf/p15t.pdf", "withholding-schedule", ""},
		{"https://www.gov.uk/income-tax-rates", "rates-page", ""},
	} {
		m := "jurisdiction: uk\nname: UK\ntimezone: UTC\nsources:\n  - id: uk-a\n    url: \"" + tt.url + "\"\n    kind: " + tt.kind + "\n    title: A\n"
		_, set, diags := loadFiles(t, map[string]string{"uk.yaml": m})
		got := diagStrings(diags)
		switch {
		case set == nil:
			t.Errorf("%s as %s: refused, want at most a warning:\n%s", tt.url, tt.kind, got)
		case tt.want == "" && len(diags) != 0:
			t.Errorf("%s as %s draws:\n%s", tt.url, tt.kind, got)
		case tt.want != "" && (!strings.Contains(got, "uk.yaml:6: warning: url ") || !strings.Contains(got, tt.want)):
			t.Errorf("%s as %s: want a warning at line 6 containing %q, got:\n%s", tt.url, tt.kind, tt.want, got)
		}
	}
}

// TestDuplicateURLsWhateverTheirPercentEncoding: the same URL written with
// and without percent-encoding is one document; an escape that changes
// what the URL says (a / inside a path segment, a & or = or + inside a
// query value) is not the same as the character.
func TestDuplicateURLsWhateverTheirPercentEncoding(t *testing.T) {
	pair := func(a, b string) Diagnostics {
		m := "jurisdiction: uk\nname: UK\ntimezone: UTC\nsources:\n  - {id: uk-a, url: \"" + a + "\", kind: gazette, title: A}\n  - {id: uk-b, url: \"" + b + "\", kind: gazette, title: B}\n"
		_, _, diags := loadFiles(t, map[string]string{"uk.yaml": m})
		return diags
	}
	for _, p := range [][2]string{
		{"https://www.bgbl.de/xaver/bgbl/start.xav?start=//*%5B@attr_id='bgbl188s1093.pdf'%5D", "https://www.bgbl.de/xaver/bgbl/start.xav?start=//*[@attr_id='bgbl188s1093.pdf']"},
		{"https://www.bgbl.de/x.xav?start=//*[@attr_id=%27a.pdf%27]", "https://www.bgbl.de/x.xav?start=//*[@attr_id='a.pdf']"},
		{"https://www.ato.gov.au/law/view/document?DocID=PAC%2F19920111%2Fatotoc", "https://www.ato.gov.au/law/view/document?DocID=PAC/19920111/atotoc"},
		{"https://www.ato.gov.au/law/view/document?DocID=PAC%2f19920111", "https://www.ato.gov.au/law/view/document?DocID=PAC%2F19920111"},
		{"https://www.gov.uk/%7Erates/a%20b", "https://www.gov.uk/~rates/a%20b"},
		{"https://www.gov.uk/caf%C3%A9/", "https://www.gov.uk/café"},
	} {
		if got := diagStrings(pair(p[0], p[1])); !strings.Contains(got, `uk.yaml:6: url `) || !strings.Contains(got, `is already listed as "uk-a"`) {
			t.Errorf("%s and %s are not reported as the same URL:\n%s", p[0], p[1], got)
		}
	}
	for _, p := range [][2]string{
		{"https://www.gov.uk/a%2Fb", "https://www.gov.uk/a/b"},
		{"https://www.gov.uk/a?q=x%26y", "https://www.gov.uk/a?q=x&y"},
		{"https://www.gov.uk/a?q=x%3Dy", "https://www.gov.uk/a?q=x=y"},
		{"https://www.gov.uk/a?q=x%2By", "https://www.gov.uk/a?q=x+y"},
		{"https://www.gov.uk/a%3Fb", "https://www.gov.uk/a?b"},
		{"https://www.gov.uk/a%25b", "https://www.gov.uk/a%b"},
	} {
		if got := diagStrings(pair(p[0], p[1])); strings.Contains(got, "already listed") {
			t.Errorf("%s and %s are different URLs, yet:\n%s", p[0], p[1], got)
		}
	}
}

// TestRetiredNewZealandLegislationForm: the New Zealand Legislation
// website's old page form (…/0097/latest/DLM1512301.html, now on
// classic.legislation.govt.nz, which is closing) is a warning that names
// the current address of the same document.
func TestRetiredNewZealandLegislationForm(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"https://www.legislation.govt.nz/act/public/2007/0097/latest/DLM1512301.html", "use the current form: https://www.legislation.govt.nz/act/public/2007/97/en/latest/"},
		{"https://classic.legislation.govt.nz/act/public/1985/0141/latest/DLM81035.html", "use the current form: https://www.legislation.govt.nz/act/public/1985/141/en/latest/"},
		{"https://www.legislation.govt.nz/regulation/public/2006/0358/latest/whole.html", "use the current form: https://www.legislation.govt.nz/secondary-legislation/pco-drafted/2006/358/en/latest/"},
		{"https://www.legislation.govt.nz/act/public/2007/0097/2015-02-05/whole.html", "use the current form: https://www.legislation.govt.nz/act/public/2007/97/en/2015-02-05/"},
		{"https://www.legislation.govt.nz/bill/government/2017/0275/latest/whole.html", "use the current form, e.g. https://www.legislation.govt.nz/act/public/2007/97/en/latest/"},
		{"https://www.legislation.govt.nz/act/public/2007/97/en/latest/", ""},
		{"https://www.legislation.govt.nz/secondary-legislation/pco-drafted/2006/358/en/latest/", ""},
	} {
		m := "jurisdiction: nz\nname: NZ\ntimezone: UTC\nsources:\n  - id: nz-a\n    url: \"" + tt.url + "\"\n    kind: legislation\n    title: A\n"
		_, set, diags := loadFiles(t, map[string]string{"nz.yaml": m})
		got := diagStrings(diags)
		switch {
		case set == nil:
			t.Errorf("%s: refused, want at most a warning:\n%s", tt.url, got)
		case tt.want == "" && len(diags) != 0:
			t.Errorf("%s: the current form draws:\n%s", tt.url, got)
		case tt.want != "" && (!strings.Contains(got, "nz.yaml:6: warning: url ") || !strings.Contains(got, "old page form") || !strings.Contains(got, tt.want)):
			t.Errorf("%s: want a warning at line 6 containing %q, got:\n%s", tt.url, tt.want, got)
		}
	}
}
