//go:build !linux

package atomicfile

// syncBatch flushes each temp file: other systems have no call that
// flushes one file system and reports its failures.
func syncBatch(d *Dir, temps []string) error { return syncEach(d, temps) }
