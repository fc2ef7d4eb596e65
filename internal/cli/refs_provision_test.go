package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/law"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// A scripted archive holds the Old Age Security Act whole (Justice
// Canada's XML), changed on 2026-11-15 in s. 19 only, as its change
// document says. A rules repository citing s. 19 and s. 21 on 2026-11-01,
// and s. 19 again on 2026-12-01, hears of s. 19 alone: the JSON, the text
// summary and the issue name the provision and link its change.
func TestRefsByProvision(t *testing.T) {
	const oasXML = "https://laws-lois.justice.gc.ca/eng/XML/O-9.xml"
	// The archive is scripted, never fetched: a policy for public hosts.
	pol := strings.NewReplacer("allow_private_networks: true", "allow_private_networks: false",
		"delay: {min: 5ms, max: 10ms}", "delay: {min: 3s, max: 5s}", "backoff_max: 50ms", "backoff_max: 30m").Replace(testPolicy)
	w := newWorkspace(t, pol, "", src{"test-oas", oasXML, ""})
	o1, o2 := store.Sum(strings.Repeat("a1", 32)), store.Sum(strings.Repeat("b2", 32))
	ix := store.NewIndex()
	ix.Add("test-oas", store.Entry{SHA256: o1, Size: 10, ContentType: "application/xml", FinalURL: oasXML, FirstSeen: "2026-10-01"}, "")
	ix.Add("test-oas", store.Entry{SHA256: o2, Size: 12, ContentType: "application/xml", FinalURL: oasXML, FirstSeen: "2026-11-15"}, o1)
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	s19 := "https://laws-lois.justice.gc.ca/eng/acts/O-9/section-19.html"
	doc := changedoc.Doc{
		Version: changedoc.Version, Source: "test-oas", URL: oasXML, Date: "2026-11-15",
		From: changedoc.Side{SHA256: o1, Size: 10, FirstSeen: "2026-10-01"}, To: changedoc.Side{SHA256: o2, Size: 12, FirstSeen: "2026-11-15"},
		Text: changedoc.TextChanged, Hunks: []changedoc.Hunk{}, Figures: []changedoc.Figure{},
		Provisions: []changedoc.ProvisionChange{{ID: "s. 19", Address: s19, Change: law.Amended,
			Old: "19 (1) The amount of the supplement is $1,000.", New: "19 (1) The amount of the supplement is $1,050.",
			Figures: []changedoc.Figure{{Row: "19 (1)", Old: &changedoc.Value{Line: 1, Text: "$1,000"}, New: &changedoc.Value{Line: 1, Text: "$1,050"}}}}},
	}
	data, err := doc.JSON()
	must(t, err)
	path := filepath.Join(w.Reports, filepath.FromSlash(changedoc.Path("test-oas", "2026-11-15", o1, o2)))
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, data, 0o644))

	repo := t.TempDir()
	must(t, os.WriteFile(filepath.Join(repo, "oas.yaml"), []byte(`description: The supplement.
values:
  2026-11-01:
    value: 1000
    metadata:
      reference:
        - title: OAS Act s. 19
          href: `+s19+`
        - title: OAS Act s. 21
          href: https://laws-lois.justice.gc.ca/eng/acts/O-9/section-21.html
  2026-12-01:
    value: 1050
    metadata:
      reference:
        - title: OAS Act s. 19, amended
          href: `+s19+`
`), 0o644))
	flags := []string{"--no-git", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "--reports", w.Reports}
	code, stdout, stderr := runMain(t, nil, append([]string{"refs", repo, "--json"}, flags...)...)
	var rep refsReport
	if err := json.Unmarshal([]byte(stdout), &rep); code != ExitOK || err != nil {
		t.Fatalf("refs --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if len(rep.Rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rep.Rows), rep.Rows)
	}
	if h := rep.Rows[0].Held; h == nil || h.Provision != "s. 19" || h.ChangedAfter != "yes" || h.ChangedBy != "provision" || h.ProvisionChange != "amended" || h.ChangedOn != "2026-11-15" || h.ProvisionAddress != s19 {
		t.Errorf("s. 19 cited before its amendment: %+v", h)
	}
	if h := rep.Rows[1].Held; h == nil || h.Provision != "s. 21" || h.ChangedAfter != "no" || h.ChangedBy != "provision" {
		t.Errorf("s. 21, which the change left as it was: %+v", h)
	}
	if h := rep.Rows[2].Held; h == nil || h.Provision != "s. 19" || h.ChangedAfter != "no" {
		t.Errorf("s. 19 cited after its amendment: %+v", h)
	}

	code, stdout, _ = runMain(t, nil, append([]string{"refs", repo}, flags...)...)
	for _, want := range []string{
		"3 of them cite a provision of a held whole text: 3 told by the provisions the change documents list, 0 by any change of the document",
		"1 references cite a document that changed after their date:",
		"test-oas s. 19 amended on 2026-11-15, after your reference of 2026-11-01",
	} {
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("refs: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}

	gh := githubtest.New(t, "rules", "engine", "tok")
	env := map[string]string{"GITHUB_REPOSITORY": "rules/engine", "GITHUB_API_URL": gh.URL, "GITHUB_TOKEN": "tok", "GITHUB_STEP_SUMMARY": filepath.Join(t.TempDir(), "summary.md")}
	code, _, stderr = runMain(t, env, append([]string{"refs", repo, "--issue", "--archive", "taxkernel/taxkernelbot@abc123",
		"--archive-url", "https://github.example/taxkernel/taxkernelbot/blob/abc123/"}, flags...)...)
	is := gh.Issues()
	if code != ExitOK || len(is) != 1 {
		t.Fatalf("refs --issue: exit %d, issues %+v\n%s", code, is, stderr)
	}
	body := is[0].Body
	for _, want := range []string{
		"TaxKernelBot: 1 cited document(s) changed after 1 reference(s) to them",
		"- Provision cited: [s. 19 amended](" + s19 + ")",
		"(https://github.example/taxkernel/taxkernelbot/blob/abc123/reports/changes/test-oas/2026-11-15_",
		"  - 19 (1): `$1,000` → `$1,050`\n",
	} {
		if !strings.Contains(is[0].Title+"\n"+body, want) {
			t.Errorf("the issue lacks %q:\n%s\n%s", want, is[0].Title, body)
		}
	}
	if strings.Contains(body, "section-21") || strings.Contains(body, "s. 21") {
		t.Errorf("the issue names s. 21, which did not change:\n%s", body)
	}
}
