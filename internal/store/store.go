package store

import (
	"context"
	"errors"
	"io"
)

// ErrCorrupt means a blob's bytes no longer hash to its name.
var ErrCorrupt = errors.New("store: blob does not match its hash")

// ErrNotFound means no blob has that hash.
var ErrNotFound = errors.New("store: no such blob")

// Store is a content-addressed blob store on the local file system. It is
// safe for concurrent use.
type Store struct {
	root string
}

// Open returns the store rooted at root, creating root/sha256 when missing.
// It fails (clearly) when root cannot be written.
func Open(root string) (*Store, error) {
	panic("TODO")
}

// Root returns the directory the store lives in.
func (s *Store) Root() string { return s.root }

// Put streams r into the store while hashing it and returns the hex SHA-256
// and the size. Bytes already held are a no-op (the temp file is dropped).
// If r fails (ctx ends, a size limit trips, the connection drops) nothing is
// left behind and the error is returned unwrapped enough for errors.Is.
func (s *Store) Put(ctx context.Context, r io.Reader) (sum string, size int64, err error) {
	panic("TODO")
}

// Has reports whether a blob with hex SHA-256 sum is held.
func (s *Store) Has(sum string) bool {
	panic("TODO")
}

// Path returns the path a blob with sum has (or would have).
func (s *Store) Path(sum string) string {
	panic("TODO")
}

// Open returns the blob; reading it to EOF re-hashes it and returns
// ErrCorrupt instead of io.EOF when the bytes do not match.
func (s *Store) Open(sum string) (io.ReadCloser, error) {
	panic("TODO")
}

// Problem is one finding of Verify.
type Problem struct {
	Path    string
	Message string
}

// Verify re-hashes every blob, and checks that every hash in ix has a blob
// and every blob is named by ix (an unindexed blob is reported, not removed).
func (s *Store) Verify(ctx context.Context, ix *Index) ([]Problem, error) {
	panic("TODO")
}
