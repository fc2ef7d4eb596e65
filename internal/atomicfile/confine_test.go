package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestConfinedRefusesLinks: beneath a confined directory, a write through a
// linked directory, into a linked file or into a directory that is itself
// a link is refused and leaves the link's target untouched; a plain path
// is written.
func TestConfinedRefusesLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	reports := filepath.Join(root, "reports")
	snapshots := filepath.Join(root, "snapshots")
	Confine(reports, snapshots)
	if err := os.Symlink(outside, reports); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(snapshots, "sha256"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(snapshots, "sha256", "ab")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "index.json"), filepath.Join(snapshots, "index.json")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		filepath.Join(reports, "coverage.md"),
		filepath.Join(reports, "jurisdictions", "uk.md"),
		filepath.Join(snapshots, "sha256", "ab", "abcd"),
		filepath.Join(snapshots, "index.json"),
	} {
		err := WriteFile(p, []byte("x"), 0o644)
		if le, ok := errors.AsType[*LinkError](err); !ok || le.Path != p {
			t.Errorf("WriteFile(%s) = %v, want a *LinkError for it", p, err)
		}
		if _, err := WriteFileIfChanged(p, []byte("x"), 0o644); !errors.As(err, new(*LinkError)) {
			t.Errorf("WriteFileIfChanged(%s) = %v, want a *LinkError", p, err)
		}
	}
	if err := MkdirAll(filepath.Join(reports, "jurisdictions"), 0o755); !errors.As(err, new(*LinkError)) {
		t.Errorf("MkdirAll through the link = %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("the link's target was written: %v", ents)
	}
	if err := WriteFile(filepath.Join(snapshots, "sha256", "cd", "cdef"), []byte("x"), 0o644); err != nil {
		t.Errorf("a plain path beneath the confined directory: %v", err)
	}
	// Outside every confined directory, links are the caller's business.
	if err := WriteFile(filepath.Join(t.TempDir(), "free"), []byte("x"), 0o644); err != nil {
		t.Error(err)
	}
}
