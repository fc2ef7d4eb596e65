package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"

	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

func TestCiteJSONAndAt(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	oldSum, newSum := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	ix := store.NewIndex()
	ix.Add("t-rates", store.Entry{SHA256: store.Sum(oldSum), Size: 10, ContentType: "text/html", FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-01"}, "")
	ix.Add("t-rates", store.Entry{SHA256: store.Sum(newSum), Size: 12, ContentType: "application/pdf", FinalURL: "http://127.0.0.1:1/rates.pdf", FirstSeen: "2026-11-15"}, "")
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	if _, err := textview.Save(w.Snapshots, newSum, textview.Result{Text: "Basic rate 20%\n"}); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}
	cite := func(args ...string) (int, citation, string) {
		t.Helper()
		code, stdout, stderr := runMain(t, nil, append(append([]string{"cite"}, flags...), args...)...)
		var c citation
		if code == ExitOK && strings.Contains(strings.Join(args, " "), "--json") {
			if err := json.Unmarshal([]byte(stdout), &c); err != nil {
				t.Fatalf("cite %v: not JSON (%v):\n%s", args, err, stdout)
			}
		}
		return code, c, stdout + stderr
	}

	code, c, out := cite("t-rates", "--json")
	want := citation{
		Source: "t-rates", Jurisdiction: "test", JurisdictionName: "Test", Title: "t-rates",
		URL: "http://127.0.0.1:1/rates", FinalURL: "http://127.0.0.1:1/rates.pdf",
		Retrieved: "2026-11-15", FirstSeen: "2026-11-15", SHA256: store.Sum(newSum), Size: 12, ContentType: "application/pdf",
		Blob: filepath.ToSlash(filepath.Join(w.Snapshots, "sha256", "b2", newSum)),
		Text: filepath.ToSlash(filepath.Join(w.Snapshots, "text", textview.Version, "b2", newSum+".txt")),
	}
	if code != ExitOK || c != want {
		t.Errorf("cite --json: exit %d\n got %+v\nwant %+v\n%s", code, c, want, out)
	}

	code, c, out = cite("t-rates", "--at", "2026-11-14", "--json")
	want = citation{
		Source: "t-rates", Jurisdiction: "test", JurisdictionName: "Test", Title: "t-rates",
		URL: "http://127.0.0.1:1/rates", FinalURL: "http://127.0.0.1:1/rates",
		Retrieved: "2026-10-01", FirstSeen: "2026-10-01", SHA256: store.Sum(oldSum), Size: 10, ContentType: "text/html",
		Blob:        filepath.ToSlash(filepath.Join(w.Snapshots, "sha256", "a1", oldSum)),
		TextMissing: "no text view of these bytes for extractor " + textview.Version + " yet",
		At:          "2026-11-14", HeldUntil: "2026-11-15",
	}
	if code != ExitOK || c != want {
		t.Errorf("cite --at 2026-11-14: exit %d\n got %+v\nwant %+v\n%s", code, c, want, out)
	}
	if code, c, _ := cite("--at", "2026-11-15", "--json", "t-rates"); code != ExitOK || c.SHA256 != store.Sum(newSum) {
		t.Errorf("cite --at the day of the change: exit %d, sha %s, want the new bytes", code, c.SHA256)
	}

	code, _, out = cite("t-rates", "--at", "2026-11-14")
	for _, line := range []string{"at:           2026-11-14", "held_until:   2026-11-15", "sha256:       " + oldSum, "text:         none (no text view"} {
		if code != ExitOK || !strings.Contains(out, line) {
			t.Errorf("cite --at (text): exit %d, no %q in:\n%s", code, line, out)
		}
	}
	if code, _, out := cite("t-rates", "--at", "2026-09-30"); code != ExitCannot || !strings.Contains(out, "held no bytes on 2026-09-30; the first were retrieved on 2026-10-01") {
		t.Errorf("cite --at before any bytes: exit %d\n%s", code, out)
	}
	if code, _, out := cite("t-rates", "--at", "15/11/2026"); code != ExitUsage || !strings.Contains(out, "write it as YYYY-MM-DD") {
		t.Errorf("cite --at with a bad date: exit %d\n%s", code, out)
	}
}

// A document put back to its earlier version (A, then B, then A again):
// cite --at after the return cites A, retrieved on the day it came back,
// and B is held only until then.
func TestCiteAtAfterAReturnToEarlierBytes(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	a, b := store.Sum(strings.Repeat("a1", 32)), store.Sum(strings.Repeat("b2", 32))
	ix := store.NewIndex()
	ix.Add("t-rates", store.Entry{SHA256: a, Size: 10, FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-01"}, "")
	ix.Add("t-rates", store.Entry{SHA256: b, Size: 12, FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-10"}, a)
	ix.Add("t-rates", store.Entry{SHA256: a, Size: 10, FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-20"}, b)
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "--json"}
	for _, tc := range []struct {
		at                              string
		sha                             store.Sum
		retrieved, firstSeen, heldUntil string
	}{
		{"2026-10-05", a, "2026-10-01", "2026-10-01", "2026-10-10"},
		{"2026-10-15", b, "2026-10-10", "2026-10-10", "2026-10-20"},
		{"2026-10-25", a, "2026-10-20", "2026-10-01", ""},
	} {
		code, stdout, stderr := runMain(t, nil, append([]string{"cite", "t-rates", "--at", tc.at}, flags...)...)
		var c citation
		if code != ExitOK || json.Unmarshal([]byte(stdout), &c) != nil {
			t.Fatalf("cite --at %s: exit %d\n%s%s", tc.at, code, stdout, stderr)
		}
		if c.SHA256 != tc.sha || c.Retrieved != tc.retrieved || c.FirstSeen != tc.firstSeen || c.HeldUntil != tc.heldUntil {
			t.Errorf("cite --at %s: sha %.4s retrieved %s first_seen %s held_until %q; want %.4s %s %s %q",
				tc.at, c.SHA256, c.Retrieved, c.FirstSeen, c.HeldUntil, tc.sha, tc.retrieved, tc.firstSeen, tc.heldUntil)
		}
	}
}

// End to end: runs on three days that are served A, B, then A again leave
// the return in snapshots/index.json, and cite --at follows it.
func TestRunsRecordAReturnForCite(t *testing.T) {
	bodies := []string{"<p>Basic rate 20%</p>", "<p>Basic rate 21%</p>", "<p>Basic rate 20%</p>"}
	var day int
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates":      func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, bodies[day]) },
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	clk := clock.NewFake(time.Date(2026, 10, 1, 10, 0, 0, 0, time.UTC))
	w.clock = clk
	for day = range bodies {
		if code := w.run(t.Context()); code != ExitOK {
			t.Fatalf("run on day %d: exit %d\n%s", day, code, w.out.String())
		}
		clk.Advance(24 * time.Hour)
	}
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "--json"}
	code, stdout, stderr := runMain(t, nil, append([]string{"cite", "t-rates", "--at", "2026-10-03"}, flags...)...)
	var c citation
	if code != ExitOK || json.Unmarshal([]byte(stdout), &c) != nil {
		t.Fatalf("cite: exit %d\n%s%s", code, stdout, stderr)
	}
	if c.FirstSeen != "2026-10-01" || c.Retrieved != "2026-10-03" {
		t.Errorf("cite --at 2026-10-03: first_seen %s, retrieved %s; want the first version, back on 2026-10-03", c.FirstSeen, c.Retrieved)
	}
}

// A citation's author is the jurisdiction as its manifest names it
// (name:), not its code.
func TestCiteNamesTheJurisdiction(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"test-rates", "http://127.0.0.1:1/rates", ""})
	sum := strings.Repeat("c3", 32)
	ix := store.NewIndex()
	ix.Add("test-rates", store.Entry{SHA256: store.Sum(sum), Size: 3, ContentType: "text/html", FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-01"}, "")
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	flags := []string{"cite", "test-rates", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}
	code, stdout, stderr := runMain(t, nil, flags...)
	if first, _, _ := strings.Cut(stdout, "\n"); code != ExitOK || !strings.HasPrefix(first, `Test. "test-rates". http://127.0.0.1:1/rates. Retrieved 2026-10-01.`) {
		t.Errorf("cite: exit %d, first line %q: want the manifest's name, Test\n%s", code, first, stderr)
	}
	code, stdout, _ = runMain(t, nil, append(flags, "--json")...)
	var c citation
	if err := json.Unmarshal([]byte(stdout), &c); code != ExitOK || err != nil || c.JurisdictionName != "Test" || c.Jurisdiction != "test" {
		t.Errorf("cite --json: exit %d, %v: jurisdiction %q, jurisdiction_name %q; want test and Test\n%s", code, err, c.Jurisdiction, c.JurisdictionName, stdout)
	}
}

// TestCiteInACheckoutFindsTheSourcesText: in a checkout of main, which
// keeps each source's text of what it serves now at one path, cite names
// that file for the current bytes; for earlier bytes (cite --at) it says
// the text is in that file's history, and how to read it.
func TestCiteInACheckoutFindsTheSourcesText(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	oldSum, newSum := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	ix := store.NewIndex()
	ix.Add("t-rates", store.Entry{SHA256: store.Sum(oldSum), Size: 10, ContentType: "text/html", FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-01"}, "")
	ix.Add("t-rates", store.Entry{SHA256: store.Sum(newSum), Size: 12, ContentType: "text/html", FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-11-15"}, "")
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	for _, ch := range (botrepo.Text{Text: []byte("Basic rate 20%\n"), Reason: []byte("cut short\n"), Engine: "html: builtin"}).Changes("t-rates", store.Sum(newSum)) {
		p := filepath.Join(w.Snapshots, filepath.FromSlash(strings.TrimPrefix(ch.Path, "snapshots/")))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, ch.Data, 0o644))
	}
	local := filepath.ToSlash(filepath.Join(w.Snapshots, "text", textview.Version, "t-rates.txt"))
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State, "--json"}
	cite := func(args ...string) citation {
		t.Helper()
		code, stdout, stderr := runMain(t, nil, append(append([]string{"cite"}, flags...), args...)...)
		var c citation
		if code != ExitOK || json.Unmarshal([]byte(stdout), &c) != nil {
			t.Fatalf("cite %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return c
	}
	if c := cite("t-rates"); c.Text != local || c.TextReason != "cut short" || c.TextMissing != "" {
		t.Errorf("cite of the current bytes: text %q, reason %q, missing %q; want %s, its reason", c.Text, c.TextReason, c.TextMissing, local)
	}
	c := cite("t-rates", "--at", "2026-11-14")
	if c.Text != "" || !strings.Contains(c.TextMissing, "git log -p -- "+local) || !strings.Contains(c.TextMissing, "sha256 "+oldSum) {
		t.Errorf("cite --at of earlier bytes: text %q, missing %q; want where the history keeps it", c.Text, c.TextMissing)
	}
}
