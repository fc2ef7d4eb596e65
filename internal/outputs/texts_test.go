package outputs

import (
	"context"
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
