package outputs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// TestDerivedReadsTheFirstPlaceThatHoldsAText: a text kept in the local
// store is read there; else from the cache branch's pending/ or blobs/; else from
// the first tree whose file of a source is of those bytes (its .engine
// names them), and never from a source's file of other bytes; else it is
// derived from the bytes, local or opened through Blob; a blob held
// nowhere has no text.
func TestDerivedReadsTheFirstPlaceThatHoldsAText(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := store.Open(dir)
	must(t, err)
	put := func(body string) string {
		sum, _, err := s.Put(ctx, strings.NewReader(body))
		must(t, err)
		return string(sum)
	}
	kept, inTree, raw, older := put("kept locally\n"), put("kept on a branch\n"), put("only the bytes\n"), put("an older version\n")
	pending := strings.Repeat("d", 64)
	_, err = textview.Save(dir, kept, textview.Result{Text: "the local text\n", Kind: textview.KindText})
	must(t, err)
	source := func(id, sum, text string) fstest.MapFS {
		out := fstest.MapFS{}
		for _, ch := range (botrepo.Text{Text: []byte(text), Engine: "text: utf-8"}).Changes(id, store.Sum(sum)) {
			if ch.Data != nil {
				out[ch.Path] = &fstest.MapFile{Data: ch.Data}
			}
		}
		return out
	}
	tree := fstest.MapFS{}
	for _, f := range []fstest.MapFS{
		source("s-kept", kept, "the tree's text, not read\n"),
		source("s-branch", inTree, "the tree's text\n"),
		source("s-now", put("what s-now serves now\n"), "s-now's text now\n"),
	} {
		maps.Copy(tree, f)
	}
	cache := fstest.MapFS{}
	for i, f := range botrepo.PendingTextFiles(store.Sum(pending)) {
		if i != 1 {
			cache[f] = &fstest.MapFile{Data: []byte("waiting on the cache branch\n")}
		}
	}
	left := strings.Repeat("c", 64) // an older version's, kept once it left pending/
	for i, f := range botrepo.CacheTextFiles(store.Sum(left)) {
		if i != 1 {
			cache[f] = &fstest.MapFile{Data: []byte("kept on the cache branch\n")}
		}
	}
	elsewhere := strings.Repeat("e", 64)
	d := Derived{Snapshots: dir, Trees: []fs.FS{fstest.MapFS{}, tree}, Pending: cache}
	for _, c := range []struct {
		sum, want string
		ok        bool
	}{
		{kept, "the local text\n", true},
		{pending, "waiting on the cache branch\n", true},
		{left, "kept on the cache branch\n", true},
		{inTree, "the tree's text\n", true},
		{raw, "only the bytes\n", true},
		{older, "an older version\n", true}, // s-now's file is of other bytes: derived from these
		{elsewhere, "", false},
	} {
		for _, d := range []Derived{d, d.Memoized()} {
			got, ok := d.Text(ctx, c.sum, "text/plain; charset=utf-8")
			if got != c.want || ok != c.ok {
				t.Errorf("Text(%.8s) = %q, %v; want %q, %v", c.sum, got, ok, c.want, c.ok)
			}
		}
	}
	// Bytes held only elsewhere are derived through Blob.
	d.Blob = func(sum string) (io.ReadCloser, int64, error) {
		if sum != elsewhere {
			return nil, 0, fs.ErrNotExist
		}
		return io.NopCloser(strings.NewReader("from a branch\n")), 14, nil
	}
	if got, ok := d.Text(ctx, elsewhere, "text/plain"); got != "from a branch\n" || !ok {
		t.Errorf("Text through Blob = %q, %v", got, ok)
	}
}

// TestDerivedReadsACheckoutsTexts: a checkout's snapshots/ (report,
// run in a clone) keeps texts by source; its text of what a source serves
// now is read from there, with no bytes to derive it from.
func TestDerivedReadsACheckoutsTexts(t *testing.T) {
	dir := t.TempDir()
	sum := store.Sum(strings.Repeat("a", 64))
	for _, ch := range (botrepo.Text{Text: []byte("the checkout's text\n"), Engine: "text: utf-8"}).Changes("s-a", sum) {
		if ch.Data == nil {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(ch.Path, "snapshots/")))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, ch.Data, 0o644))
	}
	if got, ok := (Derived{Snapshots: dir}).Text(context.Background(), string(sum), "text/plain"); got != "the checkout's text\n" || !ok {
		t.Errorf("Text = %q, %v; want the checkout's text of s-a", got, ok)
	}
}

// partial is a tree that holds a file only once it is fetched, as a
// partial clone does.
type partial struct {
	fstest.MapFS
	remote  fstest.MapFS
	fetched []string
}

func (p *partial) Fetch(_ context.Context, names ...string) error {
	for _, n := range names {
		if f, ok := p.remote[n]; ok {
			p.MapFS[n] = f
		}
		p.fetched = append(p.fetched, n)
	}
	return nil
}

// TestBlobsLocalThenTrees: a blob held locally is read there; else from
// the first tree holding it, fetched first from a tree that fetches; held
// nowhere, it is not there.
func TestBlobsLocalThenTrees(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := store.Open(dir)
	must(t, err)
	local, _, err := s.Put(ctx, strings.NewReader("held here"))
	must(t, err)
	onBranch, nowhere := strings.Repeat("cd", 32), strings.Repeat("ef", 32)
	p := "snapshots/" + store.BlobPath(onBranch)
	branch := &partial{MapFS: fstest.MapFS{}, remote: fstest.MapFS{p: {Data: []byte("on the branch")}}}
	open := Blobs(ctx, dir, fstest.MapFS{}, branch)
	read := func(sum string) (string, error) {
		rc, size, err := open(sum)
		if err != nil {
			return "", err
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if int64(len(data)) != size {
			t.Errorf("%.8s: size %d, read %d", sum, size, len(data))
		}
		return string(data), err
	}
	if got, err := read(string(local)); got != "held here" || err != nil {
		t.Errorf("local blob: %q, %v", got, err)
	}
	if got, err := read(onBranch); got != "on the branch" || err != nil {
		t.Errorf("blob on the branch: %q, %v", got, err)
	}
	if len(branch.fetched) != 1 || branch.fetched[0] != p {
		t.Errorf("fetched %v, want [%s]", branch.fetched, p)
	}
	if _, err := read(nowhere); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a blob held nowhere: %v, want fs.ErrNotExist", err)
	}
}
