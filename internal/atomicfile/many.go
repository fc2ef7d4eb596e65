package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sync"
)

// Named is one file of WriteFilesIfChanged: its name and its bytes.
type Named struct {
	Path string
	Data []byte
}

// manyWorkers is how many files WriteFilesIfChanged writes at once.
const manyWorkers = 16

// WriteFilesIfChanged is WriteFileIfChanged for many files beneath d (each
// Path a name relative to d). Each file whose bytes differ is written to a
// temp file beside it, several at once; the temp files are then flushed to
// disk together, and only then renamed to their names; last, each
// directory that got a new name is flushed once. Flushing a thousand new
// files together costs what one flush costs, where a flush each costs a
// journal commit each (a first run's thousand feeds: 135 ms on an idle
// runner, seconds on a busy one; together, 50–80 ms).
//
// When it returns without an error every file is as durable as WriteFile
// leaves it; a crash before leaves each file either old or new, never
// partly written, and at worst temp files that Sweep removes. It returns
// whether each file was written, in files' order, and the first file's
// error, "write PATH: ..." (the others are written all the same).
func (d *Dir) WriteFilesIfChanged(files []Named, perm fs.FileMode) ([]bool, error) {
	written := make([]bool, len(files))
	errs := make([]error, len(files))
	temps := make([]string, len(files)) // "": nothing to rename
	names := make([]string, len(files))
	inParallel(len(files), func(i int) {
		names[i] = filepath.Clean(filepath.FromSlash(files[i].Path))
		temps[i], errs[i] = d.writeTemp(names[i], files[i].Data, perm)
	})
	var pending []string
	for _, tmp := range temps {
		if tmp != "" {
			pending = append(pending, tmp)
		}
	}
	if len(pending) > 0 {
		if err := syncTemps(d, pending); err != nil {
			for _, tmp := range pending {
				d.root.Remove(tmp)
			}
			return written, fmt.Errorf("write %s: flush to disk: %w", d.path, err)
		}
	}
	dirs := map[string]bool{}
	for i, tmp := range temps {
		if tmp == "" {
			continue
		}
		if err := d.root.Rename(tmp, names[i]); err != nil {
			d.root.Remove(tmp)
			errs[i] = d.linkError(names[i], err)
			continue
		}
		written[i] = true
		dirs[filepath.Dir(names[i])] = true
	}
	for i, err := range errs {
		if err != nil { // the first, as a loop over files would stop at it
			return written, fmt.Errorf("write %s: %w", d.Join(files[i].Path), err)
		}
	}
	// In name order, so that of several failures the error is always
	// the same one. (Flushed at once instead, they measured no faster.)
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if err := flushDir(d, dir); err != nil {
			return written, err
		}
	}
	return written, nil
}

// writeTemp writes data to a temp file beside name, unless name already
// holds exactly data, and returns the temp file's name ("" when nothing
// was written). The temp file is closed, not yet flushed.
func (d *Dir) writeTemp(name string, data []byte, perm fs.FileMode) (string, error) {
	f, err := d.stage(name, data, perm)
	if f == nil {
		return "", err
	}
	err = f.Chmod(perm)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	f.done = true
	if err != nil {
		d.root.Remove(f.tmp)
		return "", err
	}
	return f.tmp, nil
}

// syncTemps flushes the temp files named (beneath d) to disk: all of the
// file system at once where the system can (syncfs on Linux), each file
// otherwise. A test replaces it to see what is on disk at that moment.
var syncTemps = syncBatch

// flushDir is (*Dir).SyncDir; a test replaces it to see which directories
// are flushed.
var flushDir = (*Dir).SyncDir

// syncEach flushes each temp file named (beneath d), several at once, and
// returns the first error.
func syncEach(d *Dir, temps []string) error {
	errs := make([]error, len(temps))
	inParallel(len(temps), func(i int) {
		f, err := d.root.Open(temps[i])
		if err != nil {
			errs[i] = err
			return
		}
		errs[i] = f.Sync()
		if cerr := f.Close(); errs[i] == nil {
			errs[i] = cerr
		}
	})
	return errors.Join(errs...)
}

// inParallel calls do(i) for each i in [0, n), manyWorkers at once.
func inParallel(n int, do func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(manyWorkers, n) {
		wg.Go(func() {
			for i := range next {
				do(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
