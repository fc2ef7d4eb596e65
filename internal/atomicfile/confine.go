package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A repository can hold symbolic links: a reports/ or snapshots/ committed
// as a link to a directory outside it would have every write land there.
// Confine names the directories (the reports, the snapshots, the state)
// beneath which nothing is written through a link: Create, WriteFile,
// WriteFileIfChanged, MkdirAll and Check refuse, with a *LinkError, a
// path beneath one of them when the directory itself, a directory between
// it and the path, or the path itself is a symbolic link.

var confined struct {
	sync.RWMutex
	roots map[string]bool // absolute, cleaned
}

// Confine adds dirs to the directories written beneath without links.
func Confine(dirs ...string) {
	confined.Lock()
	defer confined.Unlock()
	if confined.roots == nil {
		confined.roots = map[string]bool{}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			confined.roots[abs] = true
		}
	}
}

// LinkError is a write refused because it would lead out of the directory
// written into, through a symbolic link or "..".
type LinkError struct {
	Path string // what was to be written
	Link string // Check: the symbolic link on the way
	Dir  string // a Dir: the directory it must stay in
	Err  error  // a Dir: as os.Root said it
}

func (e *LinkError) Error() string {
	switch {
	case e.Dir != "" && e.Path == e.Dir:
		return fmt.Sprintf("refusing to write into %s: it is a symbolic link out of its parent directory; files are written only inside the repository and the state directory, never through a link that leads out", e.Path)
	case e.Dir != "":
		return fmt.Sprintf("refusing to write %s: the way to it leads out of %s (a symbolic link or ..); files are written only inside the repository and the state directory, never through a link that leads out", e.Path, e.Dir)
	case e.Link == e.Path:
		return fmt.Sprintf("refusing to write %s: it is a symbolic link; files are written only inside the repository and the state directory, never through a link", e.Path)
	}
	return fmt.Sprintf("refusing to write %s: %s is a symbolic link; files are written only inside the repository and the state directory, never through a link", e.Path, e.Link)
}

func (e *LinkError) Unwrap() error { return e.Err }

// Check returns a *LinkError when path is beneath a confined directory and
// that directory, one between it and path, or path itself is a symbolic
// link. What does not exist yet is no link; nil when path is beneath none.
func Check(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	confined.RLock()
	var roots []string
	for r := range confined.roots {
		if abs == r || strings.HasPrefix(abs, r+string(filepath.Separator)) {
			roots = append(roots, r)
		}
	}
	confined.RUnlock()
	for _, root := range roots {
		rel, _ := filepath.Rel(root, abs)
		p := root
		parts := []string{"."}
		if rel != "." {
			parts = append(parts, strings.Split(rel, string(filepath.Separator))...)
		}
		for _, part := range parts {
			p = filepath.Join(p, part)
			fi, err := os.Lstat(p)
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil {
				return err
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				return &LinkError{Path: path, Link: p}
			}
		}
	}
	return nil
}

// MkdirAll is os.MkdirAll after Check.
func MkdirAll(dir string, perm fs.FileMode) error {
	if err := Check(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, perm)
}
