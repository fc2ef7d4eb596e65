package outputs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// Texts gives the text derived from held blob sum (served as
// contentType); false when it cannot be had, and the feed entry then says
// so instead of showing a diff.
type Texts interface {
	Text(ctx context.Context, sum, contentType string) (string, bool)
}

// OpenBlob opens held blob sum for reading and says how long it is. The
// blob is read as a stream: a document of max_body (or more) is never
// held whole to be compared.
type OpenBlob func(sum string) (io.ReadCloser, int64, error)

// LocalBlobs opens the blobs of the store in snapshots, each checked
// against its hash as it is read.
func LocalBlobs(snapshots string) OpenBlob {
	local := store.ReadOnly(snapshots)
	return func(sum string) (io.ReadCloser, int64, error) {
		rc, err := local.Open(store.Sum(sum))
		if err != nil {
			return nil, 0, err
		}
		fi, err := os.Stat(local.Path(store.Sum(sum)))
		if err != nil {
			rc.Close()
			return nil, 0, err
		}
		return rc, fi.Size(), nil
	}
}

// Blobs opens a blob from the local store in snapshots ("" for none),
// each checked against its hash as it is read, else from the first of
// trees (repository trees holding snapshots/) that has it. A tree that can
// fetch what it lacks (a partial clone: gitstore.Tree) fetches the blob
// first.
func Blobs(ctx context.Context, snapshots string, trees ...fs.FS) OpenBlob {
	local := LocalBlobs(snapshots)
	return func(sum string) (io.ReadCloser, int64, error) {
		if snapshots != "" {
			rc, size, err := local(sum)
			if !errors.Is(err, store.ErrNotFound) {
				return rc, size, err
			}
		}
		p := "snapshots/" + store.BlobPath(sum)
		for _, t := range trees {
			if f, ok := t.(fetcher); ok && f.Fetch(ctx, p) != nil {
				continue
			}
			f, err := t.Open(p)
			if err != nil {
				continue
			}
			fi, err := f.Stat()
			if err != nil {
				f.Close()
				continue
			}
			return f, fi.Size(), nil
		}
		return nil, 0, fmt.Errorf("blob %.12s: neither this runner nor a branch holds it: %w", sum, fs.ErrNotExist)
	}
}

// fetcher is a tree that holds only what it was asked to fetch.
type fetcher interface {
	Fetch(ctx context.Context, paths ...string) error
}

// BlobDoc is the document of blob sum, opened through open each time it
// is read (a comparison through a view with drop reads the new one
// twice). The blob is opened once here so that a missing one is told now.
func BlobDoc(open OpenBlob, sum, contentType string) (textview.Doc, error) {
	rc, size, err := open(sum)
	if err != nil {
		return textview.Doc{}, err
	}
	rc.Close()
	return textview.Doc{
		Open: func() (io.ReadCloser, error) {
			rc, _, err := open(sum)
			return rc, err
		},
		Size:        size,
		ContentType: contentType,
	}, nil
}

// Derived reads a blob's derived text from the first place that holds
// it — the local store, the cache branch's pending/ and blobs/, then each
// tree's file of a source whose current bytes it is of — and derives it from the
// bytes when none does (a first copy's text is kept only once it is
// compared; an older version's text is in the repository's history, not
// its tree), as the next comparison would.
type Derived struct {
	// Snapshots is the local store's directory, "" for none. It is read
	// as a store (texts by hash) and as a checkout's snapshots/ (texts
	// by source).
	Snapshots string
	// Pending is the cache branch's tree, whose pending/ keeps texts by
	// hash until main has them, and whose blobs/ keeps them after (with
	// the bytes in stores); nil for none.
	Pending fs.FS
	// Trees are repository trees (main's, the bot branch's) holding texts
	// at botrepo.TextPath; the caller fetches what a partial tree should
	// hold beforehand.
	Trees []fs.FS
	// Blob opens the bytes to derive a text from; nil: the local store's,
	// else the trees'.
	Blob OpenBlob

	bySum *textsBySum // nil: each tree's texts are looked up at each read
}

// textsBySum is, per tree that keeps texts by source, which text is of
// which bytes (botrepo.TextsBySum), read once.
type textsBySum struct {
	mu    sync.Mutex
	trees map[int]map[store.Sum]string
}

// Memoized is d reading each tree's list of which text is of which bytes
// once, for the many texts of one rendering; the trees must not change
// meanwhile.
func (d Derived) Memoized() Derived {
	d.bySum = &textsBySum{trees: map[int]map[store.Sum]string{}}
	return d
}

// textIn is the path of sum's text in the i-th of the source trees t.
func (d Derived) textIn(i int, t fs.FS, sum store.Sum) (string, bool) {
	if d.bySum == nil {
		p, ok := botrepo.TextsBySum(t)[sum]
		return p, ok
	}
	d.bySum.mu.Lock()
	defer d.bySum.mu.Unlock()
	m, ok := d.bySum.trees[i]
	if !ok {
		m = botrepo.TextsBySum(t)
		d.bySum.trees[i] = m
	}
	p, ok := m[sum]
	return p, ok
}

// heldBytes is a Texts that opens the held bytes too, whose links tell
// the next editions (Editions).
type heldBytes interface {
	Held(ctx context.Context) OpenBlob
}

// Held opens the held bytes the texts are derived from: Blob, else the
// local store's, else the trees'.
func (d Derived) Held(ctx context.Context) OpenBlob {
	if d.Blob != nil {
		return d.Blob
	}
	return Blobs(ctx, d.Snapshots, d.Trees...)
}

// Text implements Texts.
func (d Derived) Text(ctx context.Context, sum, contentType string) (string, bool) {
	if d.Snapshots != "" {
		if p, err := textview.TextPath(d.Snapshots, sum); err == nil {
			if text, err := textview.ReadText(p); err == nil {
				return text, true
			}
		}
	}
	if t, ok := botrepo.PendingText(d.Pending, store.Sum(sum)); ok {
		return string(t.Text), true
	}
	if t, ok := botrepo.CachedText(d.Pending, store.Sum(sum)); ok {
		return string(t.Text), true
	}
	for i, t := range d.sourceTrees() {
		if p, ok := d.textIn(i, t, store.Sum(sum)); ok {
			if text, err := readText(t, p); err == nil {
				return text, true
			}
		}
	}
	doc, err := BlobDoc(d.Held(ctx), sum, contentType)
	if err != nil {
		return "", false
	}
	res := textview.ExtractDoc(ctx, doc, textview.Limits{})
	return res.Text, res.OK()
}

// sourceTrees are the trees that keep texts by source: the trees, and
// the local directory read as a checkout's snapshots/.
func (d Derived) sourceTrees() []fs.FS {
	if d.Snapshots == "" {
		return d.Trees
	}
	return append(slices.Clip(d.Trees), botrepo.SnapshotsFS(d.Snapshots))
}

// readText reads a text file of fsys into a string, copying it once.
func readText(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return textview.ReadAllText(f)
}
