//go:build !unix && !windows

package session

import "os"

// lockFile cannot lock on this system: a run refuses to start rather than
// share the state with another unknowingly. Commands that take no lock
// (validate, report, cite, the dry run) work.
func lockFile(*os.File) error { return errNoFileLock }

func unlockFile(*os.File) {}
