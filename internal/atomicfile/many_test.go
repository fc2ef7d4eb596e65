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

func openDir(t *testing.T, path string) *Dir {
	t.Helper()
	d, err := OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestWriteFilesIfChanged: new and changed files are written, unchanged
// ones are left alone (their mtime too), and an error names the first
// file that failed while the others are written all the same.
func TestWriteFilesIfChanged(t *testing.T) {
	dir := t.TempDir()
	d := openDir(t, dir)
	same, changed, fresh := filepath.Join(dir, "same.xml"), filepath.Join(dir, "changed.xml"), filepath.Join(dir, "sub", "new.xml")
	must := noErr(t)
	must(os.WriteFile(same, []byte("a"), 0o644))
	must(os.WriteFile(changed, []byte("old"), 0o644))
	before, err := os.Stat(same)
	must(err)
	wrote, err := d.WriteFilesIfChanged([]Named{{"same.xml", []byte("a")}, {"changed.xml", []byte("new")}, {"sub/new.xml", []byte("n")}}, 0o644)
	must(err)
	if want := []bool{false, true, true}; !slices.Equal(wrote, want) {
		t.Errorf("written %v, want %v", wrote, want)
	}
	for path, want := range map[string]string{same: "a", changed: "new", fresh: "n"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s holds %q, %v; want %q", path, got, err, want)
		}
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the new file's mode: %v, %v; want 0644", fi.Mode(), err)
	}
	if after, err := os.Stat(same); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the unchanged file was rewritten")
	}
	if left, err := SweepTree(dir); err != nil || len(left) > 0 {
		t.Errorf("temp files left: %v, %v", left, err)
	}

	// A directory where a file should be: that one fails, the next is written.
	blocked := filepath.Join(dir, "blocked")
	must(os.MkdirAll(filepath.Join(blocked, "x"), 0o755))
	after := filepath.Join(dir, "after.xml")
	wrote, err = d.WriteFilesIfChanged([]Named{{"blocked", []byte("b")}, {"after.xml", []byte("c")}}, 0o644)
	if err == nil || !strings.HasPrefix(err.Error(), "write "+blocked+": ") {
		t.Errorf("error %v, want one that names %s", err, blocked)
	}
	if got, _ := os.ReadFile(after); string(got) != "c" || !wrote[1] {
		t.Errorf("the file after the failing one: %q, written %v", got, wrote)
	}
	if left, err := SweepTree(dir); err != nil || len(left) > 0 {
		t.Errorf("temp files left after a failure: %v, %v", left, err)
	}
}

// TestWriteFilesIfChangedFlushesBeforeItRenames: when the new bytes are
// flushed, every one of them is in a temp file and none is under its
// name yet (a power cut then leaves each file old, never a new name with
// bytes the disk never got); they are flushed together, once; a failed
// flush renames nothing and leaves no temp file.
func TestWriteFilesIfChangedFlushesBeforeItRenames(t *testing.T) {
	dir := t.TempDir()
	d := openDir(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "changed"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var flushes [][]string
	var fail error
	// What the batch being written must not show before the flush: new
	// names, and the bytes "changed" holds until then.
	var absent []string
	var changedHolds string
	syncTemps = func(d *Dir, temps []string) error {
		flushes = append(flushes, slices.Clone(temps))
		for _, name := range absent {
			if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s is under its name before its bytes are flushed (%v)", name, err)
			}
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "changed")); string(got) != changedHolds {
			t.Errorf("changed holds %q before its new bytes are flushed, want %q", got, changedHolds)
		}
		for _, tmp := range temps {
			if !strings.HasPrefix(filepath.Base(tmp), TempPrefix) {
				t.Errorf("flushed %s, not a temp file", tmp)
			}
			if _, err := os.Stat(filepath.Join(dir, tmp)); err != nil {
				t.Errorf("temp file %s: %v", tmp, err)
			}
		}
		if fail != nil {
			return fail
		}
		return syncBatch(d, temps)
	}
	t.Cleanup(func() { syncTemps = syncBatch })
	files := []Named{{"a/1", []byte("1")}, {"a/2", []byte("2")}, {"b/1", []byte("3")}, {"changed", []byte("new")}}
	absent, changedHolds = []string{"a/1", "a/2", "b/1"}, "old"
	if _, err := d.WriteFilesIfChanged(files, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(flushes) != 1 || len(flushes[0]) != 4 {
		t.Fatalf("flushes %v, want one of the 4 temp files", flushes)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a/2")); string(got) != "2" {
		t.Errorf("a/2 holds %q after the write", got)
	}

	fail = errors.New("disk gone")
	absent, changedHolds = []string{"c/1"}, "new"
	_, err := d.WriteFilesIfChanged([]Named{{"c/1", []byte("c")}, {"changed", []byte("newer")}}, 0o644)
	if err == nil || !strings.Contains(err.Error(), "disk gone") || !strings.Contains(err.Error(), dir) {
		t.Errorf("error %v, want the flush's, naming %s", err, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "c/1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c/1 was renamed after a failed flush (%v)", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "changed")); string(got) != "new" {
		t.Errorf("changed holds %q after a failed flush, want the bytes before it", got)
	}
	if left, err := SweepTree(dir); err != nil || len(left) > 0 {
		t.Errorf("temp files left after a failed flush: %v, %v", left, err)
	}
}

// TestSyncEach: the flush of systems without syncfs flushes each file and
// says which one it could not.
func TestSyncEach(t *testing.T) {
	dir := t.TempDir()
	d := openDir(t, dir)
	if err := os.WriteFile(filepath.Join(dir, ".tmp-a"), []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syncEach(d, []string{".tmp-a"}); err != nil {
		t.Fatal(err)
	}
	if err := syncEach(d, []string{".tmp-a", ".tmp-gone"}); err == nil || !strings.Contains(err.Error(), ".tmp-gone") {
		t.Errorf("error %v, want one naming .tmp-gone", err)
	}
}

// TestWriteFilesIfChangedFlushesEachNewName: every directory that got a
// new name is flushed, once, whatever the number of files in it; one with
// nothing new is not; a failed flush is the error, the first directory's
// in name order when several fail (not one picked by map order).
func TestWriteFilesIfChangedFlushesEachNewName(t *testing.T) {
	dir := t.TempDir()
	d := openDir(t, dir)
	for _, sub := range []string{"a", "b", "c"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "c", "same"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	flushed := map[string]int{}
	fail := map[string]bool{}
	flushDir = func(d *Dir, name string) error {
		mu.Lock()
		defer mu.Unlock()
		flushed[name]++
		if fail[name] {
			return errors.New("flush of " + name + " failed")
		}
		return d.SyncDir(name)
	}
	t.Cleanup(func() { flushDir = (*Dir).SyncDir })
	files := []Named{{"b/1", []byte("1")}, {"a/1", []byte("1")}, {"a/2", []byte("2")}, {"c/same", []byte("s")}}
	if _, err := d.WriteFilesIfChanged(files, 0o644); err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"a": 1, "b": 1}; !maps.Equal(flushed, want) {
		t.Errorf("flushed %v, want %v", flushed, want)
	}

	clear(flushed)
	fail["a"], fail["b"] = true, true
	files = []Named{{"b/3", []byte("3")}, {"a/3", []byte("3")}}
	if _, err := d.WriteFilesIfChanged(files, 0o644); err == nil || err.Error() != "flush of a failed" {
		t.Errorf("error %v, want the flush of a's", err)
	}
	if want := map[string]int{"a": 1}; !maps.Equal(flushed, want) {
		t.Errorf("after failures, flushed %v, want %v (a's failure ends it)", flushed, want)
	}
}
