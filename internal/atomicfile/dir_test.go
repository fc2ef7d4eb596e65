package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// noErr is a check that ends the test at once on an error.
func noErr(t *testing.T) func(error) {
	return func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestDirRefusesWaysOut: through a Dir, a write that would land outside it
// (through a linked directory, into a linked file read first, by "..", or
// into a Dir that is itself a link out of its parent) is refused with a
// *LinkError and leaves the outside untouched; a link that stays inside is
// followed, and a plain name is written.
func TestDirRefusesWaysOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	must := noErr(t)
	reports := filepath.Join(root, "reports")
	must(os.Symlink(outside, reports))
	if d, err := OpenDir(reports); !errors.As(err, new(*LinkError)) {
		if d != nil {
			d.Close()
		}
		t.Errorf("OpenDir of a link out of its parent = %v, want a *LinkError", err)
	}

	snapshots := filepath.Join(root, "snapshots")
	d, err := OpenDir(snapshots) // made: it did not exist
	must(err)
	defer d.Close()
	must(os.MkdirAll(filepath.Join(snapshots, "sha256", "ef"), 0o755))
	must(os.Symlink(outside, filepath.Join(snapshots, "sha256", "ab")))
	must(os.Symlink("ef", filepath.Join(snapshots, "sha256", "cd"))) // stays inside
	must(os.WriteFile(filepath.Join(outside, "index.json"), []byte("theirs"), 0o644))
	must(os.Symlink(filepath.Join(outside, "index.json"), filepath.Join(snapshots, "index.json")))

	for _, name := range []string{"sha256/ab/abcd", "../escaped"} {
		err := d.WriteFile(name, []byte("x"), 0o644)
		if le, ok := errors.AsType[*LinkError](err); !ok || le.Path != d.Join(name) || le.Dir != snapshots {
			t.Errorf("WriteFile(%s) = %v, want a *LinkError for it", name, err)
		}
		if _, err := d.WriteFileIfChanged(name, []byte("x"), 0o644); !errors.As(err, new(*LinkError)) {
			t.Errorf("WriteFileIfChanged(%s) = %v, want a *LinkError", name, err)
		}
		if _, err := d.WriteFilesIfChanged([]Named{{name, []byte("x")}}, 0o644); !errors.As(err, new(*LinkError)) {
			t.Errorf("WriteFilesIfChanged(%s) = %v, want a *LinkError", name, err)
		}
	}
	if err := d.MkdirAll("sha256/ab/x", 0o755); !errors.As(err, new(*LinkError)) {
		t.Errorf("MkdirAll through the link = %v, want a *LinkError", err)
	}
	// index.json is a link out: reading it to compare is refused, and a
	// plain write replaces the link itself (a rename does not follow it).
	if _, err := d.WriteFileIfChanged("index.json", []byte("ours"), 0o644); !errors.As(err, new(*LinkError)) {
		t.Errorf("WriteFileIfChanged through a linked file = %v, want a *LinkError", err)
	}
	must(d.WriteFile("index.json", []byte("ours"), 0o644))
	if fi, err := os.Lstat(filepath.Join(snapshots, "index.json")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("index.json after WriteFile: %v, %v; want a regular file in place of the link", fi, err)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "index.json")); string(got) != "theirs" {
		t.Errorf("the link's target holds %q, want it untouched", got)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("the outside was written: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(root, "escaped")); err == nil {
		t.Error(`".." wrote beside the Dir`)
	}

	must(d.WriteFile("sha256/cd/cdef", []byte("x"), 0o644)) // through a link that stays inside
	if got, err := os.ReadFile(filepath.Join(snapshots, "sha256", "ef", "cdef")); err != nil || string(got) != "x" {
		t.Errorf("through a link inside: %q, %v", got, err)
	}
	wrote, err := d.WriteFileIfChanged("sha256/01/0123", []byte("y"), 0o444)
	if err != nil || !wrote {
		t.Fatalf("a plain name: %v, %v", wrote, err)
	}
	if fi, err := os.Stat(filepath.Join(snapshots, "sha256", "01", "0123")); err != nil || fi.Mode().Perm() != 0o444 {
		t.Errorf("a plain name: %v, %v; want mode 0444", fi, err)
	}
	if left, err := SweepTree(snapshots); err != nil || len(left) > 0 {
		t.Errorf("temp files left: %v, %v", left, err)
	}
}

// TestRemovalsStayInside: RemoveEach and RemoveAll remove beneath their
// directory only: a name through a linked directory or by ".." is
// refused with a *LinkError, a link itself is removed and not followed,
// and a missing name is no error.
func TestRemovalsStayInside(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	must := noErr(t)
	victim := filepath.Join(outside, "theirs.atom")
	must(os.WriteFile(victim, []byte("x"), 0o644))
	reports := filepath.Join(root, "reports")
	must(os.MkdirAll(filepath.Join(reports, "feeds", "old"), 0o755))
	must(os.WriteFile(filepath.Join(reports, "feeds", "gone.atom"), []byte("x"), 0o644))
	must(os.WriteFile(filepath.Join(reports, "feeds", "old", "a.atom"), []byte("x"), 0o644))
	must(os.Symlink(outside, filepath.Join(reports, "linked")))
	must(os.Symlink(outside, filepath.Join(reports, "feeds", "old", "link")))

	for _, name := range []string{"linked/theirs.atom", "../../" + filepath.Base(outside) + "/theirs.atom"} {
		if err := RemoveEach(reports, name); !errors.As(err, new(*LinkError)) {
			t.Errorf("RemoveEach(%s) = %v, want a *LinkError", name, err)
		}
	}
	must(RemoveEach(reports, "feeds/gone.atom", "feeds/never.atom"))
	if _, err := os.Stat(filepath.Join(reports, "feeds", "gone.atom")); err == nil {
		t.Error("RemoveEach left feeds/gone.atom")
	}
	d, err := OpenDir(reports)
	must(err)
	defer d.Close()
	must(d.RemoveAll("feeds/old")) // holds a link out: removed, not followed
	must(d.RemoveAll("linked"))    // a link out itself: removed, not followed
	if _, err := os.Lstat(filepath.Join(reports, "feeds", "old")); err == nil {
		t.Error("RemoveAll left feeds/old")
	}
	if _, err := os.Lstat(filepath.Join(reports, "linked")); err == nil {
		t.Error("RemoveAll left the link")
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("a removal reached outside: %v", err)
	}
}
