package atomicfile

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestWriteFilesIfChanged: new and changed files are written, unchanged
// ones are left alone (their mtime too), and an error names the first
// file that failed while the others are written all the same.
func TestWriteFilesIfChanged(t *testing.T) {
	dir := t.TempDir()
	same, changed, fresh := filepath.Join(dir, "same.xml"), filepath.Join(dir, "changed.xml"), filepath.Join(dir, "sub", "new.xml")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(same, []byte("a"), 0o644))
	must(os.WriteFile(changed, []byte("old"), 0o644))
	must(os.MkdirAll(filepath.Dir(fresh), 0o755))
	before, err := os.Stat(same)
	must(err)
	wrote, err := WriteFilesIfChanged([]Named{{same, []byte("a")}, {changed, []byte("new")}, {fresh, []byte("n")}}, 0o644)
	must(err)
	if want := []bool{false, true, true}; !slices.Equal(wrote, want) {
		t.Errorf("written %v, want %v", wrote, want)
	}
	for path, want := range map[string]string{same: "a", changed: "new", fresh: "n"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s holds %q, %v; want %q", path, got, err, want)
		}
	}
	if after, err := os.Stat(same); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the unchanged file was rewritten")
	}
	if left, err := Sweep(dir); err != nil || len(left) > 0 {
		t.Errorf("temp files left: %v, %v", left, err)
	}

	// A directory where a file should be: that one fails, the next is written.
	blocked := filepath.Join(dir, "blocked")
	must(os.MkdirAll(filepath.Join(blocked, "x"), 0o755))
	after := filepath.Join(dir, "after.xml")
	wrote, err = WriteFilesIfChanged([]Named{{blocked, []byte("b")}, {after, []byte("c")}}, 0o644)
	if err == nil || !strings.HasPrefix(err.Error(), "write "+blocked+": ") {
		t.Errorf("error %v, want one that names %s", err, blocked)
	}
	if got, _ := os.ReadFile(after); string(got) != "c" || !wrote[1] {
		t.Errorf("the file after the failing one: %q, written %v", got, wrote)
	}
}

// TestWriteFilesIfChangedFlushesEachNewName: every directory that got a
// new name is flushed, once, whatever the number of files in it; one with
// nothing new is not; a failed flush is the error, the first directory's
// in name order when several fail (not one picked by map order).
func TestWriteFilesIfChangedFlushesEachNewName(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	for _, d := range []string{a, b, c} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(c, "same"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	flushed := map[string]int{}
	fail := map[string]bool{}
	syncDir = func(d string) error {
		mu.Lock()
		defer mu.Unlock()
		flushed[d]++
		if fail[d] {
			return errors.New("flush of " + filepath.Base(d) + " failed")
		}
		return SyncDir(d)
	}
	t.Cleanup(func() { syncDir = SyncDir })
	files := []Named{{filepath.Join(b, "1"), []byte("1")}, {filepath.Join(a, "1"), []byte("1")}, {filepath.Join(a, "2"), []byte("2")}, {filepath.Join(c, "same"), []byte("s")}}
	if _, err := WriteFilesIfChanged(files, 0o644); err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{a: 1, b: 1}; !maps.Equal(flushed, want) {
		t.Errorf("flushed %v, want %v", flushed, want)
	}

	clear(flushed)
	fail[a], fail[b] = true, true
	files = []Named{{filepath.Join(b, "3"), []byte("3")}, {filepath.Join(a, "3"), []byte("3")}}
	if _, err := WriteFilesIfChanged(files, 0o644); err == nil || err.Error() != "flush of a failed" {
		t.Errorf("error %v, want the flush of a's", err)
	}
	if want := map[string]int{a: 1}; !maps.Equal(flushed, want) {
		t.Errorf("after failures, flushed %v, want %v (a's failure ends it)", flushed, want)
	}

}
