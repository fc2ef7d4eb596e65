package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
)

// ErrCorrupt means a blob's bytes no longer hash to its name.
var ErrCorrupt = errors.New("store: blob does not match its hash")

// ErrNotFound means no blob has that hash.
var ErrNotFound = errors.New("store: no such blob")

const (
	blobDir  = "sha256"
	blobPerm = 0o444
	// copyBufSize bounds the memory one Put or one re-hash holds, whatever
	// the size of the blob.
	copyBufSize = 32 << 10
)

// copyBufs keeps Put's copy buffers from one Put to the next: a run puts
// every body it is served, and a new buffer each time was a third of all
// it allocated, collector work in the middle of its requests.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

// Store is a content-addressed blob store on the local file system. It is
// safe for concurrent use.
type Store struct {
	root string
	// dir is root, opened for writing (nil when ReadOnly): every blob is
	// written and renamed through it, so none lands outside root by a
	// link. It is not closed: it lives as long as the Store.
	dir *atomicfile.Dir
	// commitMu makes "is it held? if not, rename into place" atomic between
	// the Puts of this process, so a held blob is never replaced, even by
	// identical bytes from a concurrent Put.
	commitMu sync.Mutex
}

// ReadOnly returns the store at root for looking only (Has, Open, Verify):
// it creates and checks nothing, so a dry run leaves the tree untouched.
// Put on it fails if root/sha256 does not exist.
func ReadOnly(root string) *Store { return &Store{root: root} }

// Open returns the store rooted at root, creating root/sha256 when missing.
// It fails (clearly) when root cannot be written.
func Open(root string) (*Store, error) {
	ad, err := atomicfile.OpenDir(root)
	if err != nil {
		return nil, fmt.Errorf("store %s is unwritable: %w", root, err)
	}
	if err := ad.MkdirAll(blobDir, 0o755); err != nil {
		ad.Close()
		return nil, fmt.Errorf("store %s is unwritable: %w", root, err)
	}
	// MkdirAll succeeds on an existing read-only directory; only a write
	// tells. Both directories are probed: blobs go under sha256/, the
	// index beside it.
	for _, probe := range []string{"probe", blobDir + "/probe"} {
		f, err := ad.Create(probe, 0o644)
		if err != nil {
			ad.Close()
			return nil, fmt.Errorf("store %s is unwritable: %w", ad.Join(path.Dir(probe)), err)
		}
		f.Abort()
	}
	return &Store{root: root, dir: ad}, nil
}

// Root returns the directory the store lives in.
func (s *Store) Root() string { return s.root }

// Put streams r into the store while hashing it and returns the hex SHA-256
// and the size. Bytes already held are a no-op (the temp file is dropped).
// If r fails (ctx ends, a size limit trips, the connection drops) nothing is
// left behind and the error is returned unwrapped enough for errors.Is.
//
// Memory use is one copy buffer, whatever the size of the body.
func (s *Store) Put(ctx context.Context, r io.Reader) (sum Sum, size int64, err error) {
	if err := ctx.Err(); err != nil {
		return "", 0, err
	}
	// The first buffer is read before the store touches the disk: a body
	// that fits in it (most pages) has ended before the temp file exists,
	// so creating it does not lengthen the response as the politeness
	// rules count it (the next request waits for its completion), and
	// bytes already held never reach the disk at all.
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	n, whole, err := readFirst(ctxReader{ctx, r}, buf)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	h.Write(buf[:n])
	size = int64(n)
	if whole {
		if sum = Sum(hex.EncodeToString(h.Sum(nil))); s.Has(sum) {
			return sum, size, nil
		}
	}

	// The temp file lives in root/sha256 so the final rename stays on one
	// file system; its name is only known once the last byte is hashed.
	if s.dir == nil {
		return "", 0, fmt.Errorf("store %s: opened to look only (ReadOnly); nothing can be put in it", s.root)
	}
	tmp, err := s.dir.Create(blobDir+"/put", blobPerm)
	if err != nil {
		return "", 0, fmt.Errorf("store: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Abort()
		}
	}()
	if _, err := tmp.Write(buf[:n]); err != nil {
		return "", 0, fmt.Errorf("store: write %s: %w", tmp.Name(), err)
	}
	if !whole {
		// MultiWriter hides *os.File's ReadFrom, so the copy goes through
		// buf and every byte passes the hash and the ctx check.
		rest, err := io.CopyBuffer(io.MultiWriter(tmp.File, h), ctxReader{ctx, r}, buf)
		if err != nil {
			return "", 0, err
		}
		size += rest
		sum = Sum(hex.EncodeToString(h.Sum(nil)))
	}

	if !whole && s.Has(sum) { // a whole body was looked up before the temp file
		return sum, size, nil // held already: the deferred Abort drops the temp
	}
	// fsync before taking the lock: it is the slow part, and concurrent Puts
	// of different bytes need not wait for each other's disks.
	if err := tmp.Sync(); err != nil {
		return "", 0, fmt.Errorf("store: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(blobPerm); err != nil {
		return "", 0, fmt.Errorf("store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", 0, fmt.Errorf("store: close %s: %w", tmp.Name(), err)
	}

	newShard, err := s.commit(tmp.TempName(), sum)
	if err != nil {
		return "", 0, err
	}
	committed = true
	if newShard {
		if err := s.dir.SyncDir(blobDir); err != nil {
			return "", 0, fmt.Errorf("store: %w", err)
		}
	}
	if err := s.dir.SyncDir(path.Dir(sum.Path())); err != nil {
		return "", 0, fmt.Errorf("store: %w", err)
	}
	return sum, size, nil
}

// commit renames the finished temp file (tmp, beneath root) to the blob
// sum unless it is held, in which case the temp file is removed. It
// reports whether it created the shard directory, whose own entry then
// needs flushing.
func (s *Store) commit(tmp string, sum Sum) (newShard bool, err error) {
	final := sum.Path()
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if _, err := s.dir.Lstat(final); err == nil {
		return false, s.dir.Remove(tmp)
	}
	switch err := s.dir.Mkdir(path.Dir(final), 0o755); {
	case err == nil:
		newShard = true
	case !errors.Is(err, fs.ErrExist):
		return false, fmt.Errorf("store: %w", err)
	}
	if err := s.dir.Rename(tmp, final); err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	return newShard, nil
}

// Has reports whether a blob with hex SHA-256 sum is held. A sum that is
// not 64 lower-case hex digits is never held.
func (s *Store) Has(sum Sum) bool {
	if !sum.Valid() {
		return false
	}
	st, err := os.Stat(s.Path(sum))
	return err == nil && st.Mode().IsRegular()
}

// Path returns the path a blob with sum has (or would have):
// <root>/sha256/<first two hex>/<64 hex>. A sum that is not 64 lower-case
// hex digits gets <root>/sha256/invalid, a name no blob has, so that a bad
// sum can never name a file outside the store.
func (s *Store) Path(sum Sum) string {
	return filepath.Join(s.root, filepath.FromSlash(sum.Path()))
}

// BlobPath is where a blob with sum lives relative to a store's root,
// slash-separated: "sha256/<first two hex>/<64 hex>" (the same layout
// under snapshots/ in the repository), or "sha256/invalid" for a sum that
// is not 64 lower-case hex digits.
func BlobPath(sum string) string {
	if !validSum(sum) {
		return blobDir + "/invalid"
	}
	return blobDir + "/" + sum[:2] + "/" + sum
}

// Open returns the blob; reading it to EOF re-hashes it and returns
// ErrCorrupt instead of io.EOF when the bytes do not match. A blob that is
// not held (or a sum that is not 64 lower-case hex) is ErrNotFound.
func (s *Store) Open(sum Sum) (io.ReadCloser, error) {
	if !sum.Valid() {
		return nil, fmt.Errorf("%w: %q is not a hex sha256", ErrNotFound, sum)
	}
	p := s.Path(sum)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, p)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &blobReader{f: f, want: sum, h: sha256.New()}, nil
}

// blobReader hashes what it hands out and turns the final io.EOF into
// ErrCorrupt when the hash is not the blob's name.
type blobReader struct {
	f    *os.File
	want Sum
	h    hash.Hash
	end  error // io.EOF or the ErrCorrupt, once the end is reached
}

func (b *blobReader) Read(p []byte) (int, error) {
	if b.end != nil {
		return 0, b.end
	}
	n, err := b.f.Read(p)
	b.h.Write(p[:n])
	if err != io.EOF {
		return n, err
	}
	b.end = io.EOF
	if got := Sum(hex.EncodeToString(b.h.Sum(nil))); got != b.want {
		b.end = fmt.Errorf("%w: %s hashes to %s", ErrCorrupt, b.f.Name(), got)
	}
	return n, b.end
}

func (b *blobReader) Close() error { return b.f.Close() }

// SWHID returns the Software Heritage identifier of a held blob: its
// bytes' git blob id as swh:1:cnt:<40 hex>, what Software Heritage and any
// git object store name the same bytes by. Reading re-hashes, as Open does.
func (s *Store) SWHID(sum Sum) (string, error) {
	f, err := s.Open(sum)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.(*blobReader).f.Stat()
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	g := newBlobHash(fi.Size())
	if _, err := io.Copy(g, f); err != nil {
		return "", err
	}
	return swhidOf(g), nil
}

// Problem is one finding of Verify.
type Problem struct {
	Path    string
	Message string
}

// Verify re-hashes every blob, and checks that every hash in ix has a blob
// (unless its entry says stores hold it: Entry.Held) and every blob is
// named by ix (an unindexed blob is reported, not removed).
// It also reports leftover temp files of interrupted writes and files that
// are not where their name puts them. Nothing is changed. Problems are
// sorted by path, then message; the error is for a Verify that could not
// finish (ctx ended, root/sha256 unreadable).
func (s *Store) Verify(ctx context.Context, ix *Index) ([]Problem, error) {
	var probs []Problem
	report := func(path, format string, args ...any) {
		probs = append(probs, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	dir := filepath.Join(s.root, blobDir)
	held := make(map[Sum]string) // every well-placed blob, corrupt or not: its SWHID
	buf := make([]byte, copyBufSize)

	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			report(p, "cannot read: %v", err)
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		depth := strings.Count(rel, string(filepath.Separator)) + 1
		name := d.Name()
		switch {
		case p == dir:
			return nil
		case strings.HasPrefix(name, atomicfile.TempPrefix) && d.Type().IsRegular():
			report(p, "leftover temp file of an interrupted write")
			return nil
		case d.IsDir():
			if depth == 1 && isShard(name) {
				return nil
			}
			report(p, "unexpected directory in the store")
			return filepath.SkipDir
		case !d.Type().IsRegular():
			report(p, "not a regular file")
			return nil
		case depth != 2 || !validSum(name) || name[:2] != filepath.Base(filepath.Dir(p)):
			report(p, "misplaced: not a blob at sha256/<first two hex>/<64 hex>")
			return nil
		}
		got, swhid, err := hashFile(ctx, p, buf)
		held[Sum(name)] = ""
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			report(p, "cannot read: %v", err)
		case got != name:
			report(p, "corrupt: bytes hash to %s", got)
		default:
			held[Sum(name)] = swhid // a corrupt blob's SWHID says nothing more
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: verify %s: %w", dir, err)
	}

	indexed := make(map[Sum][]string) // sum → ids that name it
	elsewhere := map[Sum]bool{}       // held by stores, says the index
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if len(e.Held) > 0 {
				for _, sum := range e.Blobs() {
					elsewhere[sum] = true
				}
			}
			indexed[e.SHA256] = append(indexed[e.SHA256], id)
			if got, ok := held[e.SHA256]; ok && e.SWHID != "" && got != "" && e.SWHID != got {
				report(s.Path(e.SHA256), "%s: the index gives its SWHID as %s, the bytes are %s", id, e.SWHID, got)
			}
			if e.Sent != nil {
				// The bytes as sent: held like the document, and never
				// taken for an orphan.
				indexed[e.Sent.SHA256] = append(indexed[e.Sent.SHA256], id+" (as sent)")
			}
		}
	}
	for sum, ids := range indexed {
		switch {
		case !sum.Valid():
			report(filepath.Join(s.root, "index.json"), "%s: %q is not a hex sha256", strings.Join(ids, ", "), sum)
		case !has(held, sum) && !elsewhere[sum]:
			report(s.Path(sum), "missing: indexed by %s but not in the store", strings.Join(ids, ", "))
		}
	}
	for sum := range held {
		if indexed[sum] == nil {
			report(s.Path(sum), "unindexed: no source in the index names this blob")
		}
	}

	slices.SortFunc(probs, func(a, b Problem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return probs, nil
}

func has(m map[Sum]string, sum Sum) bool { _, ok := m[sum]; return ok }

// hashFile returns the hex SHA-256 of the file at p and its SWHID, in
// one reading, giving up when ctx ends.
func hashFile(ctx context.Context, p string, buf []byte) (sum, swhid string, err error) {
	f, err := os.Open(p)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", "", err
	}
	h, g := sha256.New(), newBlobHash(fi.Size())
	n, err := io.CopyBuffer(io.MultiWriter(h, g), ctxReader{ctx, f}, buf)
	if err != nil {
		return "", "", err
	}
	if n != fi.Size() {
		return "", "", fmt.Errorf("%s changed size while read (%d bytes, then %d)", p, fi.Size(), n)
	}
	return hex.EncodeToString(h.Sum(nil)), swhidOf(g), nil
}

// ctxReader fails with ctx.Err() once ctx ends, so a long body or a large
// blob is abandoned between two reads rather than at its end.
// readFirst fills buf from r. whole says r ended (io.EOF) within it; any
// other error is returned as r gave it (not io.ReadFull's reading of it: a
// body cut short is io.ErrUnexpectedEOF from net/http, never a whole one).
func readFirst(r io.Reader, buf []byte) (n int, whole bool, err error) {
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return n, true, nil
		}
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// validSum reports whether sum is a SHA-256 in lower-case hex, the only
// spelling the store uses for names.
func validSum(sum string) bool {
	return len(sum) == 2*sha256.Size && isLowerHex(sum)
}

func isShard(name string) bool { return len(name) == 2 && isLowerHex(name) }

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
