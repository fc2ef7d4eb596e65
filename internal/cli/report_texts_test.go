package cli

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// TestReportDerivesAnOlderTextFromTheStores: a checkout of main whose
// bytes are in the stores keeps the text of what each source serves now
// only; report renders a change's diff all the same, the older version's
// text derived again from its bytes in the release assets. Without a
// store to ask, it says which bytes it could not have, and the change
// shows no text diff.
func TestReportDerivesAnOlderTextFromTheStores(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	body := "Basic rate 20% on income from 12,571.\n"
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/rates": func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Write([]byte(body))
	}})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	mu.Lock()
	body = "Basic rate 19% on income from 12,571.\n"
	mu.Unlock()
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run again: exit %d\n%s", code, w.out.String())
	}
	ix, err := store.LoadIndex(w.indexPath())
	must(t, err)
	es := ix.Entries("t-rates")
	if len(es) != 2 {
		t.Fatalf("t-rates has %d entries, want two versions", len(es))
	}
	old, cur := es[0].SHA256, es[1].SHA256

	// main as the bot leaves it with stores: the older bytes in the release
	// assets, the current text at the source's path, no blob, no text by hash.
	gh := githubtest.New(t, "acme", "tax", "tok")
	env := releasesEnv(gh)
	cfg, err := github.ConfigFromEnv(func(k string) string { return env[k] })
	must(t, err)
	client, err := github.NewClient(cfg, nil)
	must(t, err)
	rel, err := blobs.NewReleases(client, blobs.ReleasesOptions{})
	must(t, err)
	data, err := os.ReadFile(store.ReadOnly(w.Snapshots).Path(old))
	must(t, err)
	must(t, rel.Save(ctx, old, bytes.NewReader(data), int64(len(data))))
	res, ok, err := textview.Load(w.Snapshots, string(cur))
	if err != nil || !ok {
		t.Fatalf("the run kept no text of the current bytes: %v", err)
	}
	must(t, os.RemoveAll(filepath.Join(w.Snapshots, "sha256")))
	must(t, os.RemoveAll(filepath.Join(w.Snapshots, textview.TextDir)))
	for _, ch := range (botrepo.Text{Text: []byte(res.Text), Engine: string(res.Kind) + ": " + res.Engine}).Changes("t-rates", cur) {
		if ch.Data == nil {
			continue
		}
		p := filepath.Join(w.Snapshots, filepath.FromSlash(strings.TrimPrefix(ch.Path, "snapshots/")))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, ch.Data, 0o644))
	}

	feed := filepath.Join(w.Reports, "feeds", "sources", "t-rates.atom")
	args := []string{"report", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State}
	code, stdout, stderr := runMain(t, env, args...)
	got, _ := os.ReadFile(feed)
	if code != ExitOK || !strings.Contains(string(got), "-Basic rate 20%") || !strings.Contains(string(got), "#43;Basic rate 19%") {
		t.Errorf("report with the bytes in the release assets: exit %d, t-rates' feed shows no diff of its older text:\n%s\n%s%s", code, got, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, nil, args...)
	got, _ = os.ReadFile(feed)
	if code != ExitOK || !strings.Contains(stderr, "the bytes of "+old.Short()) || !strings.Contains(stderr, "shows no text diff") || !strings.Contains(string(got), "No text diff") {
		t.Errorf("report with no store to ask: exit %d, want the older bytes named and no diff shown:\n%s\n%s%s", code, got, stdout, stderr)
	}

	// A pull request's check has no token, but the index says where
	// anyone downloads the older bytes: the release asset's link, asked
	// with no credentials and re-hashed. An address that serves other
	// bytes is refused, and the next address the index records is asked.
	link, err := rel.URL(ctx, old)
	must(t, err)
	for _, tc := range []struct {
		name string
		held store.Holding
		diff bool
	}{
		{"a link serving other bytes", store.Holding{Store: "a-mirror", URL: a.url("/rates")}, false},
		{"the release asset's public link after it", store.Holding{Store: "releases", URL: link}, true},
	} {
		ix, err := store.LoadIndex(w.indexPath())
		must(t, err)
		ix.SetHeld(old, []store.Holding{tc.held})
		must(t, ix.Save(w.indexPath()))
		code, stdout, stderr = runMain(t, nil, args...)
		got, _ = os.ReadFile(feed)
		shown := strings.Contains(string(got), "-Basic rate 20%") && strings.Contains(string(got), "#43;Basic rate 19%")
		if code != ExitOK || shown != tc.diff || !tc.diff && !strings.Contains(stderr, "the bytes of "+old.Short()) {
			t.Errorf("report with no token and %s: exit %d, diff shown %t, want %t:\n%s\n%s%s", tc.name, code, shown, tc.diff, got, stdout, stderr)
		}
	}
}
