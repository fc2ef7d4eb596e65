package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// datasetWorkspace is a record made by two runs in November 2026 on the
// fake clock: a capture on the 3rd and a check on the 4th.
func datasetWorkspace(t *testing.T) *workspace {
	t.Helper()
	a := newAuthority(t, map[string]http.HandlerFunc{
		"/robots.txt": status(404),
		"/doc": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<p>Basic rate | 20%</p>"))
		},
	})
	w := newWorkspace(t, testPolicy, "", src{"t-doc", a.url("/doc"), ""})
	w.clock = clock.NewFake(time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC))
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	w.clock = clock.NewFake(time.Date(2026, 11, 4, 9, 0, 0, 0, time.UTC))
	if code := w.run(ctx); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, w.out.String())
	}
	return w
}

func (w *workspace) dataset(t *testing.T, now time.Time, args ...string) (int, string) {
	t.Helper()
	return w.datasetEnv(t, now, nil, args...)
}

// datasetEnv runs dataset with env as its environment.
func (w *workspace) datasetEnv(t *testing.T, now time.Time, env map[string]string, args ...string) (int, string) {
	t.Helper()
	var out strings.Builder
	opts := datasetOptions{paths: w.paths, Clock: clock.NewFake(now), IO: IO{Out: &out, Err: &out, Getenv: func(k string) string { return env[k] }}}
	fs := newFlags("dataset", "", opts.IO)
	fs.StringVar(&opts.Out, "o", "", "")
	fs.StringVar(&opts.Month, "month", "", "")
	fs.StringVar(&opts.From, "from", "", "")
	fs.StringVar(&opts.To, "to", "", "")
	must(t, fs.Parse(args))
	err := runDataset(ctx, opts)
	if err != nil {
		out.WriteString(err.Error())
	}
	return exitCode(err), out.String()
}

var december = time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)

// TestDatasetThenVerifyDataset: the default month on the injected clock
// is the one before; its dataset verifies, and each damage fails verify
// with exit 1 naming the file.
func TestDatasetThenVerifyDataset(t *testing.T) {
	w := datasetWorkspace(t)
	dir := filepath.Join(t.TempDir(), "ds")
	code, out := w.dataset(t, december, "-o", dir)
	if code != ExitOK || !strings.Contains(out, "dataset 2026-11: wrote") {
		t.Fatalf("dataset: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "taxkernelbot-2026-11.warc.gz")); err != nil {
		t.Fatalf("the default period is not November, the month before the clock's: %v", err)
	}
	code, stdout, stderr := runMain(t, nil, "verify", "--dataset", dir)
	if code != ExitOK || !strings.Contains(stdout, "1 document(s)") {
		t.Fatalf("verify --dataset: exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "index.json"), append(data, ' '), 0o644))
	code, stdout, _ = runMain(t, nil, "verify", "--dataset", dir)
	if code != ExitFailures || !strings.Contains(stdout, "SHA256SUMS:") || !strings.Contains(stdout, "index.json hashes to") {
		t.Errorf("verify --dataset of a changed index.json: exit %d\n%s", code, stdout)
	}
}

// TestDatasetRefusesADamagedRecord: a blob whose bytes no longer match
// its hash stops the build (exit 3) and says which.
func TestDatasetRefusesADamagedRecord(t *testing.T) {
	w := datasetWorkspace(t)
	ix, err := store.LoadIndex(w.indexPath())
	must(t, err)
	sum := ix.Entries("t-doc")[0].SHA256
	blob := store.ReadOnly(w.Snapshots).Path(sum)
	data, err := os.ReadFile(blob)
	must(t, err)
	data[0] ^= 1
	must(t, os.Chmod(blob, 0o644))
	must(t, os.WriteFile(blob, data, 0o644))
	code, out := w.dataset(t, december, "-o", filepath.Join(t.TempDir(), "ds"))
	if code != ExitCannot || !strings.Contains(out, string(sum)) {
		t.Errorf("dataset of a record with a damaged blob: exit %d\n%s", code, out)
	}
}

func TestDatasetExitCodes(t *testing.T) {
	w := datasetWorkspace(t)
	code, out := w.dataset(t, december, "-o", filepath.Join(t.TempDir(), "ds"), "--month", "2026-09")
	if code != ExitCannot || !strings.Contains(out, "no source held any bytes between 2026-09-01 to 2026-09-30") {
		t.Errorf("an empty period: exit %d, want 3 with why\n%s", code, out)
	}
	code, out = w.dataset(t, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), "-o", filepath.Join(t.TempDir(), "ds"), "--month", "2026-11")
	if code != ExitUsage || !strings.Contains(out, "has not ended") {
		t.Errorf("the month under way: exit %d, want 2\n%s", code, out)
	}
	mine := t.TempDir()
	must(t, os.WriteFile(filepath.Join(mine, "notes.md"), []byte("mine\n"), 0o644))
	code, out = w.dataset(t, december, "-o", mine)
	if code != ExitUsage || !strings.Contains(out, "has no SHA256SUMS") {
		t.Errorf("a directory of someone else's: exit %d, want 2\n%s", code, out)
	}
	if data, _ := os.ReadFile(filepath.Join(mine, "notes.md")); string(data) != "mine\n" {
		t.Error("the refused directory was written")
	}
	code, out = w.dataset(t, december, "-o", filepath.Join(t.TempDir(), "ds"), "--from", "2026-11-01")
	if code != ExitUsage {
		t.Errorf("--from without --to: exit %d\n%s", code, out)
	}
	code, out = w.dataset(t, december, "-o", filepath.Join(t.TempDir(), "ds"), "--from", "2026-11-03", "--to", "2026-11-03")
	if code != ExitOK {
		t.Errorf("one day: exit %d\n%s", code, out)
	}
}
