package cli

import (
	"encoding/json"
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
