package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// releasesEnv is GitHub Actions' environment for the fake's repository.
func releasesEnv(gh *githubtest.Fake) map[string]string {
	return map[string]string{"GITHUB_REPOSITORY": gh.Owner + "/" + gh.Repo, "GITHUB_TOKEN": gh.Token,
		"GITHUB_API_URL": gh.URL, "GITHUB_SERVER_URL": gh.URL}
}

// TestMigrateMovesMainsBlobsToTheStoresAcrossRuns: a checkout whose
// snapshots/ holds blobs moves them to the repository's release assets,
// at most --max a run, each run taking up where the last stopped; then a
// month's dataset is built with its bytes from the release assets alone.
func TestMigrateMovesMainsBlobsToTheStoresAcrossRuns(t *testing.T) {
	w := datasetWorkspace(t)
	ix, err := store.LoadIndex(w.indexPath())
	must(t, err)
	var sums []store.Sum
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			sums = append(sums, e.SHA256)
		}
	}
	if len(sums) == 0 {
		t.Fatal("the workspace holds no blob")
	}
	gh := githubtest.New(t, "acme", "tax", "tok")
	env := releasesEnv(gh)
	args := []string{"migrate", "--manifests", w.Manifests, "--snapshots", w.Snapshots}

	if code, _, stderr := runMain(t, nil, args...); code != ExitUsage || !strings.Contains(stderr, "no store to move the bytes to") {
		t.Errorf("migrate with no store: exit %d\n%s", code, stderr)
	}
	code, _, stderr := runMain(t, env, append(args, "--max", "1")...)
	if code != ExitOK || !strings.Contains(stderr, "1 upload(s)") || (len(sums) > 1) != strings.Contains(stderr, "run migrate again") {
		t.Fatalf("migrate --max 1 of %d blob(s): exit %d\n%s", len(sums), code, stderr)
	}
	code, _, stderr = runMain(t, env, args...)
	if code != ExitOK || !strings.Contains(stderr, "every one of the") {
		t.Fatalf("migrate again: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runMain(t, env, args...)
	if code != ExitOK || !strings.Contains(stderr, "0 upload(s)") {
		t.Errorf("migrate once all is moved: exit %d, want no upload\n%s", code, stderr)
	}
	held := map[string]string{}
	for _, rel := range gh.Releases() {
		for _, a := range rel.Assets {
			held[a.Name] = string(a.Data)
		}
	}
	for _, sum := range sums {
		data, err := os.ReadFile(store.ReadOnly(w.Snapshots).Path(sum))
		must(t, err)
		if held[string(sum)] != string(data) {
			t.Errorf("the release assets lack %.12s", sum)
		}
	}

	// Main keeps the record, not the bytes: the month's dataset brings
	// them from the release assets.
	must(t, os.RemoveAll(filepath.Join(w.Snapshots, "sha256")))
	for k, v := range env {
		t.Setenv(k, v)
	}
	dir := filepath.Join(t.TempDir(), "ds")
	code, out := w.datasetEnv(t, december, env, "-o", dir)
	if code != ExitOK || !strings.Contains(out, "from github-releases:acme/tax, sha256 verified") {
		t.Fatalf("dataset with its bytes in the release assets: exit %d\n%s", code, out)
	}
	if code, stdout, stderr := runMain(t, nil, "verify", "--dataset", dir); code != ExitOK {
		t.Errorf("verify --dataset: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestCitePrintsWhereAnyoneDownloadsTheBytes: an entry whose bytes a
// store with public links holds is cited with that link.
func TestCitePrintsWhereAnyoneDownloadsTheBytes(t *testing.T) {
	w := newWorkspace(t, testPolicy, "", src{"t-rates", "http://127.0.0.1:1/rates", ""})
	sum := store.Sum(strings.Repeat("c3", 32))
	link := "https://github.com/acme/tax/releases/download/blobs-2026-11/" + string(sum)
	ix := store.NewIndex()
	ix.Add("t-rates", store.Entry{SHA256: sum, Size: 10, ContentType: "application/pdf", FinalURL: "http://127.0.0.1:1/rates", FirstSeen: "2026-11-01",
		Held: []store.Holding{{Store: "github-releases:acme/tax", URL: link}, {Store: "s3:archive/"}}}, "")
	must(t, ix.Save(filepath.Join(w.Snapshots, "index.json")))
	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}
	code, stdout, stderr := runMain(t, nil, append([]string{"cite", "t-rates"}, flags...)...)
	if code != ExitOK || !strings.Contains(stdout, "bytes_url:    "+link+"\n") {
		t.Errorf("cite: exit %d, want bytes_url %s\n%s%s", code, link, stdout, stderr)
	}
	code, stdout, _ = runMain(t, nil, append([]string{"cite", "t-rates", "--json"}, flags...)...)
	if code != ExitOK || !strings.Contains(stdout, `"bytes_url": "`+link+`"`) {
		t.Errorf("cite --json: exit %d, want bytes_url\n%s", code, stdout)
	}
}

// TestVerifyStoresCountsTheCacheBranchsCopy: after the fetch job's
// cycles, every cited hash is held twice, by the release assets and by the
// cache branch as the runner's git store holds it, and verify --stores
// --copies 2 says so; without the cache branch's copy it names each hash
// held once.
func TestVerifyStoresCountsTheCacheBranchsCopy(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": status(404), "/rates": text("income tax rates 2026")})
	p := newPipelineRepo(t)
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), ""})
	if code := p.ci(w, "100-1"); code != ExitOK {
		t.Fatalf("first ci: exit %d\n%s", code, w.out.String())
	}
	// The next run finds the bytes in the release assets: they leave
	// pending/ for the cache branch's blobs/.
	if code := p.ci(w, "101-1"); code != ExitOK {
		t.Fatalf("second ci: exit %d\n%s", code, w.out.String())
	}
	sum := w.report()["t-rates"].SHA256
	if p.file(t, botrepo.CacheBranch, botrepo.CacheBlobPath(store.Sum(sum))) != "income tax rates 2026" {
		t.Fatalf("the cache branch keeps no copy of %.12s under blobs/", sum)
	}
	empty := t.TempDir() // a checkout of main: no blob of its own
	data, err := os.ReadFile(w.indexPath())
	must(t, err)
	must(t, os.WriteFile(filepath.Join(empty, "index.json"), data, 0o644))
	args := []string{"verify", "--stores", "--copies", "2", "--manifests", w.Manifests, "--snapshots", empty}
	code, stdout, stderr := runMain(t, p.env, append(args, "--state", w.State)...)
	if code != ExitOK || !strings.Contains(stdout, "fetch-cache:acme/tax") {
		t.Errorf("verify --stores --copies 2 with the cache branch: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runMain(t, p.env, append(args, "--state", t.TempDir())...)
	if code != ExitFailures || !strings.Contains(stdout, "held by 1 of the 2 store(s)") {
		t.Errorf("verify --stores --copies 2 without the cache branch's copy: exit %d, want each hash named as held once\n%s", code, stdout)
	}
}
