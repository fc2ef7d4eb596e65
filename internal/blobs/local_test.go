package blobs_test

import (
	"os"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/blobs/blobstest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

func TestLocal(t *testing.T) {
	blobstest.Run(t, blobstest.Options{
		New: func(t *testing.T) blobs.Backend {
			s, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return blobs.NewLocal(s)
		},
		Corrupt: func(t *testing.T, b blobs.Backend, sum store.Sum) {
			p := b.(*blobs.Local).Path(sum)
			if err := os.Chmod(p, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("not what was saved"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	})
}
