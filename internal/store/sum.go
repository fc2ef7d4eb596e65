package store

import (
	"crypto/sha1"
	"encoding/hex"
	"hash"
	"strconv"
)

// Sum is the SHA-256 of a blob as 64 lower-case hex digits: its name in
// the store. The zero Sum ("") means "no bytes"; any other value that is
// not 64 lower-case hex digits is invalid, and Path and Short are safe on
// it (they never slice past its end nor name a file outside the store).
type Sum string

// Valid reports whether s is 64 lower-case hex digits.
func (s Sum) Valid() bool { return validSum(string(s)) }

// Short is the first 12 hex digits, as shown in logs and reports; an
// invalid sum is shown whole (clipped to 20 bytes), never sliced past its
// end.
func (s Sum) Short() string {
	if s.Valid() {
		return string(s[:12])
	}
	return string(s[:min(len(s), 20)])
}

// Path is where a blob with this sum lives relative to a store's root,
// slash-separated: "sha256/<first two hex>/<64 hex>", or "sha256/invalid"
// (a name no blob has) for an invalid sum.
func (s Sum) Path() string { return BlobPath(string(s)) }

// String returns the hex digits.
func (s Sum) String() string { return string(s) }

// SWHIDOf is the Software Heritage identifier of data: "swh:1:cnt:" and
// the SHA-1 git gives a blob of these bytes ("blob <size>\x00" then the
// bytes). SHA-1 names nothing here by itself (SHA-256 does): it is how
// others name the same bytes, for cross-checking the archive.
func SWHIDOf(data []byte) string {
	g := newBlobHash(int64(len(data)))
	g.Write(data)
	return swhidOf(g)
}

// newBlobHash is a git blob hash of size bytes, its header written.
func newBlobHash(size int64) hash.Hash {
	g := sha1.New()
	g.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	return g
}

func swhidOf(g hash.Hash) string { return "swh:1:cnt:" + hex.EncodeToString(g.Sum(nil)) }
