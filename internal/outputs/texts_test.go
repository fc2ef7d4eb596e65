package outputs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// TestDerivedReadsTheFirstPlaceThatHoldsAText: a text kept in the local
// store is read there; else from the first tree that holds it; else it is
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
	kept, inTree, raw := put("kept locally\n"), put("kept on a branch\n"), put("only the bytes\n")
	_, err = textview.Save(dir, kept, textview.Result{Text: "the local text\n", Kind: textview.KindText})
	must(t, err)
	tree := fstest.MapFS{
		botrepo.TextPath(kept):   {Data: []byte("the tree's text, not read\n")},
		botrepo.TextPath(inTree): {Data: []byte("the tree's text\n")},
	}
	elsewhere := strings.Repeat("e", 64)
	d := Derived{Snapshots: dir, Trees: []fs.FS{fstest.MapFS{}, tree}}
	for _, c := range []struct {
		sum, want string
		ok        bool
	}{
		{kept, "the local text\n", true},
		{inTree, "the tree's text\n", true},
		{raw, "only the bytes\n", true},
		{elsewhere, "", false},
	} {
		got, ok := d.Text(ctx, c.sum, "text/plain; charset=utf-8")
		if got != c.want || ok != c.ok {
			t.Errorf("Text(%.8s) = %q, %v; want %q, %v", c.sum, got, ok, c.want, c.ok)
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
