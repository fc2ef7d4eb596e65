package public

import (
	"fmt"
	"path/filepath"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
)

// File is one rendered page and its name under the reports directory,
// with / between the names of a path (.well-known/security.txt).
type File struct {
	Name string
	Data []byte
}

// Write writes each file under dir atomically, only when its bytes
// changed, and returns the names it wrote.
func Write(dir string, files ...File) ([]string, error) {
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the reports directory: %w", err)
	}
	named := make([]atomicfile.Named, len(files))
	made := map[string]bool{filepath.Clean(dir): true}
	for i, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if sub := filepath.Dir(path); !made[sub] {
			if err := atomicfile.MkdirAll(sub, 0o755); err != nil {
				return nil, fmt.Errorf("create %s: %w", sub, err)
			}
			made[sub] = true
		}
		named[i] = atomicfile.Named{Path: path, Data: f.Data}
	}
	// A feed per source: a thousand files, written at once.
	changed, err := atomicfile.WriteFilesIfChanged(named, 0o644)
	var wrote []string
	for i, f := range files {
		if changed[i] {
			wrote = append(wrote, f.Name)
		}
	}
	return wrote, err
}
