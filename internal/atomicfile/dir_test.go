package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestDirRefusesWaysOut: through a Dir, a write that would land outside it
// (through a linked directory, into a linked file read first, by "..", or
// into a Dir that is itself a link out of its parent) is refused with a
// *LinkError and leaves the outside untouched; a link that stays inside is
// followed, and a plain name is written.
func TestDirRefusesWaysOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
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
