package gitstore

import (
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// brokenRefs is an on-disk storage whose references cannot be listed.
type brokenRefs struct{ *filesystem.Storage }

func (brokenRefs) IterReferences() (storer.ReferenceIter, error) { return brokenIter{}, nil }

type brokenIter struct{}

var errRefs = errors.New("refs unreadable")

func (brokenIter) Next() (*plumbing.Reference, error)            { return nil, errRefs }
func (brokenIter) ForEach(func(*plumbing.Reference) error) error { return errRefs }
func (brokenIter) Close()                                        {}

// TestCompactStopsWhenTheBranchesCannotBeListed: Compact keeps every pack
// when it cannot list the branches, rather than fold only what it could
// see and delete the rest.
func TestCompactStopsWhenTheBranchesCannotBeListed(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	for i := range MaxPacks + 2 {
		r, err := Open(dir, f.remote())
		if err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, r, i, appendLines(ledger, line(i)))
		r.Close()
	}
	r, err := Open(dir, f.remote())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before := r.Packs()
	if before <= MaxPacks {
		t.Fatalf("%d packs, want more than %d to compact", before, MaxPacks)
	}
	r.st = brokenRefs{r.st.(*filesystem.Storage)}
	if err := r.Compact(); !errors.Is(err, errRefs) {
		t.Fatalf("compact: %v, want the listing's error", err)
	}
	if n := r.Packs(); n != before {
		t.Errorf("%d packs after a failed compaction, want all %d kept", n, before)
	}
}
