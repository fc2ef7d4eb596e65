package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "b.json")
	if err := WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "two" {
		t.Fatalf("ReadFile = %q, %v; want \"two\"", got, err)
	}
	assertOnly(t, filepath.Dir(p), "b.json")
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "x"), 0o444)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("partial"))
	f.Abort()
	f.Abort() // idempotent
	assertOnly(t, dir)
}

func TestCommitSetsMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ro")
	if err := WriteFile(p, []byte("x"), 0o444); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o444 {
		t.Fatalf("mode = %v, want 0444", st.Mode().Perm())
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("dir holds %v, want %v", got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("dir holds %v, want %v", got, names)
		}
	}
}

func TestSweep(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "state.json"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("{"))
	f.Close() // a process killed here leaves its temp file
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	removed, err := Sweep(dir)
	if err != nil || len(removed) != 1 {
		t.Fatalf("Sweep removed %v, %v; want the one temp file", removed, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "state.json" {
		t.Errorf("left %v, want only state.json", ents)
	}
	if removed, err := Sweep(filepath.Join(dir, "missing")); err != nil || removed != nil {
		t.Errorf("missing dir: %v, %v", removed, err)
	}
}

func TestWriteFileIfChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	for i, tc := range []struct {
		data  string
		wrote bool
	}{{"a", true}, {"a", false}, {"b", true}} {
		wrote, err := WriteFileIfChanged(path, []byte(tc.data), 0o644)
		if err != nil || wrote != tc.wrote {
			t.Fatalf("step %d (%q): wrote %v, %v; want %v", i, tc.data, wrote, err, tc.wrote)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.data {
			t.Fatalf("step %d: file holds %q, want %q", i, got, tc.data)
		}
	}
}

// TestSweepTree: a killed write deep in a tree of reports leaves a temp
// file that SweepTree removes; other files and a missing tree are fine.
func TestSweepTree(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "feeds", "sources")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(deep, TempPrefix+"t-a.atom-123")
	keep := filepath.Join(deep, "t-a.atom")
	for _, p := range []string{left, keep} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := SweepTree(dir)
	if err != nil || len(removed) != 1 || removed[0] != left {
		t.Fatalf("SweepTree = %v, %v; want %s removed", removed, err, left)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a finished file went too: %v", err)
	}
	if _, err := SweepTree(filepath.Join(dir, "none")); err != nil {
		t.Errorf("a missing tree: %v", err)
	}
}

// TestSweepStaysInItsDirectory: a directory to sweep that is a link out
// of its parent (a state/ committed as a link elsewhere) is refused, as a
// write to it is, and the temp files over there are left.
func TestSweepStaysInItsDirectory(t *testing.T) {
	outside := t.TempDir()
	left := filepath.Join(outside, TempPrefix+"theirs")
	if err := os.WriteFile(left, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Symlink(outside, dir); err != nil {
		t.Fatal(err)
	}
	for name, sweep := range map[string]func(string) ([]string, error){"Sweep": Sweep, "SweepTree": SweepTree} {
		removed, err := sweep(dir)
		if _, serr := os.Stat(left); serr != nil {
			t.Fatalf("%s of a directory linked out removed %v (%v)", name, removed, err)
		}
		if _, ok := errors.AsType[*LinkError](err); !ok {
			t.Errorf("%s of a directory linked out: %v; want a *LinkError", name, err)
		}
	}
}
