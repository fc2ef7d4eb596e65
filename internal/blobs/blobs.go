package blobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// ErrNotFound means the backend holds no blob of that hash; ErrCorrupt
// that the bytes it holds under a hash do not hash to it. They are the
// store's, so that a caller tells them apart whatever holds the bytes.
var (
	ErrNotFound = store.ErrNotFound
	ErrCorrupt  = store.ErrCorrupt
)

// Backend holds blobs named by their SHA-256. Implementations are safe
// for concurrent use.
type Backend interface {
	// Name says which store this is, for messages and the index:
	// "local:/srv/blobs", "github-releases:owner/repo", "s3:bucket/prefix".
	Name() string
	// Save stores size bytes read from r as the blob sum. The bytes must
	// hash to sum: a backend checks it before the blob becomes visible,
	// and refuses with ErrCorrupt otherwise. Saving a blob already held
	// is a no-op that sends nothing. r is read from its start again on a
	// retry, so a failed transfer never leaves a partial blob.
	Save(ctx context.Context, sum store.Sum, r io.ReaderAt, size int64) error
	// Load returns the blob: reading it to its end re-hashes it and
	// fails with ErrCorrupt, instead of io.EOF, when the bytes do not hash
	// to sum. A blob not held is ErrNotFound.
	Load(ctx context.Context, sum store.Sum) (io.ReadCloser, error)
	// Stat returns the size of the blob, ErrNotFound when not held.
	Stat(ctx context.Context, sum store.Sum) (int64, error)
	// List calls fn with each blob held, once each, in no set order; an
	// error fn returns ends the listing and is returned.
	List(ctx context.Context, fn func(sum store.Sum, size int64) error) error
}

// Linker is a Backend whose blobs anyone can download from a public URL
// (a GitHub release asset's download link): the URL a citation prints.
type Linker interface {
	// URL is the blob's public URL; ErrNotFound when it is not held, ""
	// when this blob has none.
	URL(ctx context.Context, sum store.Sum) (string, error)
}

// Verified wraps a blob's bytes so that reading them to the end re-hashes
// them: io.EOF becomes ErrCorrupt when they do not hash to want, or when
// there are not size of them (size < 0: any size). For backends whose
// engine hands out a plain stream.
func Verified(rc io.ReadCloser, want store.Sum, size int64, where string) io.ReadCloser {
	return &verified{rc: rc, want: want, size: size, h: sha256.New(), where: where}
}

type verified struct {
	rc    io.ReadCloser
	want  store.Sum
	size  int64
	n     int64
	h     hash.Hash
	where string
	end   error
}

func (v *verified) Read(p []byte) (int, error) {
	if v.end != nil {
		return 0, v.end
	}
	n, err := v.rc.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if err != io.EOF {
		return n, err
	}
	v.end = io.EOF
	switch got := store.Sum(hex.EncodeToString(v.h.Sum(nil))); {
	case v.size >= 0 && v.n != v.size:
		v.end = fmt.Errorf("%w: %s of %s is %d bytes, want %d", ErrCorrupt, v.want.Short(), v.where, v.n, v.size)
	case got != v.want:
		v.end = fmt.Errorf("%w: %s of %s hashes to %s", ErrCorrupt, v.want.Short(), v.where, got)
	}
	return n, v.end
}

func (v *verified) Close() error { return v.rc.Close() }

// Check reads size bytes of r and says whether they hash to sum: what a
// backend does before it makes a blob visible.
func Check(sum store.Sum, r io.ReaderAt, size int64) error {
	h := sha256.New()
	n, err := io.Copy(h, io.NewSectionReader(r, 0, size))
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("%w: %d bytes to save, %d read", ErrCorrupt, size, n)
	}
	if got := store.Sum(hex.EncodeToString(h.Sum(nil))); got != sum {
		return fmt.Errorf("%w: the bytes to save as %s hash to %s", ErrCorrupt, sum.Short(), got)
	}
	return nil
}

// IsNotFound says whether err means the blob is not held.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
