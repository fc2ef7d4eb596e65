package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// body returns n deterministic, non-repeating-looking bytes.
func body(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31) ^ byte(i>>8) ^ seed
	}
	return b
}

func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPut(t testing.TB, s *Store, data []byte) Sum {
	t.Helper()
	sum, size, err := s.Put(context.Background(), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if sum != sumOf(data) || size != int64(len(data)) {
		t.Fatalf("Put = %s, %d; want %s, %d", sum, size, sumOf(data), len(data))
	}
	return sum
}

// tree lists everything under root (files and directories), relative and
// slash-separated, sorted.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			rel, _ := filepath.Rel(root, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// tamper flips one byte of the blob in place, as bit rot or a careless
// editor would.
func tamper(t *testing.T, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCreatesBlobDirAndLeavesNoProbe(t *testing.T) {
	root := filepath.Join(t.TempDir(), "snapshots")
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Root() != root {
		t.Errorf("Root() = %q, want %q", s.Root(), root)
	}
	if diff := cmp.Diff([]string{"sha256"}, tree(t, root)); diff != "" {
		t.Errorf("tree after Open (-want +got):\n%s", diff)
	}
}

func TestOpenUnwritable(t *testing.T) {
	parent := t.TempDir()
	file := filepath.Join(parent, "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{"root is a file": file}
	if os.Geteuid() != 0 { // root writes through permission bits
		ro := filepath.Join(parent, "read-only")
		if err := os.MkdirAll(filepath.Join(ro, "sha256"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(ro, "sha256"), 0o555)
		os.Chmod(ro, 0o555)
		t.Cleanup(func() {
			os.Chmod(ro, 0o755)
			os.Chmod(filepath.Join(ro, "sha256"), 0o755)
		})
		cases["read-only root"] = ro
	}
	for name, root := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Open(root)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if msg := err.Error(); !strings.Contains(msg, root) || !strings.Contains(msg, "unwritable") {
				t.Errorf("error %q does not name %s and say it is unwritable", msg, root)
			}
		})
	}
}

func TestPutOpenRoundTrip(t *testing.T) {
	s := openStore(t)
	for _, n := range []int{0, 1, copyBufSize - 1, copyBufSize, 3*copyBufSize + 7} {
		data := body(n, byte(n))
		sum := mustPut(t, s, data)
		rc, err := s.Open(sum)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("size %d: read back: %v", n, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("size %d: read back %d different bytes", n, len(got))
		}
	}
}

func TestPutLayout(t *testing.T) {
	s := openStore(t)
	sum := mustPut(t, s, []byte("abc"))
	const want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if sum != want {
		t.Fatalf("sum = %s, want %s", sum, want)
	}
	if got, wantPath := s.Path(sum), filepath.Join(s.Root(), "sha256", "ba", want); got != wantPath {
		t.Errorf("Path = %s, want %s", got, wantPath)
	}
	if diff := cmp.Diff([]string{"sha256", "sha256/ba", "sha256/ba/" + want}, tree(t, s.Root())); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	st, err := os.Stat(s.Path(sum))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o444 {
		t.Errorf("blob mode = %v, want 0444", st.Mode().Perm())
	}
	if !s.Has(sum) {
		t.Error("Has = false after Put")
	}
}

func TestPutHeldIsNoOp(t *testing.T) {
	s := openStore(t)
	data := body(100_000, 7)
	sum := mustPut(t, s, data)
	p := s.Path(sum)
	// Backdate the blob: a rewrite would then show in the mtime whatever
	// the file system's timestamp resolution.
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	treeBefore := tree(t, s.Root())

	mustPut(t, s, data)

	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("blob was replaced by a new file")
	}
	if !after.ModTime().Equal(old) {
		t.Errorf("mtime = %v, want %v (untouched)", after.ModTime(), old)
	}
	if after.Mode().Perm() != 0o444 {
		t.Errorf("mode = %v, want 0444", after.Mode().Perm())
	}
	if diff := cmp.Diff(treeBefore, tree(t, s.Root())); diff != "" {
		t.Errorf("tree changed (-before +after):\n%s", diff)
	}
}

func TestPutConcurrentSameBytes(t *testing.T) {
	s := openStore(t)
	data := body(200_000, 3)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if sum, _, err := s.Put(context.Background(), bytes.NewReader(data)); err != nil || sum != sumOf(data) {
				t.Errorf("Put = %s, %v", sum, err)
			}
		})
	}
	wg.Wait()
	sum := string(sumOf(data))
	want := []string{"sha256", "sha256/" + sum[:2], "sha256/" + sum[:2] + "/" + sum}
	if diff := cmp.Diff(want, tree(t, s.Root())); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

// failingReader serves n bytes, then fails with err.
type failingReader struct {
	n   int
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, r.err
	}
	k := min(len(p), r.n, 10_000)
	clear(p[:k])
	r.n -= k
	return k, nil
}

var errSentinel = errors.New("body larger than max_body")

func TestPutReaderErrorLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int // bytes served before the error
		err  error
	}{
		{"sentinel half way", 100_000, errSentinel},
		{"wrapped sentinel", 100_000, fmt.Errorf("fetch: %w", errSentinel)},
		{"unexpected EOF", 100_000, io.ErrUnexpectedEOF},
		{"fails at once", 0, errSentinel},
		{"fails after several buffers", 3 * copyBufSize, errSentinel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			sum, size, err := s.Put(context.Background(), &failingReader{n: tc.n, err: tc.err})
			if !errors.Is(err, tc.err) {
				t.Fatalf("Put error = %v, want one that Is %v", err, tc.err)
			}
			if sum != "" || size != 0 {
				t.Errorf("Put = %q, %d; want \"\", 0 on error", sum, size)
			}
			if diff := cmp.Diff([]string{"sha256"}, tree(t, s.Root())); diff != "" {
				t.Errorf("left behind (-want +got):\n%s", diff)
			}
		})
	}
}

// cancellingReader cancels its context after its first read, then keeps
// serving bytes, as a connection would while a SIGTERM arrives.
type cancellingReader struct {
	cancel context.CancelFunc
	left   int
}

func (r *cancellingReader) Read(p []byte) (int, error) {
	r.cancel()
	if r.left == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.left)
	clear(p[:k])
	r.left -= k
	return k, nil
}

func TestPutCancelledMidStreamLeavesNothing(t *testing.T) {
	s := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _, err := s.Put(ctx, &cancellingReader{cancel: cancel, left: 1 << 20})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Put error = %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]string{"sha256"}, tree(t, s.Root())); diff != "" {
		t.Errorf("left behind (-want +got):\n%s", diff)
	}
}

func TestHasAndPathValidateSum(t *testing.T) {
	s := openStore(t)
	sum := string(mustPut(t, s, []byte("held")))
	for _, bad := range []Sum{
		"",
		"ab",
		Sum(strings.ToUpper(sum)),
		Sum(sum[:63]),
		Sum(sum + "0"),
		"../../../../etc/passwd",
		Sum(strings.Repeat("g", 64)),
		Sum(sum[:2] + "/../" + sum[6:]),
	} {
		if s.Has(bad) {
			t.Errorf("Has(%q) = true", bad)
		}
		p := s.Path(bad)
		if p != s.Path(bad) {
			t.Errorf("Path(%q) not deterministic", bad)
		}
		if rel, err := filepath.Rel(filepath.Join(s.Root(), "sha256"), p); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("Path(%q) = %s, outside the store", bad, p)
		}
		if _, err := s.Open(bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open(%q) error = %v, want ErrNotFound", bad, err)
		}
	}
	if !s.Has(Sum(sum)) {
		t.Errorf("Has(%s) = false", sum)
	}
}

func TestOpenMissing(t *testing.T) {
	s := openStore(t)
	sum := sumOf([]byte("never stored"))
	if s.Has(sum) {
		t.Error("Has = true for a blob never stored")
	}
	_, err := s.Open(sum)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open error = %v, want ErrNotFound", err)
	}
}

func TestOpenTamperedBlobIsCorrupt(t *testing.T) {
	data := body(3*copyBufSize+5, 1)
	for name, change := range map[string]func(t *testing.T, p string){
		"byte flipped": tamper,
		"truncated": func(t *testing.T, p string) {
			os.Chmod(p, 0o644)
			if err := os.Truncate(p, int64(len(data)-1)); err != nil {
				t.Fatal(err)
			}
		},
		"appended": func(t *testing.T, p string) {
			os.Chmod(p, 0o644)
			if err := os.WriteFile(p, append(bytes.Clone(data), 0), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := openStore(t)
			sum := mustPut(t, s, data)
			change(t, s.Path(sum))
			rc, err := s.Open(sum)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			_, err = io.ReadAll(rc)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("reading a tampered blob: error = %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), s.Path(sum)) {
				t.Errorf("error %q does not name the blob", err)
			}
			// The verdict sticks: a second read past the end must not
			// turn it into a clean io.EOF.
			if _, err := rc.Read(make([]byte, 1)); !errors.Is(err, ErrCorrupt) {
				t.Errorf("read after the end: error = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	s := openStore(t)
	blobs := filepath.Join(s.Root(), "sha256")
	good := mustPut(t, s, []byte("good"))
	corrupt := mustPut(t, s, []byte("corrupt me"))
	unindexed := mustPut(t, s, []byte("nobody's"))
	missing := sumOf([]byte("never stored"))

	ix := NewIndex()
	ix.Add("src-a", Entry{SHA256: good}, "")
	ix.Add("src-b", Entry{SHA256: corrupt}, "")
	ix.Add("src-d", Entry{SHA256: missing}, "")
	ix.Add("src-c", Entry{SHA256: missing}, "")
	ix.Add("src-e", Entry{SHA256: good}, "") // a hash under two ids is fine

	tamper(t, s.Path(corrupt))
	tampered, err := os.ReadFile(s.Path(corrupt))
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string, data []byte) string {
		p := filepath.Join(blobs, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrongShard := "00"
	if good.Path()[7:9] == wrongShard {
		wrongShard = "ff"
	}
	want := []Problem{
		{s.Path(corrupt), "corrupt: bytes hash to " + sumOf(tampered).String()},
		{s.Path(missing), "missing: indexed by src-c, src-d but not in the store"},
		{s.Path(unindexed), "unindexed: no source in the index names this blob"},
		{write(".tmp-put-12345", []byte("half a bo")), "leftover temp file of an interrupted write"},
		{write(good.Path()[7:9]+"/.tmp-x-1", nil), "leftover temp file of an interrupted write"},
		{write(wrongShard+"/"+good.String(), []byte("good")), "misplaced: not a blob at sha256/<first two hex>/<64 hex>"},
		{write(good.String(), []byte("good")), "misplaced: not a blob at sha256/<first two hex>/<64 hex>"},
		{write("README", []byte("hi")), "misplaced: not a blob at sha256/<first two hex>/<64 hex>"},
		{filepath.Dir(write("AB/"+good.String(), []byte("good"))), "unexpected directory in the store"},
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Path < want[j].Path })

	got, err := s.Verify(context.Background(), ix)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Verify problems (-want +got):\n%s", diff)
	}
}

func TestVerifyCleanStore(t *testing.T) {
	s := openStore(t)
	ix := NewIndex()
	for i := range 5 {
		ix.Add(fmt.Sprint("src-", i), Entry{SHA256: mustPut(t, s, body(1000*i, byte(i)))}, "")
	}
	got, err := s.Verify(context.Background(), ix)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("Verify of a clean store = %v, want no problems", got)
	}
}

func TestVerifyStopsWhenCancelled(t *testing.T) {
	s := openStore(t)
	mustPut(t, s, []byte("x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Verify(ctx, NewIndex()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Verify error = %v, want context.Canceled", err)
	}
}

// plainReader serves a prepared body without implementing io.WriterTo,
// as an HTTP body does, so Put goes through its own buffer.
type plainReader struct{ r *bytes.Reader }

func (c plainReader) Read(p []byte) (int, error) { return c.r.Read(p) }

// BenchmarkPut measures the streaming write path on a 10 MiB body; B/op
// must stay around one copy buffer, not the body size.
func BenchmarkPut(b *testing.B) {
	data := body(10<<20, 0)
	b.Run("new", func(b *testing.B) {
		s := openStore(b)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			// A new first byte run per iteration makes every body a new
			// blob, so each one pays for the fsync and the rename.
			i++
			copy(data, fmt.Sprintf("%016d", i))
			sum, _, err := s.Put(context.Background(), plainReader{bytes.NewReader(data)})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.Remove(s.Path(sum)) // keep the disk from filling up
			b.StartTimer()
		}
	})
	// held-page is what a run mostly puts: a page of a few KiB it holds.
	for name, held := range map[string][]byte{"held": data, "held-page": data[:20<<10]} {
		b.Run(name, func(b *testing.B) {
			s := openStore(b)
			mustPut(b, s, held)
			b.SetBytes(int64(len(held)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.Put(context.Background(), plainReader{bytes.NewReader(held)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpenVerify measures reading a 10 MiB blob back through the
// re-hashing reader.
func BenchmarkOpenVerify(b *testing.B) {
	s := openStore(b)
	sum := mustPut(b, s, body(10<<20, 0))
	b.SetBytes(10 << 20)
	b.ReportAllocs()
	for b.Loop() {
		rc, err := s.Open(sum)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rc); err != nil {
			b.Fatal(err)
		}
		rc.Close()
	}
}

// Put checks for a held blob twice: once to skip the fsync, and under
// commitMu for concurrent Puts that both found it missing. This pins the
// second check, which TestPutHeldIsNoOp cannot reach.
func TestCommitNeverReplacesAHeldBlob(t *testing.T) {
	s := openStore(t)
	data := []byte("held")
	sum := mustPut(t, s, data)
	before, err := os.Stat(s.Path(sum))
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(s.Root(), "sha256", ".tmp-put-race")
	if err := os.WriteFile(tmp, data, 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := s.commit("sha256/.tmp-put-race", sum); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(s.Path(sum))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("commit replaced a held blob")
	}
	if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temp file still there: %v", err)
	}
}

// endReader hands out data, and at its end notes whether the store had
// already created a file for it.
type endReader struct {
	data    []byte
	dir     string
	touched bool // a temp file existed when the body ended
}

func (e *endReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		ents, _ := os.ReadDir(e.dir)
		for _, ent := range ents {
			if strings.HasPrefix(ent.Name(), atomicfile.TempPrefix) {
				e.touched = true
			}
		}
		return 0, io.EOF
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

// A body that fits in one buffer is read to its end before the store
// creates a file: the response ends (and the politeness rules count from
// its end) without waiting for the disk. Bytes already held never reach
// the disk.
func TestPutReadsASmallBodyBeforeTouchingTheDisk(t *testing.T) {
	s := openStore(t)
	dir := filepath.Join(s.Root(), "sha256")
	r := &endReader{data: []byte("a page of rates"), dir: dir}
	sum, size, err := s.Put(context.Background(), r)
	if err != nil || sum != sumOf([]byte("a page of rates")) || size != 15 {
		t.Fatalf("Put = %s, %d, %v", sum, size, err)
	}
	if r.touched {
		t.Error("a temp file existed before the body ended")
	}
	if !s.Has(sum) {
		t.Fatal("the blob was not stored")
	}
	// Again: held already, so nothing is created at all.
	r = &endReader{data: []byte("a page of rates"), dir: dir}
	if got, _, err := s.Put(context.Background(), r); err != nil || got != sum || r.touched {
		t.Errorf("second Put = %s, %v, temp file seen %v", got, err, r.touched)
	}
	// A body past one buffer streams through a temp file as before.
	big := body(3*copyBufSize+7, 9)
	if got, n, err := s.Put(context.Background(), &endReader{data: big, dir: dir}); err != nil || got != sumOf(big) || n != int64(len(big)) {
		t.Errorf("large Put = %s, %d, %v", got, n, err)
	}
}

// A body cut short (net/http's io.ErrUnexpectedEOF for a Content-Length
// longer than the body) is an error, not a whole small body.
func TestPutRefusesABodyCutShort(t *testing.T) {
	s := openStore(t)
	r := io.MultiReader(strings.NewReader("half a"), iotest.ErrReader(io.ErrUnexpectedEOF))
	if sum, _, err := s.Put(context.Background(), r); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Put of a body cut short = %s, %v; want io.ErrUnexpectedEOF", sum, err)
	}
	if s.Has(sumOf([]byte("half a"))) {
		t.Error("the fragment was stored")
	}
}

// An entry whose bytes stores hold (Held) is not missing from a store
// that lacks them: main keeps the record, the stores the bytes. One that
// names no store is.
func TestVerifyLeavesBytesHeldByStoresToThem(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex()
	ix.Add("stored", Entry{SHA256: sumA, Size: 1, FirstSeen: "2026-12-01", Held: []Holding{{Store: "github-releases:o/r"}}}, "")
	ix.Add("lost", Entry{SHA256: sumB, Size: 1, FirstSeen: "2026-12-01"}, "")
	probs, err := s.Verify(context.Background(), ix)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || !strings.Contains(probs[0].Path, string(sumB)) || !strings.Contains(probs[0].Message, "missing") {
		t.Errorf("problems %+v, want only the blob no store holds missing", probs)
	}
}
