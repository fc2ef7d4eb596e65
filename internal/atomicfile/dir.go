package atomicfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dir is a directory written beneath through an *os.Root: no name written
// through it leads out of it, neither by ".." nor by a symbolic link whose
// target is outside, and the directory itself may not be such a link.
// Links that stay inside are followed. A Dir is safe for concurrent use;
// Close it when done.
type Dir struct {
	root *os.Root
	path string // as given to OpenDir, for messages and callers' paths
}

// OpenDir opens path as a Dir, creating it and its parents when missing.
// The directory is opened from its parent, so that a path that is itself a
// link out of its parent (a reports/ committed as a link to /etc) is
// refused with a *LinkError.
func OpenDir(path string) (*Dir, error) { return openFromParent(path, true) }

// openExisting is OpenDir for a directory that may be missing: it creates
// nothing, and returns nil, nil when path does not exist.
func openExisting(path string) (*Dir, error) {
	d, err := openFromParent(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return d, err
}

// openFromParent opens path from its parent directory, creating both
// first when create is set.
func openFromParent(path string, create bool) (*Dir, error) {
	clean := filepath.Clean(path)
	parent, base := filepath.Split(clean)
	if parent == "" {
		parent = "."
	}
	if base == "" || base == "." || base == ".." { // "/", ".", "..": nothing to open it from
		r, err := os.OpenRoot(clean)
		if err != nil {
			return nil, err
		}
		return &Dir{root: r, path: path}, nil
	}
	if create {
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, err
		}
	}
	pr, err := os.OpenRoot(parent)
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	if create {
		if err := pr.Mkdir(base, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, linkError(path, path, err)
		}
	}
	r, err := pr.OpenRoot(base)
	if err != nil {
		return nil, linkError(path, path, err)
	}
	return &Dir{root: r, path: path}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }

// Path is the directory's path as OpenDir was given it.
func (d *Dir) Path() string { return d.path }

// FS reads the directory through its root: nothing read leaves it.
func (d *Dir) FS() fs.FS { return d.root.FS() }

// Join is the path of name beneath d, for messages and for readers.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

// Create starts writing name (relative to d, / or the system's separator
// between its parts), creating its parent directories. The temp file
// lives beside it so that the rename cannot cross file systems.
func (d *Dir) Create(name string, perm fs.FileMode) (*File, error) {
	name = filepath.Clean(filepath.FromSlash(name))
	dir := filepath.Dir(name)
	if dir != "." {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return nil, d.linkError(name, err)
		}
	}
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		tmp := filepath.Join(dir, TempPrefix+filepath.Base(name)+"-"+hex.EncodeToString(b[:]))
		f, err := d.root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, d.linkError(name, err)
		}
		return &File{File: f, dir: d, tmp: tmp, name: name, final: d.Join(name), perm: perm}, nil
	}
	return nil, fmt.Errorf("write %s: no free temp name beside it", d.Join(name))
}

// WriteFile atomically replaces name with data.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	f, err := d.Create(name, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", f.final, err)
	}
	return f.Commit()
}

// WriteFileIfChanged is WriteFile, done only when name does not already
// hold exactly data, and reports whether it wrote. Rewriting identical
// bytes would touch the mtime, which tools watching the directory (and
// git's index) take for a change, and costs an fsync for nothing.
func (d *Dir) WriteFileIfChanged(name string, data []byte, perm fs.FileMode) (bool, error) {
	changed, err := d.writeIfChanged(name, data, perm)
	if !changed || err != nil {
		return changed, err
	}
	return true, d.SyncDir(filepath.Dir(filepath.FromSlash(name)))
}

// writeIfChanged is WriteFileIfChanged less the directory's flush.
func (d *Dir) writeIfChanged(name string, data []byte, perm fs.FileMode) (bool, error) {
	f, err := d.stage(name, data, perm)
	if f == nil {
		return false, err
	}
	defer f.Abort()
	return true, f.commitRename()
}

// stage writes data to a temp file beside name, unless name already holds
// exactly data (then it returns nil). The temp file is left open, not
// yet flushed: the caller commits or aborts it.
func (d *Dir) stage(name string, data []byte, perm fs.FileMode) (*File, error) {
	old, err := d.root.ReadFile(filepath.FromSlash(name))
	switch {
	case err == nil && bytes.Equal(old, data):
		return nil, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, d.linkError(name, err)
	}
	f, err := d.Create(name, perm)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return nil, fmt.Errorf("write %s: %w", f.final, err)
	}
	return f, nil
}

// MkdirAll creates the directory name beneath d and its parents.
func (d *Dir) MkdirAll(name string, perm fs.FileMode) error {
	name = filepath.FromSlash(name)
	if name == "." || name == "" {
		return nil
	}
	if err := d.root.MkdirAll(name, perm); err != nil {
		return d.linkError(name, err)
	}
	return nil
}

// SyncDir flushes the entries (new names, renames) of the directory name
// beneath d to disk.
func (d *Dir) SyncDir(name string) error {
	return shareFlush(d.Join(name), func() error {
		f, err := d.root.Open(filepath.FromSlash(name))
		if err != nil {
			return d.linkError(name, err)
		}
		defer f.Close()
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync dir %s: %w", d.Join(name), err)
		}
		return nil
	})
}

// Remove removes name beneath d; a missing name is no error.
func (d *Dir) Remove(name string) error {
	if err := d.root.Remove(filepath.FromSlash(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return d.linkError(name, err)
	}
	return nil
}

// RemoveAll removes name beneath d and all it holds; a link is removed,
// never followed.
func (d *Dir) RemoveAll(name string) error {
	return d.linkError(name, d.root.RemoveAll(filepath.FromSlash(name)))
}

// RemoveEach removes each of names beneath dir (opened as OpenDir opens
// it), never outside it; a missing name is no error.
func RemoveEach(dir string, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	d, err := OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	for _, name := range names {
		if err := d.Remove(name); err != nil {
			if _, ok := errors.AsType[*LinkError](err); ok {
				return err
			}
			return fmt.Errorf("remove %s: %w", d.Join(name), err)
		}
	}
	return nil
}

// LinkError is a write refused because it would lead out of the directory
// written into, through a symbolic link or "..".
type LinkError struct {
	Path string // what was to be written
	Dir  string // the directory it must stay in
	Err  error  // as os.Root said it
}

func (e *LinkError) Error() string {
	if e.Path == e.Dir {
		return fmt.Sprintf("refusing to write %s: it is a symbolic link out of its parent directory; files are written only inside the repository and the state directory, never through a link that leads out", e.Path)
	}
	return fmt.Sprintf("refusing to write %s: the way to it leads out of %s (a symbolic link or ..); files are written only inside the repository and the state directory, never through a link that leads out", e.Path, e.Dir)
}

func (e *LinkError) Unwrap() error { return e.Err }

// linkError is err, or a *LinkError for path (in dir) when err says the
// way led out of the root. os.Root does not export that error; its text
// is held by TestDirRefusesWaysOut, so that a change of it fails there.
func linkError(path, dir string, err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := errors.AsType[*fs.PathError](err); ok && strings.Contains(pe.Err.Error(), "path escapes from parent") {
		return &LinkError{Path: path, Dir: dir, Err: err}
	}
	return err
}

func (d *Dir) linkError(name string, err error) error {
	return linkError(d.Join(name), d.path, err)
}

// Lstat is os.Lstat of name beneath d.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	fi, err := d.root.Lstat(filepath.FromSlash(name))
	return fi, d.linkError(name, err)
}

// Mkdir is os.Mkdir of name beneath d.
func (d *Dir) Mkdir(name string, perm fs.FileMode) error {
	return d.linkError(name, d.root.Mkdir(filepath.FromSlash(name), perm))
}

// Rename is os.Rename of oldname to newname, both beneath d: for a writer
// that names its file only once written (a blob by its hash): it syncs,
// closes and renames the File's TempName itself.
func (d *Dir) Rename(oldname, newname string) error {
	return d.linkError(newname, d.root.Rename(filepath.FromSlash(oldname), filepath.FromSlash(newname)))
}

// OpenFile is os.OpenFile of name beneath d, for a file written in place
// (a ledger appended to, a lock) rather than replaced whole.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := d.root.OpenFile(filepath.FromSlash(name), flag, perm)
	return f, d.linkError(name, err)
}
