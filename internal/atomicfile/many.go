package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Named is one file of WriteFilesIfChanged: its path and its bytes.
type Named struct {
	Path string
	Data []byte
}

// manyWorkers is how many files WriteFilesIfChanged writes at once: a
// file's flush waits on the disk, and flushes issued together share the
// file system's journal commits, so that a thousand feeds cost a few
// commits rather than two thousand.
const manyWorkers = 16

// WriteFilesIfChanged is WriteFileIfChanged for many files: each one whose
// bytes differ is written, flushed and renamed, several at once, and then
// each directory that got a new name is flushed once. When it returns
// without an error every file is as durable as WriteFile leaves it; a
// crash before leaves each file either old or new, never partly written.
// It returns whether each file was written, in files' order, and the
// first file's error, "write PATH: ..." (the others are written all the
// same).
func WriteFilesIfChanged(files []Named, perm fs.FileMode) ([]bool, error) {
	return writeMany(files, func(path string, data []byte) (bool, error) {
		return writeIfChanged(path, data, perm)
	}, func(dir string) string { return dir }, syncDir)
}

// WriteFilesIfChanged is the package's WriteFilesIfChanged beneath d: each
// file's Path is a name relative to d, and an error names its full path.
func (d *Dir) WriteFilesIfChanged(files []Named, perm fs.FileMode) ([]bool, error) {
	return writeMany(files, func(name string, data []byte) (bool, error) {
		return d.writeIfChanged(name, data, perm)
	}, d.Join, func(dir string) error { return d.SyncDir(dir) })
}

// writeMany writes files through write, several at once, then flushes
// each directory that got a new name through flush; path names a file for
// an error.
func writeMany(files []Named, write func(string, []byte) (bool, error), path func(string) string, flush func(string) error) ([]bool, error) {
	changed := make([]bool, len(files))
	errs := make([]error, len(files))
	dirs := map[string]bool{}
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(manyWorkers, len(files)) {
		wg.Go(func() {
			for i := range next {
				changed[i], errs[i] = write(files[i].Path, files[i].Data)
				if changed[i] && errs[i] == nil {
					mu.Lock()
					dirs[filepath.Dir(filepath.FromSlash(files[i].Path))] = true
					mu.Unlock()
				}
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil { // the first, as a loop over files would stop at it
			return changed, fmt.Errorf("write %s: %w", path(files[i].Path), err)
		}
	}
	return changed, syncDirs(dirs, flush)
}

// syncDir is SyncDir; a test replaces it to see which directories are
// flushed.
var syncDir = SyncDir

// syncDirs flushes each of dirs, in name order, and returns the first
// error. (Flushed at once instead, they measured no faster.)
func syncDirs(dirs map[string]bool, flush func(string) error) error {
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if err := flush(dir); err != nil {
			return err
		}
	}
	return nil
}

// writeIfChanged is WriteFileIfChanged less the directory's flush.
func writeIfChanged(path string, data []byte, perm fs.FileMode) (bool, error) {
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, data):
		return false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	f, err := Create(path, perm)
	if err != nil {
		return false, err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, f.commitRename()
}
