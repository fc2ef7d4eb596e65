package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// commitMain commits files (repository path → local file) to the main
// branch of a new repository at dir.
func commitMain(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	must(t, err)
	wt, err := repo.Worktree()
	must(t, err)
	for rel, local := range files {
		data, err := os.ReadFile(local)
		must(t, err)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, data, 0o644))
		_, err = wt.Add(rel)
		must(t, err)
	}
	_, err = wt.Commit("coverage as merged", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}})
	must(t, err)
}

// publish --preview prints what publishing would send, from a real git
// checkout: the changed rates page with its text diff, and nothing for a
// page whose token blinks.
func TestPublishPreview(t *testing.T) {
	var edition atomic.Int64
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates": func(w http.ResponseWriter, r *http.Request) {
			band := "£37,700"
			if edition.Load() > 0 {
				band = "£37,500"
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><body><h1>Rates</h1><table><tr><td>Basic rate band</td><td>%s</td></tr><tr><td>Higher rate</td><td>40%%</td></tr></table></body></html>", band)
		},
		"/forms": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><meta name="csrf-token" content="tok-%d"></head><body><p>File by 31 January.</p></body></html>`, edition.Load())
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-rates", a.url("/rates"), "    encodes: [test.income-tax.bands]\n"}, src{"t-forms", a.url("/forms"), ""})
	if code := w.run(t.Context()); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s", code, w.out.String())
	}
	// main is what a reviewer merged after the first run.
	repoDir := t.TempDir()
	files := map[string]string{"reports/coverage.json": filepath.Join(w.Reports, "coverage.json")}
	rep := w.report()
	for _, id := range []string{"t-rates", "t-forms"} {
		sum := rep[id].SHA256
		files["snapshots/"+store.BlobPath(sum)] = filepath.Join(w.Snapshots, filepath.FromSlash(store.BlobPath(sum)))
	}
	commitMain(t, repoDir, files)
	oldRates := rep["t-rates"].SHA256

	edition.Store(1)
	if code := w.run(t.Context()); code != ExitOK {
		t.Fatalf("second run: exit %d\n%s", code, w.out.String())
	}
	// The old bytes are only on main now: the preview reads them there.
	must(t, os.Remove(filepath.Join(w.Snapshots, filepath.FromSlash(store.BlobPath(oldRates)))))

	code, out, errOut := runMain(t, nil, "publish", "--preview", "--repo", repoDir,
		"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State)
	if code != ExitOK {
		t.Fatalf("publish --preview: exit %d\n%s%s", code, out, errOut)
	}
	for _, must := range []string{
		"Title: TaxKernelBot: 1 document changed",
		"encodes `test.income-tax.bands`",
		"```diff",
		"-Basic rate band | £37,700",
		"+Basic rate band | £37,500",
		"**£37,700** → **£37,500**",
	} {
		if !strings.Contains(out, must) {
			t.Errorf("preview lacks %q:\n%s", must, out)
		}
	}
	if strings.Contains(out, "t-forms") {
		t.Errorf("the blinking page shows in the preview:\n%s", out)
	}

	// Outside a repository: a clear error.
	code, _, errOut = runMain(t, nil, "publish", "--preview", "--repo", t.TempDir(),
		"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State)
	if code == ExitOK || !strings.Contains(errOut, "not in a git repository") {
		t.Errorf("preview outside a repository: exit %d, %s", code, errOut)
	}
}

// The preview's summary table counts every section it lists below it,
// the sources still failing from before included.
func TestPublishPreviewTableCountsStillFailing(t *testing.T) {
	var edition atomic.Int64
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates":      func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "rates, edition %d", edition.Load()) },
		"/old":        status(404),
	})
	w := newWorkspace(t, testPolicy, "", src{"test-rates", a.url("/rates"), ""}, src{"test-old", a.url("/old"), ""})
	w.run(t.Context())
	repoDir := t.TempDir()
	sum := w.report()["test-rates"].SHA256
	commitMain(t, repoDir, map[string]string{
		"reports/coverage.json":            filepath.Join(w.Reports, "coverage.json"),
		"snapshots/" + store.BlobPath(sum): filepath.Join(w.Snapshots, filepath.FromSlash(store.BlobPath(sum))),
	})
	edition.Store(1)
	w.run(t.Context())
	code, out, errOut := runMain(t, nil, "publish", "--preview", "--repo", repoDir,
		"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State)
	if code != ExitOK {
		t.Fatalf("publish --preview: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "### Still failing (1)") {
		t.Fatalf("the preview lists no source still failing:\n%s", out)
	}
	table, _, _ := strings.Cut(out, "\n###")
	for _, row := range []string{"| Documents that changed | 1 |", "| Still failing | 1 |"} {
		if !strings.Contains(table, row) {
			t.Errorf("the summary table lacks %q:\n%s", row, table)
		}
	}
}

// The preview lists the next edition a held page links to, as the pull
// request will, without requesting it.
func TestPublishPreviewProposesANewEdition(t *testing.T) {
	var asked atomic.Int64
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/rates-2025-26": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>\n<p>Rates 2025 to 2026</p>\n<a href=\"/rates-2026-27\">Rates 2026 to 2027</a>\n</body></html>")
		},
		"/rates-2026-27": func(w http.ResponseWriter, r *http.Request) { asked.Add(1) },
	})
	w := newWorkspace(t, testPolicy, "", src{"test-rates-2025-26", a.url("/rates-2025-26"), ""})
	if code := w.run(t.Context()); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	repoDir := t.TempDir()
	readme := filepath.Join(t.TempDir(), "README.md")
	must(t, os.WriteFile(readme, []byte("tax\n"), 0o644))
	commitMain(t, repoDir, map[string]string{"README.md": readme})

	code, out, errOut := runMain(t, nil, "publish", "--preview", "--repo", repoDir,
		"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State)
	if code != ExitOK {
		t.Fatalf("publish --preview: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"### New editions (1)", a.url("/rates-2026-27"), "line 3", "  - id: test-rates-2026-27"} {
		if !strings.Contains(out, want) {
			t.Errorf("preview lacks %q:\n%s", want, out)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the new edition's address was requested %d time(s)", n)
	}
}
