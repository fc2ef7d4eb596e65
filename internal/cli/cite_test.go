package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

func TestCiteJSONAndAt(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	oldSum, newSum := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	ix := store.NewIndex()
	ix.Add("t-rates", store.Entry{SHA256: store.Sum(oldSum), Size: 10, ContentType: "text/html", FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-10-01"})
	ix.Add("t-rates", store.Entry{SHA256: store.Sum(newSum), Size: 12, ContentType: "application/pdf", FinalURL: "http://127.0.0.1:1/rates.pdf", FirstSeen: "2026-11-15"})
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
		Source: "t-rates", Jurisdiction: "test", Title: "t-rates",
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
		Source: "t-rates", Jurisdiction: "test", Title: "t-rates",
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
