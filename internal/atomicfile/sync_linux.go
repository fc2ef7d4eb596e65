package atomicfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// syncBatch flushes the whole file system d is on, which holds the temp
// files: one syncfs instead of a flush each (since Linux 5.8 it reports a
// failed write-back, as fsync does). A kernel without it flushes each.
func syncBatch(d *Dir, temps []string) error {
	f, err := d.root.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); !errors.Is(err, unix.ENOSYS) {
		return err
	}
	return syncEach(d, temps)
}
