package public

import (
	"fmt"
	"path"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
)

// File is one rendered page and its name under the reports directory,
// with / between the names of a path (.well-known/security.txt).
type File struct {
	Name string
	Data []byte
}

// Write writes each file under dir atomically, only when its bytes
// changed, and returns the names it wrote. Every write stays inside dir
// (atomicfile.Dir): a link that leads out of it is refused.
func Write(dir string, files ...File) ([]string, error) {
	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		return nil, fmt.Errorf("open the reports directory: %w", err)
	}
	defer d.Close()
	return WriteIn(d, files...)
}

// WriteIn is Write into a directory already open.
func WriteIn(d *atomicfile.Dir, files ...File) ([]string, error) {
	named := make([]atomicfile.Named, len(files))
	made := map[string]bool{".": true}
	for i, f := range files {
		if sub := path.Dir(f.Name); !made[sub] {
			if err := d.MkdirAll(sub, 0o755); err != nil {
				return nil, fmt.Errorf("create %s: %w", d.Join(sub), err)
			}
			made[sub] = true
		}
		named[i] = atomicfile.Named{Path: f.Name, Data: f.Data}
	}
	// A feed per source: a thousand files, written at once.
	changed, err := d.WriteFilesIfChanged(named, 0o644)
	var wrote []string
	for i, f := range files {
		if changed[i] {
			wrote = append(wrote, f.Name)
		}
	}
	return wrote, err
}
