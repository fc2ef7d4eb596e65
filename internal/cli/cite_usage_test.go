package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taxkernel/taxkernelbot/internal/store"
	usagepref "github.com/taxkernel/taxkernelbot/internal/usage"
)

// cite shows what the publisher said about the use of the bytes cited,
// as kept with them; bytes nobody said anything about show nothing.
func TestCiteShowsUsagePreferences(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	old, cur := store.Sum(strings.Repeat("a1", 32)), store.Sum(strings.Repeat("b2", 32))
	prefs := usagepref.Combine([]usagepref.Statement{
		{Field: usagepref.ContentUsage, From: "robots.txt line 4", Value: "train-ai=n"},
		{Field: usagepref.ContentSignal, From: "robots.txt line 2", Value: "search=yes, ai-train=no"},
	})
	ix := store.NewIndex()
	ix.Add("t-rates", store.Entry{SHA256: old, Size: 10, FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-01"}, "")
	ix.Add("t-rates", store.Entry{SHA256: cur, Size: 12, FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-11-15", Usage: prefs}, old)
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	flags := []string{"cite", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "t-rates"}

	code, stdout, stderr := runMain(t, nil, append(flags, "--json")...)
	var c citation
	if err := json.Unmarshal([]byte(stdout), &c); code != ExitOK || err != nil {
		t.Fatalf("cite --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if diff := cmp.Diff(prefs, c.Usage); diff != "" {
		t.Errorf("cite --json usage (-want +got):\n%s", diff)
	}
	code, stdout, _ = runMain(t, nil, flags...)
	if want := "usage:        Content-Usage train-ai=n; Content-Signal ai-train=no, search=yes"; code != ExitOK || !strings.Contains(stdout, want) {
		t.Errorf("cite: exit %d, no %q in:\n%s", code, want, stdout)
	}
	code, stdout, _ = runMain(t, nil, append(flags, "--at", "2026-10-02", "--json")...)
	if code != ExitOK || strings.Contains(stdout, `"usage"`) {
		t.Errorf("cite --at the earlier bytes: exit %d, want no usage:\n%s", code, stdout)
	}
}

// robots explains, beside the decision, the group's max-crawl-rate and
// what its Content-Usage and Content-Signal rules say of the URL
// (draft-ietf-aipref-attach-05's example, section 3.4).
func TestRobotsShowsRateAndUsage(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt":  text("User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\nContent-Signal: search=yes, ai-train=no\nmax-crawl-rate: 10/m\n"),
		"/ai-ok/rates": text("rates"),
	})
	w := newWorkspace(t, testPolicy, "", src{"test-rates", a.url("/ai-ok/rates"), ""})
	w.run(ctx)
	args := []string{"robots", "--manifests", w.Manifests, "--state", w.State}
	code, stdout, stderr := runMain(t, nil, append(args, "--json", a.url("/ai-ok/x"))...)
	if code != ExitOK {
		t.Fatalf("robots --json: exit %d\n%s", code, stderr)
	}
	var r robotsAnswer
	decode(t, stdout, &r)
	if r.MaxCrawlRate != "10/m" || r.Usage == nil ||
		!cmp.Equal(r.Usage.Usage, map[string]string{"train-ai": "y"}) || !cmp.Equal(r.Usage.Signal, map[string]string{"search": "yes", "ai-train": "no"}) {
		t.Errorf("robots --json /ai-ok/x: max_crawl_rate %q, usage %+v", r.MaxCrawlRate, r.Usage)
	}
	code, stdout, _ = runMain(t, nil, append(args, a.url("/law"))...)
	for _, want := range []string{"max-crawl-rate: 10/m (a request every 6s at most)", "usage preferences: Content-Usage train-ai=n; Content-Signal ai-train=no, search=yes"} {
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("robots /law: exit %d, no %q in:\n%s", code, want, stdout)
		}
	}
	code, stdout, _ = runMain(t, nil, append(args, "--json", a.url("/never/x"))...)
	if code != ExitOK || strings.Contains(stdout, `"usage"`) {
		t.Errorf("robots --json of a disallowed URL: exit %d, want no usage (attach-05 3.1):\n%s", code, stdout)
	}
}

// End to end: a run over a host whose robots.txt has a Content-Signal line
// and whose document answers with a Content-Usage header keeps both with
// the capture; coverage.json, `report` from the state and cite say them.
func TestARunKeepsUsagePreferences(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": text("User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n"),
		"/rates": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Usage", "train-ai=n")
			w.Write([]byte("Basic rate 20% on taxable income from 12,571 to 50,270.\n"))
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"test-rates", a.url("/rates"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	want := map[string]string{"search": "yes", "ai-train": "no"}
	check := func(when string) {
		t.Helper()
		e := w.report()["test-rates"]
		if e.Usage == nil || !cmp.Equal(e.Usage.Signal, want) || !cmp.Equal(e.Usage.Usage, map[string]string{"train-ai": "n"}) {
			t.Errorf("coverage.json %s: usage %+v", when, e.Usage)
		}
	}
	check("after the run")
	must(t, os.Remove(filepath.Join(w.Reports, "coverage.json")))
	if code, stdout, stderr := runMain(t, nil, "report", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State); code != ExitOK {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	check("written again by report from the state")
	code, stdout, _ := runMain(t, nil, "cite", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "test-rates")
	if code != ExitOK || !strings.Contains(stdout, "usage:        Content-Usage train-ai=n; Content-Signal ai-train=no, search=yes") {
		t.Errorf("cite: exit %d\n%s", code, stdout)
	}
}
