package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refs reads a rules repository's parameters and matches each reference to
// the held bytes: the sha256 and dates come from the index a run wrote.
func TestRefsMatchesAHeldSource(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nAllow: /\n"),
		"/act":        text("the whole act"),
	})
	w := newWorkspace(t, testPolicy, "", src{"t-act", a.url("/act"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	repo := t.TempDir()
	params := filepath.Join(repo, "pkg", "parameters", "gov")
	must(t, os.MkdirAll(params, 0o755))
	must(t, os.WriteFile(filepath.Join(params, "rate.yaml"), []byte(`description: A rate.
values:
  2019-01-01:
    value: 0.2
    metadata:
      reference:
        title: The act, as read in 2019
        href: `+a.url("/act#s1")+`
  2099-01-01:
    value: 0.3
    reference:
      - title: The act, read far ahead
        href: `+a.url("/act")+`
metadata:
  reference:
    - title: A guide not held
      href: https://www.example.org/guide
`), 0o644))
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}
	code, stdout, stderr := runMain(t, nil, append([]string{"refs", repo, "--json"}, flags...)...)
	if code != ExitOK {
		t.Fatalf("refs --json: exit %d\n%s", code, stderr)
	}
	var rep refsReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	held := w.report()["t-act"].SHA256
	if rep.References != 3 || rep.Files != 1 || len(rep.Rows) != 3 || rep.TopHeld != 1 {
		t.Fatalf("summary %+v", rep)
	}
	r0, r1, r2 := rep.Rows[0], rep.Rows[1], rep.Rows[2]
	if r0.Match.Kind != "normalised" || r0.Match.Source != "t-act" || r0.Held == nil || r0.Held.SHA256 != held ||
		r0.Held.RefDate != "2019-01-01" || r0.Held.RefDateFrom != "date-key" || r0.Held.OnRefDate != "" || r0.Held.ChangedAfter != "unknown" || r0.Held.FirstRetrieved == "" {
		t.Errorf("a reference dated before the first bytes held: %+v %+v", r0.Match, r0.Held)
	}
	if r1.Match.Kind != "exact" || r1.Held == nil || r1.Held.OnRefDate != held || r1.Held.ChangedAfter != "no" || r1.Parameter != "gov.rate" || r1.Level != "value" {
		t.Errorf("a reference dated after: %+v %+v", r1, r1.Held)
	}
	if r2.Match.Kind != "none" || r2.Held != nil || r2.Line != 17 {
		t.Errorf("an unmatched reference: %+v", r2)
	}

	code, stdout, _ = runMain(t, nil, append([]string{"refs", repo}, flags...)...)
	for _, want := range []string{"3 references in 1 files, 2 distinct URLs", "exact", "the 2 documents cited by most files: 1 held"} {
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("refs: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
	code, stdout, _ = runMain(t, nil, append([]string{"refs", repo, "--suggest", "--jurisdiction", "test"}, flags...)...)
	if code != ExitOK || !strings.Contains(stdout, "  - id: test-a-guide-not-held\n    url: https://www.example.org/guide\n    kind: rates-page\n") || strings.Contains(stdout, a.url("/act")) {
		t.Errorf("refs --suggest: exit %d, want the guide alone as an entry:\n%s", code, stdout)
	}
}

func TestRefsRefusesWhatIsNotACheckout(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-act", "http://127.0.0.1:1/act", ""})
	for _, args := range [][]string{
		{"refs", "--manifests", w.Manifests},
		{"refs", filepath.Join(t.TempDir(), "missing"), "--manifests", w.Manifests},
		{"refs", t.TempDir(), "--top", "0", "--manifests", w.Manifests},
	} {
		if code, stdout, stderr := runMain(t, nil, args...); code != ExitUsage || stdout != "" || stderr == "" {
			t.Errorf("%v: exit %d, want 2 with a message\nstdout %q\nstderr %q", args, code, stdout, stderr)
		}
	}
}
