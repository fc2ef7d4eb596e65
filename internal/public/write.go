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
	var wrote []string
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if sub := filepath.Dir(path); sub != filepath.Clean(dir) {
			if err := atomicfile.MkdirAll(sub, 0o755); err != nil {
				return wrote, fmt.Errorf("create %s: %w", sub, err)
			}
		}
		changed, err := atomicfile.WriteFileIfChanged(path, f.Data, 0o644)
		if err != nil {
			return wrote, fmt.Errorf("write %s: %w", path, err)
		}
		if changed {
			wrote = append(wrote, f.Name)
		}
	}
	return wrote, nil
}
