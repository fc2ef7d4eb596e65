package textview

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadText(t *testing.T) {
	dir := t.TempDir()
	want := strings.Repeat("Section 1. The rate is 20%.\n", 10_000)
	path := filepath.Join(dir, "text")
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadText(path)
	if err != nil || got != want {
		t.Fatalf("ReadText: %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
	if _, err := ReadText(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("ReadText of a missing file: %v", err)
	}
	// The bytes are held once: os.ReadFile and string() held them twice.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _ = ReadText(path)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(want))*5/4 {
		t.Errorf("ReadText of %d bytes allocated %d bytes, want about one copy", len(want), n)
	}
}

// allocatedBy is the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
