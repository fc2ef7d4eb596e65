package manifest

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/view"
)

// TestLoadRejects loads one small broken set per rule and checks every
// diagnostic, in order: nothing missing, nothing extra.
func TestLoadRejects(t *testing.T) {
	tests := []struct {
		dir  string
		want []string // substrings of Diagnostic.String(), in order
	}{
		{"malformed", []string{
			"malformed/uk.yaml:3: malformed YAML: could not find expected ':'",
		}},
		// The line that holds the mistake, not the one before it, and
		// the fix in words.
		{"tab-indent", []string{
			"tab-indent/uk.yaml:8: malformed YAML: found a tab character that violates indentation; indent with spaces, not tabs",
		}},
		{"unquoted-colon", []string{
			`unquoted-colon/uk.yaml:8: malformed YAML: mapping values are not allowed in this context; ": " inside a value starts a new key: quote the title: title: "Income Tax: rates and allowances"`,
		}},
		{"syntax-line", []string{
			`syntax-line/uk.yaml:8: malformed YAML: did not find expected key; a quoted value ends at its closing quote: quote the whole title: title: '"Rates" and allowances'`,
		}},
		{"two-documents", []string{
			"two-documents/uk.yaml:9: a second YAML document (---) starts here; keep one document per file",
		}},
		{"alias", []string{
			"alias/uk.yaml:8: alias *n is not supported; write the value out in full",
		}},
		{"empty-manifest", []string{
			"empty-manifest/uk.yaml:0: empty manifest; it needs jurisdiction, name, timezone and sources",
		}},
		{"only-policy", []string{
			"only-policy:0: no manifests here; add one <jurisdiction>.yaml per jurisdiction",
		}},
		{"yml-extension", []string{
			"yml-extension/uk.yml:0: manifests end in .yaml; rename uk.yml to uk.yaml",
		}},
		{"unknown-key", []string{
			`unknown-key/uk.yaml:8: unknown key "titel" in source: did you mean "title"? Allowed keys: id, url, kind, title, recheck, encodes, gaps, accept, view`,
		}},
		{"unknown-policy-key", []string{
			`unknown-policy-key/policy.yaml:2: unknown key "delay_min" in policy; allowed keys: user_agent, from, delay, daily_cap, backoff_max, pause_after_403, robots_ttl, timeout, max_body, exclude, allow_private_networks, sign, issue_after`,
		}},
		{"dup-key", []string{
			"dup-key/uk.yaml:7: host www.gov.uk is already set at line 5; keep one entry",
			`dup-key/uk.yaml:14: key "title" is set twice in source (first at line 13); keep one`,
		}},
		{"missing-field", []string{
			`missing-field/uk.yaml:1: manifest is missing "timezone"; it needs jurisdiction, name, timezone, sources`,
			`missing-field/uk.yaml:4: source is missing "title"; it needs id, url, kind, title`,
		}},
		{"no-sources", []string{
			"no-sources/uk.yaml:4: sources must be a list with at least one source",
		}},
		{"bad-id", []string{
			`bad-id/uk.yaml:5: source id "UK_Rates" may only use a-z, 0-9 and -`,
		}},
		{"bad-jurisdiction", []string{
			`bad-jurisdiction/U.K.yaml:1: jurisdiction "U.K" may only use a-z, 0-9 and -`,
		}},
		{"stem-mismatch", []string{
			`stem-mismatch/gb.yaml:1: jurisdiction "uk" differs from the file name gb.yaml; rename the file to uk.yaml or set jurisdiction: gb`,
		}},
		{"dup-id", []string{
			`dup-id/ie.yaml:9: warning: source id "uk-rates" does not start with "ie-"`,
			`dup-id/uk.yaml:5: source id "uk-rates" is already used at testdata/dup-id/ie.yaml:9; ids are unique across all manifests`,
		}},
		{"dup-url", []string{
			`dup-url/uk.yaml:6: url https://www.gov.uk/rates is already listed as "ie-uk-rates" at testdata/dup-url/ie.yaml:6; list each document once`,
		}},
		{"bad-url", []string{
			`bad-url/uk.yaml:6: url "ftp://ftp.gov.uk/rates" is not http(s)`,
			`bad-url/uk.yaml:10: url "https://bot:secret@www.gov.uk/rates" carries user-info`,
			`bad-url/uk.yaml:14: url "https://www.gov.uk/rates#bands" has a #fragment`,
			`bad-url/uk.yaml:18: url "/rates" is not http(s)`,
			`bad-url/uk.yaml:22: url "https://www.gov.uk:99999/rates" has port "99999"; a port is 1 to 65535`,
		}},
		{"bad-timezone", []string{
			`bad-timezone/uk.yaml:3: timezone "Europe/Londn" is not an IANA time zone; use a name like Europe/London or UTC`,
			`bad-timezone/uk.yaml:6: timezone "Local" is not an IANA time zone`,
		}},
		{"bad-window", []string{
			`bad-window/uk.yaml:7: off-peak window "Mon-Fry 20:00-07:00": unknown day "Fry"`,
			`bad-window/uk.yaml:8: off-peak window "Sat 24:00-07:00": time "24:00": want HH:MM between 00:00 and 23:59`,
		}},
		{"bad-duration", []string{
			`bad-duration/uk.yaml:6: host www.gov.uk delay min: duration "5 s": want a number and a unit`,
			`bad-duration/uk.yaml:12: recheck: duration "1 day"`,
			`bad-duration/uk.yaml:17: recheck: duration "-1h": must not be negative or signed`,
		}},
		{"store-key-in-file", []string{
			"store-key-in-file/policy.yaml:8: secret_access_key must not be written in policy.yaml, which is public: remove it (and revoke the key if it was committed), keep the value in a repository secret, and write secret_key_env: with the name of the environment variable the workflow sets from it, e.g. TAXKERNELBOT_S3_SECRET_KEY",
		}},
		{"bad-size", []string{
			`bad-size/policy.yaml:1: max_body: size "50 megs": unknown unit "megs"`,
		}},
		{"unknown-kind", []string{
			`unknown-kind/uk.yaml:7: unknown kind "webpage"; use one of rates-page, tax-table, withholding-schedule, legislation, gazette`,
		}},
		{"faster-than-policy", []string{
			"faster-than-policy/uk.yaml:6: host www.gov.uk delay min 1s is faster than the policy's 3s; a host may only be slower: use at least 3s",
			"faster-than-policy/uk.yaml:7: host www.gov.uk daily_cap 500 is higher than the policy's 200",
			"faster-than-policy/uk.yaml:9: host www.hmrc.gov.uk delay max 4s is faster than the policy's 5s",
			"faster-than-policy/uk.yaml:11: host www.ons.gov.uk delay min 9s is greater than max 6s; swap them",
		}},
		{"bad-override", []string{
			"bad-override/uk.yaml:8: host www.gov.uk robots_override has no permission; quote the site owner's written permission",
			"bad-override/uk.yaml:12: host www.hmrc.gov.uk robots_override delay {min: 4s, max: 4s} is faster than the host's delay {min: 3s, max: 5s}",
		}},
		{"bad-hosts-key", []string{
			`bad-hosts-key/uk.yaml:5: hosts key "https://www.gov.uk/" is not a host`,
			"bad-hosts-key/uk.yaml:7: warning: hosts entry www.hmrc.gov.uk is not the host of any source in this file",
			"bad-hosts-key/uk.yaml:8: daily_cap must be a whole number",
			"bad-hosts-key/uk.yaml:9: off_peak must be a list of windows",
			"bad-hosts-key/uk.yaml:15: encodes must be a list",
		}},
		{"bad-policy", []string{
			`bad-policy/policy.yaml:2: from "TaxKernelBot <contact@taxkernel.com>" is not a plain e-mail address`,
			"bad-policy/policy.yaml:3: warning: delay min 500ms is below the 1s floor for public hosts and is raised to it",
			"bad-policy/policy.yaml:3: delay {min: 500ms, max: 2s} is faster than the built-in {min: 3s, max: 5s}: it makes the bot faster or heavier on every host; keep the built-in value, or add a reason for it",
			"bad-policy/policy.yaml:4: daily_cap must be at least 1",
			"bad-policy/policy.yaml:5: warning: backoff_max 2h is above the 30m ceiling of every backoff; 30m is used",
			"bad-policy/policy.yaml:6: pause_after_403 must be a whole number",
			"bad-policy/policy.yaml:7: robots_ttl 48h is longer than the 24h RFC 9309 allows",
			"bad-policy/policy.yaml:8: timeout must be longer than zero",
			"bad-policy/policy.yaml:9: allow_private_networks must be true or false",
			`bad-policy/policy.yaml:11: exclude host "https://www.example.gov/" is not a host`,
			`bad-policy/policy.yaml:12: exclude path "private/" must start with /`,
			`bad-policy/policy.yaml:13: exclude entry is missing "reason"`,
			`bad-policy/policy.yaml:14: sign directory "http://taxkernel.com/.well-known/http-message-signatures-directory" must be https`,
			"bad-policy/policy.yaml:15: issue_after must be longer than zero",
		}},
		{"bad-view", []string{
			`bad-view/uk.yaml:10: view drop selector "div[[" is not a CSS selector`,
			`bad-view/uk.yaml:11: view ignore expression "Page (generated" is not a regular expression`,
			`bad-view/uk.yaml:12: view ignore expression ".*" matches an empty line, so it would remove every line`,
			`bad-view/uk.yaml:17: unknown key "skip" in view; allowed keys: drop, ignore`,
			`bad-view/uk.yaml:22: view drop must be a non-empty list`,
			`bad-view/uk.yaml:27: view is empty`,
		}},
		{"bad-legal-id", []string{
			`bad-legal-id/us.yaml:9: legal_id: a US Code identifier names its title as t<number>, e.g. /us/usc/t26/s1; "/us/usc/26/1" does not`,
			`bad-legal-id/us.yaml:14: legal_id: a Federal Register document number is like 2013-28411 (year, dash, number); "78 FR 71468" is not one`,
			`bad-legal-id/us.yaml:19: legal_id: scheme "CELEX" is written in lower case: celex`,
			`bad-legal-id/us.yaml:24: legal_id: an ELI is an http(s) URI with a path and no query or fragment, e.g. http://www.legislation.gov.uk/id/ukpga/2007/3 or http://data.europa.eu/eli/dir/2006/112/oj; "ukpga/2007/3" is not one`,
			`bad-legal-id/us.yaml:29: legal_id: a URN:LEX (RFC 9676) is urn:lex:<jurisdiction>:<local name>, e.g. urn:lex:it:stato:legge:2006-05-14;52; "urn:lex:act-2" is not one`,
			`bad-legal-id/us.yaml:34: edition "point-in-time": point-in-time needs the date the text stood at, e.g. point-in-time 2024-04-06`,
			`bad-legal-id/us.yaml:39: legal_id is missing "scheme"; it needs scheme, id`,
		}},
		{"legal-id-url", []string{
			`legal-id-url/nz.yaml:9: legal_id: scheme "uk-legislation" is not nz's: a jurisdiction's own scheme starts with its jurisdiction; write nz-legislation`,
			`legal-id-url/nz.yaml:10: edition as-enacted contradicts the URL, which serves current; remove edition (it is read from the URL) or list the URL of the as-enacted edition`,
			`legal-id-url/nz.yaml:16: edition point-in-time 2024-04-01 contradicts the URL, which serves point-in-time 2024-03-31; remove edition (it is read from the URL) or list the URL of the point-in-time 2024-04-01 edition`,
		}},
		{"private-allowed", []string{
			"private-allowed/policy.yaml:2: allow_private_networks: true is for tests and the demo only, but 1 source(s) name public hosts (first: uk-rates at testdata/private-allowed/uk.yaml:10, host www.gov.uk); set it to false",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			set, diags := Load(filepath.Join("testdata", tt.dir))
			if set != nil {
				t.Errorf("Load returned a Set despite errors")
			}
			if !diags.HasErrors() {
				t.Errorf("no error diagnostic")
			}
			checkDiags(t, diags, tt.want)
		})
	}
}

func checkDiags(t *testing.T, diags Diagnostics, want []string) {
	t.Helper()
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	if len(got) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("diagnostic %d = %q\nwant it to contain %q", i, got[i], want[i])
		}
	}
}

// TestLoadWarnings: warnings alone still give a Set.
func TestLoadWarnings(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{"plain-http", []string{
			"plain-http/uk.yaml:6: warning: url http://www.gov.uk/rates is plain http://; use https:// if the site offers it",
		}},
		// The dial-time guard refuses it; the run must get to show that.
		{"private-not-allowed", []string{
			"private-not-allowed/uk.yaml:6: warning: url https://localhost:8443/rates names a private address (localhost:8443), which the fetcher refuses to connect to",
		}},
		{"legal-id-mismatch", []string{
			"legal-id-mismatch/uk.yaml:9: warning: legal_id http://www.legislation.gov.uk/id/ukpga/2007/3 differs from the eli the URL names, http://www.legislation.gov.uk/id/ukpga/2003/1: a copy of another source's? Write the URL's, or list the URL of http://www.legislation.gov.uk/id/ukpga/2007/3",
		}},
		{"unused-host", []string{
			"unused-host/uk.yaml:5: warning: hosts entry www.gov.uk:443 is not the host of any source in this file",
		}},
		{"host-conflict", []string{
			"host-conflict/uk.yaml:6: warning: host www.gov.uk delay {min: 5s, max: 8s} differs from {min: 4s, max: 10s} set at testdata/host-conflict/ie.yaml:6; the strictest wins: {min: 5s, max: 10s} is used",
			"host-conflict/uk.yaml:7: warning: host www.gov.uk daily_cap 120 differs from 80 set at testdata/host-conflict/ie.yaml:7; the strictest wins: 80 is used",
			`host-conflict/uk.yaml:8: warning: host www.gov.uk off_peak ["Sat-Sun"] in Europe/London differs from ["Sat-Sun"] in Europe/Dublin set at testdata/host-conflict/ie.yaml:8; the first is used`,
			`host-conflict/uk.yaml:9: warning: host www.gov.uk robots_override differs from the one set at testdata/host-conflict/ie.yaml:9; the strictest wins: its permission "phone call, 2026-08-01" is kept and the delay {min: 10s, max: 15s} is used`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			set, diags := Load(filepath.Join("testdata", tt.dir))
			if set == nil {
				t.Fatalf("Load returned no Set for warnings only: %v", diags)
			}
			checkDiags(t, diags, tt.want)
		})
	}
}

// TestHostConflictMerge checks the values the warnings of host-conflict
// announce.
func TestHostConflictMerge(t *testing.T) {
	set, _ := Load(filepath.Join("testdata", "host-conflict"))
	if set == nil {
		t.Fatal("no Set")
	}
	dublin, _ := time.LoadLocation("Europe/Dublin")
	want := policy.Host{
		Name:     "www.gov.uk",
		Delay:    policy.Delay{Min: 10 * time.Second, Max: 15 * time.Second}, // the override's, slower than {5s, 10s}
		DailyCap: 80,
		OffPeak:  []policy.Window{mustWindow(t, "Sat-Sun")},
		Location: dublin,
		Override: &policy.RobotsOverride{Permission: "phone call, 2026-08-01", Delay: policy.Delay{Min: 10 * time.Second, Max: 15 * time.Second}},
	}
	if diff := cmp.Diff(map[string]policy.Host{"www.gov.uk": want}, set.Hosts, cmpLocation); diff != "" {
		t.Errorf("Hosts (-want +got):\n%s", diff)
	}
}

var cmpLocation = cmp.Comparer(func(a, b *time.Location) bool { return a.String() == b.String() })

func mustWindow(t *testing.T, s string) policy.Window {
	t.Helper()
	w, err := policy.ParseWindow(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestLoadGood(t *testing.T) {
	dir := filepath.Join("testdata", "good")
	set, diags := Load(dir)
	if len(diags) != 0 || set == nil {
		t.Fatalf("Load(good): %v", diags)
	}
	london, _ := time.LoadLocation("Europe/London")
	berlin, _ := time.LoadLocation("Europe/Berlin")
	s := time.Second
	uk, de := filepath.Join(dir, "uk.yaml"), filepath.Join(dir, "de.yaml")

	wantPolicy := policy.Policy{
		UserAgent:     "TaxKernelBot/1.0 (+https://taxkernel.com/bot)",
		From:          "contact@taxkernel.com",
		Delay:         policy.Delay{Min: 3 * s, Max: 5 * s},
		DailyCap:      150,
		BackoffMax:    20 * time.Minute,
		PauseAfter403: 2,
		RobotsTTL:     12 * time.Hour,
		Timeout:       30 * s,
		MaxBody:       20 << 20,
		Exclude:       []policy.Exclusion{{Host: "www.example.gov", Path: "/private/", Reason: "owner request 2026-11-01"}},
		SignDirectory: "https://taxkernel.com/.well-known/http-message-signatures-directory",
		IssueAfter:    48 * time.Hour,
	}
	src := map[string]Source{
		"de-estg": {
			Jurisdiction: "de", ID: "de-estg", URL: "https://www.gesetze-im-internet.de/estg/",
			Parsed: mustURL(t, "https://www.gesetze-im-internet.de/estg/"), Host: "www.gesetze-im-internet.de",
			Kind: Legislation, Title: "Einkommensteuergesetz", Recheck: 168 * time.Hour, File: de, Line: 12,
			Edition: &Edition{Type: EditionNow, FromURL: true},
		},
		"de-uk-treaty": {
			Jurisdiction: "de", ID: "de-uk-treaty", URL: "https://www.gov.uk/government/publications/germany-tax-treaties",
			Parsed: mustURL(t, "https://www.gov.uk/government/publications/germany-tax-treaties"), Host: "www.gov.uk",
			Kind: TaxTable, Title: "Germany tax treaties", Recheck: DefaultRecheck, File: de, Line: 8,
		},
		"uk-gazette": {
			Jurisdiction: "uk", ID: "uk-gazette", URL: "https://www.thegazette.co.uk:8443/?notice=1",
			Parsed: mustURL(t, "https://www.thegazette.co.uk:8443/?notice=1"), Host: "www.thegazette.co.uk:8443",
			Kind: Gazette, Title: "The Gazette notice", Never: true, File: uk, Line: 32,
		},
		"uk-income-tax-rates": {
			Jurisdiction: "uk", ID: "uk-income-tax-rates", URL: "https://www.gov.uk/income-tax-rates",
			Parsed: mustURL(t, "https://www.gov.uk/income-tax-rates"), Host: "www.gov.uk",
			Kind: RatesPage, Title: "Income Tax rates and Personal Allowances", Recheck: DefaultRecheck,
			Encodes: []string{"uk.income-tax.bands"}, Gaps: []string{"Scottish rates not encoded yet"},
			View: view.Spec{Drop: []string{"#cookie-banner", ".last-updated"}, Ignore: []string{"Page generated at .*"}},
			File: uk, Line: 16,
		},
		"uk-ita-2007": {
			Jurisdiction: "uk", ID: "uk-ita-2007", URL: "https://www.legislation.gov.uk/ukpga/2007/3",
			Parsed: mustURL(t, "https://www.legislation.gov.uk/ukpga/2007/3"), Host: "www.legislation.gov.uk",
			Kind: Legislation, Title: "Income Tax Act 2007", Recheck: 7 * 24 * time.Hour, File: uk, Line: 26,
			Legal:   &LegalID{Scheme: SchemeELI, ID: "http://www.legislation.gov.uk/id/ukpga/2007/3"},
			Edition: &Edition{Type: EditionNow, FromURL: true},
		},
	}
	override := &policy.RobotsOverride{
		Permission: "email from the webmaster, 2026-10-01, ref 4411",
		Delay:      policy.Delay{Min: 10 * s, Max: 15 * s},
	}
	want := &Set{
		Policy: wantPolicy,
		Manifests: []Manifest{
			{Jurisdiction: "de", Name: "Germany", Timezone: "Europe/Berlin", Location: berlin, File: de,
				Sources: []Source{src["de-uk-treaty"], src["de-estg"]}}, // file order
			{Jurisdiction: "uk", Name: "United Kingdom", Timezone: "Europe/London", Location: london, File: uk,
				Sources: []Source{src["uk-income-tax-rates"], src["uk-ita-2007"], src["uk-gazette"]}},
		},
		Sources: []Source{src["de-estg"], src["de-uk-treaty"], src["uk-gazette"], src["uk-income-tax-rates"], src["uk-ita-2007"]},
		Hosts: map[string]policy.Host{
			"www.gesetze-im-internet.de": {Name: "www.gesetze-im-internet.de", Delay: policy.Delay{Min: 3 * s, Max: 5 * s}, DailyCap: 50, Location: time.UTC},
			"www.gov.uk": {Name: "www.gov.uk", Delay: policy.Delay{Min: 5 * s, Max: 8 * s}, DailyCap: 120,
				OffPeak: []policy.Window{mustWindow(t, "Mon-Fri 20:00-07:00"), mustWindow(t, "Sat-Sun")}, Location: london},
			"www.legislation.gov.uk": {Name: "www.legislation.gov.uk", Delay: policy.Delay{Min: 10 * s, Max: 15 * s}, DailyCap: 150,
				OffPeak: []policy.Window{mustWindow(t, "Sun")}, Location: time.UTC, Override: override},
			"www.thegazette.co.uk:8443": {Name: "www.thegazette.co.uk:8443", Delay: policy.Delay{Min: 3 * s, Max: 5 * s}, DailyCap: 150, Location: time.UTC},
		},
	}
	if diff := cmp.Diff(want, set, cmpLocation, cmpopts.IgnoreUnexported(Set{})); diff != "" {
		t.Errorf("Load(good) (-want +got):\n%s", diff)
	}

	// The accessors the pipeline uses.
	if s, ok := set.Source("uk-ita-2007"); !ok || s.URL != "https://www.legislation.gov.uk/ukpga/2007/3" {
		t.Errorf("Source(uk-ita-2007) = %v, %v", s.ID, ok)
	}
	if s, ok := set.SourceByURL("HTTPS://www.GOV.uk:443/income-tax-rates"); !ok || s.ID != "uk-income-tax-rates" {
		t.Errorf("SourceByURL found %q, %v; want uk-income-tax-rates", s.ID, ok)
	}
	if got := set.Host("elsewhere.example"); got.Delay != wantPolicy.Delay || got.DailyCap != 150 {
		t.Errorf("Host(unnamed) = %+v, want the policy's delay and cap", got)
	}
}

func TestLoadDirectoryProblems(t *testing.T) {
	empty := t.TempDir()
	set, diags := Load(empty)
	checkDiags(t, diags, []string{empty + ":0: no manifests here"})
	if set != nil {
		t.Error("Set from an empty directory")
	}

	missing := filepath.Join(empty, "nope")
	_, diags = Load(missing)
	checkDiags(t, diags, []string{missing + ":0: cannot read the manifest directory"})

	// An empty policy.yaml is the built-in policy.
	dir := t.TempDir()
	writeFile(t, dir, "policy.yaml", "")
	writeFile(t, dir, "uk.yaml", "jurisdiction: uk\nname: UK\ntimezone: UTC\nsources:\n  - {id: uk-a, url: https://x.example/, kind: gazette, title: T}\n")
	set, diags = Load(dir)
	if set == nil || len(diags) != 0 {
		t.Fatalf("Load: %v", diags)
	}
	if diff := cmp.Diff(policy.Default(), set.Policy); diff != "" {
		t.Errorf("empty policy.yaml (-want +got):\n%s", diff)
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiagnosticsSorted(t *testing.T) {
	dir := t.TempDir()
	// b.yaml's problem is found first (dup id points at the second file
	// read), but a.yaml sorts first; within a file, by line.
	writeFile(t, dir, "b.yaml", "jurisdiction: b\nname: B\ntimezone: UTC\nsources:\n  - {id: x, url: https://x.example/b, kind: gazette, title: T}\n")
	writeFile(t, dir, "a.yaml", "jurisdiction: a\nname: A\ntimezone: Nowhere/Town\nsources:\n  - {id: x, url: https://x.example/a, kind: gazette, title: T}\n  - {id: y, url: 'ftp://x', kind: gazette, title: T}\n")
	_, diags := Load(dir)
	checkDiags(t, diags, []string{
		"a.yaml:3: timezone",
		"a.yaml:5: warning: source id \"x\" does not start with \"a-\"",
		"a.yaml:6: warning: source id \"y\" does not start with \"a-\"",
		"a.yaml:6: url \"ftp://x\"",
		"b.yaml:5: warning: source id \"x\" does not start with \"b-\"",
		"b.yaml:5: source id \"x\" is already used at " + filepath.Join(dir, "a.yaml") + ":5",
	})
}

// TestManyFilesReadAsOneAtATime: the files are parsed several at once, yet
// the diagnostics, and which of two files is first, are those of reading
// them one at a time in name order, every time.
func TestManyFilesReadAsOneAtATime(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for k := range 24 {
		j := fmt.Sprintf("j%02d", k)
		if k%2 == 0 { // a problem of its own
			writeFile(t, dir, j+".yaml", "jurisdiction: "+j+"\nname: J\ntimezone: Nowhere/Town\nsources:\n  - {id: "+j+"-a, url: https://x.example/"+j+", kind: gazette, title: T}\n")
			want = append(want, j+".yaml:3: timezone")
			continue
		}
		// and one against the first file
		writeFile(t, dir, j+".yaml", "jurisdiction: "+j+"\nname: J\ntimezone: UTC\nsources:\n  - {id: j00-a, url: https://x.example/"+j+", kind: gazette, title: T}\n")
		want = append(want,
			j+".yaml:5: warning: source id \"j00-a\" does not start with \""+j+"-\"",
			j+".yaml:5: source id \"j00-a\" is already used at "+filepath.Join(dir, "j00.yaml")+":5")
	}
	for range 8 {
		_, diags := Load(dir)
		checkDiags(t, diags, want)
	}
}

func TestDiagnosticFormats(t *testing.T) {
	e := Diagnostic{File: "manifests/uk.yaml", Line: 12, Severity: Error, Message: "unknown kind"}
	w := Diagnostic{File: "manifests/uk.yaml", Line: 3, Severity: Warning, Message: "plain http"}
	for _, tt := range []struct{ got, want string }{
		{e.String(), "manifests/uk.yaml:12: unknown kind"},
		{w.String(), "manifests/uk.yaml:3: warning: plain http"},
		{e.Annotation(), "::error file=manifests/uk.yaml,line=12::unknown kind"},
		{w.Annotation(), "::warning file=manifests/uk.yaml,line=3::plain http"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if (Diagnostics{w}).HasErrors() || !(Diagnostics{w, e}).HasErrors() {
		t.Error("HasErrors must be true exactly when an error is present")
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://WWW.GOV.UK/Income-Tax":      "https://www.gov.uk/Income-Tax",
		"https://www.gov.uk:443/a":           "https://www.gov.uk/a",
		"http://www.gov.uk:80/a":             "http://www.gov.uk/a",
		"https://www.gov.uk:80/a":            "https://www.gov.uk:80/a",
		"http://www.gov.uk:443/a":            "http://www.gov.uk:443/a",
		"https://www.gov.uk":                 "https://www.gov.uk/",
		"https://www.gov.uk?b=2&a=1":         "https://www.gov.uk/?b=2&a=1",
		"https://www.gov.uk/a%20b?q=A%2Fb":   "https://www.gov.uk/a%20b?q=A%2Fb",
		"https://[2001:DB8::1]:443/x":        "https://[2001:db8::1]/x",
		"https://[2001:db8::1]:8443/x":       "https://[2001:db8::1]:8443/x",
		"http://127.0.0.1:8080/rates?x=1":    "http://127.0.0.1:8080/rates?x=1",
		"https://www.gov.uk/path/../other/x": "https://www.gov.uk/path/../other/x",
	} {
		got, err := NormalizeURL(in)
		if err != nil || got != want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"ftp://x.example/":          "is not http(s)",
		"file:///etc/passwd":        "is not http(s)",
		"www.gov.uk/rates":          "is not http(s)",
		"https:opaque":              "has no host",
		"https:///path":             "has no host",
		"https://u@www.gov.uk/":     "user-info",
		"https://u:p@www.gov.uk/":   "user-info",
		"https://www.gov.uk/#top":   "#fragment",
		"https://www.gov.uk/#":      "#fragment",
		"https://www.gov.uk:0/":     "a port is 1 to 65535",
		"https://www.gov.uk:x/":     "does not parse",
		"https://www.gov.uk/\x7f":   "does not parse",
		"https://www.gov.uk:65536/": "a port is 1 to 65535",
	} {
		_, err := NormalizeURL(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NormalizeURL(%q) error = %v, want one containing %q", in, err, want)
		}
	}
}

func TestHostOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://WWW.gov.uk/":        "www.gov.uk",
		"https://www.gov.uk:443/":    "www.gov.uk",
		"https://www.gov.uk:8443/":   "www.gov.uk:8443",
		"http://www.gov.uk:80/":      "www.gov.uk",
		"http://www.gov.uk:443/":     "www.gov.uk:443",
		"https://[::1]/":             "[::1]",
		"https://[::1]:443/":         "[::1]",
		"https://[::1]:8443/":        "[::1]:8443",
		"http://localhost:8080/x":    "localhost:8080",
		"HTTP://Example.ORG:80/path": "example.org",
	} {
		if got := HostOf(mustURL(t, in)); got != want {
			t.Errorf("HostOf(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestPrivateHostsAllowed: with allow_private_networks, private hosts may go
// below the 1s floor and plain http:// is not worth a warning.
func TestPrivateHostsAllowed(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "policy.yaml", "delay: {min: 10ms, max: 20ms}\ndaily_cap: 1000\nallow_private_networks: true\n")
	writeFile(t, dir, "demo.yaml", `jurisdiction: demo
name: Demo
timezone: UTC
hosts:
  127.0.0.1:8080:
    delay: {min: 50ms, max: 60ms}
sources:
  - {id: demo-local, url: "http://127.0.0.1:8080/a", kind: gazette, title: Local}
  - {id: demo-six, url: "http://[::1]:9000/b", kind: gazette, title: Local six}
`)
	set, diags := Load(dir)
	if set == nil || len(diags) != 0 {
		t.Fatalf("Load: %v", diags)
	}
	want := map[string]policy.Host{
		"127.0.0.1:8080": {Name: "127.0.0.1:8080", Delay: policy.Delay{Min: 50 * time.Millisecond, Max: 60 * time.Millisecond}, DailyCap: 1000, Location: time.UTC},
		"[::1]:9000":     {Name: "[::1]:9000", Delay: policy.Delay{Min: 10 * time.Millisecond, Max: 20 * time.Millisecond}, DailyCap: 1000, Location: time.UTC},
	}
	if diff := cmp.Diff(want, set.Hosts, cmpLocation); diff != "" {
		t.Errorf("Hosts (-want +got):\n%s", diff)
	}
}

// TestAnnotationEscaped: a file name or a message (which quotes a key)
// with ",", ":" or a newline adds no property and no line to the
// annotation, and no second command.
func TestAnnotationEscaped(t *testing.T) {
	d := Diagnostic{File: "manifests/x,title=Spoofed,line=1.yaml", Line: 3, Severity: Error, Message: "unknown key \"a\n::warning::b%0A\""}
	got := d.Annotation()
	want := "::error file=manifests/x%2Ctitle=Spoofed%2Cline=1.yaml,line=3::unknown key \"a%0A::warning::b%250A\""
	if got != want {
		t.Errorf("Annotation() = %q\nwant          %q", got, want)
	}
}

// The fingerprint names what the manifests say: the same manifests
// anywhere give the same one, and so does an edit that changes how they
// are written (a comment, a source moved); any change to what they say
// (a source, its title, a policy value, a new jurisdiction) gives a new one.
func TestFingerprint(t *testing.T) {
	copyOf := func(edit func(dir string)) string {
		t.Helper()
		dir := t.TempDir()
		for _, name := range []string{"policy.yaml", "de.yaml", "uk.yaml"} {
			data, err := os.ReadFile(filepath.Join("testdata", "good", name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if edit != nil {
			edit(dir)
		}
		set, diags := Load(dir)
		if diags.HasErrors() {
			t.Fatalf("%v", diags)
		}
		return set.Fingerprint()
	}
	rewrite := func(name string, f func(string) string) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, name)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			changed := f(string(data))
			if changed == string(data) {
				t.Fatalf("the edit of %s changes nothing", name)
			}
			if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	first := copyOf(nil)
	if len(first) != 64 {
		t.Fatalf("fingerprint %q", first)
	}
	for what, edit := range map[string]func(string){
		"a comment in uk.yaml":     rewrite("uk.yaml", func(s string) string { return "# a comment\n" + s }),
		"a comment in policy.yaml": rewrite("policy.yaml", func(s string) string { return s + "\n# a comment\n" }),
		"the files elsewhere":      func(string) {},
	} {
		if fp := copyOf(edit); fp != first {
			t.Errorf("%s changes the fingerprint", what)
		}
	}
	seen := map[string]string{first: "as is"}
	for what, edit := range map[string]func(string){
		"a title":        rewrite("uk.yaml", func(s string) string { return strings.Replace(s, "title: ", "title: The ", 1) }),
		"a policy value": rewrite("policy.yaml", func(s string) string { return strings.Replace(s, "daily_cap: 150", "daily_cap: 120", 1) }),
		"a new manifest": func(dir string) {
			os.WriteFile(filepath.Join(dir, "fr.yaml"), []byte("jurisdiction: fr\nname: France\ntimezone: Europe/Paris\nsources:\n  - id: fr-bofip\n    url: https://bofip.impots.gouv.fr/bofip/1-PGP.html\n    kind: rates-page\n    title: BOFiP\n"), 0o644)
		},
	} {
		fp := copyOf(edit)
		if other, dup := seen[fp]; dup {
			t.Errorf("%s leaves the fingerprint of %s", what, other)
		}
		seen[fp] = what
	}
}

// A field no manifest sets says nothing: the fingerprint of a set is the
// same whether a field is absent, null or empty, so that a version adding
// a field does not make every rendered page look rendered for other
// manifests. A value set in it does count.
func TestFingerprintIgnoresUnsetFields(t *testing.T) {
	set, diags := Load(filepath.Join("testdata", "good"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	before := fingerprint(set)
	set.Sources[0].Accept = []string{} // encoded [] where it was null
	if got := fingerprint(set); got != before {
		t.Errorf("an empty field changes the fingerprint: %s, then %s", before, got)
	}
	set.Sources[0].Accept = []string{strings.Repeat("a", 64)}
	if got := fingerprint(set); got == before {
		t.Error("a value set in a field leaves the fingerprint")
	}
}
