package session

import (
	"errors"
	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"os"
	"path/filepath"
)

// errNoFileLock: this system offers no file lock the run can rely on.
var errNoFileLock = errors.New("no file lock on this system: a run cannot keep another from sharing the state")

// lockState takes an exclusive lock on the state directory so that two runs
// on one machine never share a host; the cache branch's lease
// does the same across machines.
func lockState(path string) (func(), error) {
	dir, err := atomicfile.OpenDir(filepath.Dir(path))
	if err != nil {
		return nil, unwritable(err)
	}
	defer dir.Close()
	f, err := dir.OpenFile(filepath.Base(path), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, unwritable(err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errNoFileLock) {
			return nil, cannotRun("%s: %w", path, err)
		}
		return nil, cannotRun("another run holds %s: wait for it to finish", path)
	}
	return func() { unlockFile(f); f.Close() }, nil
}

// unwritable is why the lock could not be taken: a link that leads out of
// the state directory's parent said as such, anything else as the state
// directory being unwritable.
func unwritable(err error) error {
	if errors.As(err, new(*atomicfile.LinkError)) {
		return cannotRun("%w", err)
	}
	return cannotRun("state directory unwritable: %w", err)
}
