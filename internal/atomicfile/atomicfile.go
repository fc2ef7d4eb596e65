package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// File is a file being written that becomes visible under its final name only
// on Commit. Abort (or a crash) leaves nothing under the final name.
type File struct {
	*os.File
	dir   *Dir
	own   bool   // dir was opened for this file alone: closed with it
	tmp   string // the temp file's name beneath dir
	name  string // the final name beneath dir
	final string // the final path, for messages
	perm  fs.FileMode
	done  bool
}

// Create starts writing path, creating its parent directories, through a
// root opened on its directory: the temp file and the rename stay in it.
// For a directory that must not be left by a link, use a Dir.
func Create(path string, perm fs.FileMode) (*File, error) {
	d, err := openFileDir(path)
	if err != nil {
		return nil, err
	}
	f, err := d.Create(filepath.Base(path), perm)
	if err != nil {
		d.Close()
		return nil, err
	}
	f.own, f.final = true, path
	return f, nil
}

// openFileDir opens path's directory, creating it, as a Dir. It is opened
// on the directory itself: a link to it is the caller's choice of
// directory, as for os.Create; OpenDir is for directories that must not
// be one.
func openFileDir(path string) (*Dir, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Dir{root: r, path: dir}, nil
}

// Commit flushes the data to disk, renames the temp file to its final name
// and flushes the directory entry, so the new file survives a power cut.
func (f *File) Commit() error {
	if f.own {
		defer f.dir.Close()
	}
	if err := f.commitRename(); err != nil {
		return err
	}
	return f.dir.SyncDir(filepath.Dir(f.name))
}

// commitRename is Commit but for the directory's flush, which the caller
// owes (WriteFilesIfChanged flushes each directory once for many files).
func (f *File) commitRename() error {
	if f.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	f.done = true
	err := f.Sync()
	if err == nil {
		err = f.Chmod(f.perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.dir.root.Rename(f.tmp, f.name)
	}
	if err != nil {
		f.dir.root.Remove(f.tmp)
		return fmt.Errorf("write %s: %w", f.final, f.dir.linkError(f.name, err))
	}
	return nil
}

// TempName is the temp file's name beneath the Dir it was created in.
func (f *File) TempName() string { return f.tmp }

// Abort discards the temp file. It is safe to call after Commit, which makes
// `defer f.Abort()` the usual pattern.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	f.dir.root.Remove(f.tmp)
	if f.own {
		f.dir.Close()
	}
}

// WriteFile atomically replaces path with data.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteFileIfChanged is WriteFile, done only when path does not already
// hold exactly data, and reports whether it wrote. Rewriting identical
// bytes would touch the mtime, which tools watching the directory (and
// git's index) take for a change, and costs an fsync for nothing.
func WriteFileIfChanged(path string, data []byte, perm fs.FileMode) (bool, error) {
	changed, err := writeIfChanged(path, data, perm)
	if !changed || err != nil {
		return changed, err
	}
	return true, SyncDir(filepath.Dir(path))
}

// writeIfChanged is WriteFileIfChanged less the directory's flush.
func writeIfChanged(path string, data []byte, perm fs.FileMode) (bool, error) {
	d, err := openFileDir(path)
	if err != nil {
		return false, err
	}
	defer d.Close()
	return d.writeIfChanged(filepath.Base(path), data, perm)
}

// SyncDir flushes a directory's entries (new names, renames) to disk.
// Callers flushing the same directory at once share a flush that began
// after each of them called.
func SyncDir(dir string) error {
	return shareFlush(filepath.Clean(dir), func() error {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer d.Close()
		if err := d.Sync(); err != nil {
			return fmt.Errorf("sync dir %s: %w", dir, err)
		}
		return nil
	})
}

// TempPrefix starts the name of every temp file Create makes.
const TempPrefix = ".tmp-"

// Sweep removes the temp files that writes into dir left when their process
// was killed before Commit or Abort, and returns their paths. A missing dir
// has none. Only call it while no write into dir is under way (a run holds
// the state directory's lock). It removes through a root on dir, opened as
// OpenDir opens one: a dir that is a link out of its parent is refused
// with a *LinkError, as a write into it would be.
func Sweep(dir string) ([]string, error) {
	d, err := openExisting(dir)
	if d == nil {
		return nil, err
	}
	defer d.Close()
	return d.sweep(".")
}

// SweepTree is Sweep in dir and every directory beneath it (links are not
// followed): for a tree of generated files, such as the reports with their
// per-jurisdiction parts and feeds.
func SweepTree(dir string) ([]string, error) {
	d, err := openExisting(dir)
	if d == nil {
		return nil, err
	}
	defer d.Close()
	return d.SweepTree(".")
}

// SweepTree is the package's SweepTree for the directory name beneath d.
func (d *Dir) SweepTree(name string) ([]string, error) {
	var removed []string
	err := fs.WalkDir(d.FS(), filepath.ToSlash(name), func(name string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		swept, err := d.sweep(name)
		removed = append(removed, swept...)
		return err
	})
	return removed, err
}

// sweep removes the temp files in the directory name beneath d.
func (d *Dir) sweep(name string) ([]string, error) {
	f, err := d.root.Open(filepath.FromSlash(name))
	if err != nil {
		return nil, d.linkError(name, err)
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), TempPrefix) || !e.Type().IsRegular() {
			continue
		}
		tmp := path.Join(name, e.Name())
		if err := d.Remove(tmp); err != nil {
			return removed, err
		}
		removed = append(removed, d.Join(tmp))
	}
	return removed, nil
}
