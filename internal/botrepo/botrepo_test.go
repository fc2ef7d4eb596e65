package botrepo

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// opens is a tree that counts the files (not directories) it opens.
type opens struct {
	fs.FS
	files int
}

func (o *opens) Open(name string) (fs.File, error) {
	f, err := o.FS.Open(name)
	if err == nil {
		if fi, err := f.Stat(); err == nil && !fi.IsDir() {
			o.files++
		}
	}
	return f, err
}

// TestListerReadsListingsOnly: Lister tells files from directories and
// missing names by reading each directory's listing once, never a file:
// on a partial tree, a file opened is a file downloaded.
func TestListerReadsListingsOnly(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	tree := &opens{FS: fstest.MapFS{
		"snapshots/sha256/ab/" + sum: {Data: []byte("bytes")},
		TextPath(sum):                {Data: []byte("text")},
	}}
	has := Lister(tree)
	for name, want := range map[string]bool{
		"snapshots/sha256/ab/" + sum:              true,
		TextPath(sum):                             true,
		"snapshots/sha256/ab":                     false, // a directory
		"snapshots/sha256/cd/" + sum:              false,
		PendingPath("snapshots/sha256/ab/" + sum): false,
	} {
		if got := has(name); got != want {
			t.Errorf("Lister(%s) = %v, want %v", name, got, want)
		}
	}
	if tree.files != 0 {
		t.Errorf("Lister opened %d file(s); it reads listings only", tree.files)
	}
}

// TestIndexAndReportOfABranch: a tree without the file has an empty index
// and no report; a file that does not parse is an error naming the branch
// and the path, for the maintainer to fix.
func TestIndexAndReportOfABranch(t *testing.T) {
	empty := fstest.MapFS{}
	if ix, err := IndexAt(empty, IndexJSON, BaseBranch); err != nil || len(ix.IDs()) != 0 {
		t.Errorf("IndexAt of a tree without one = %v, %v; want empty", ix, err)
	}
	if rep, err := ReportIn(empty, BaseBranch); err != nil || rep != nil {
		t.Errorf("ReportIn of a tree without one = %v, %v; want nil, nil", rep, err)
	}
	broken := fstest.MapFS{IndexJSON: {Data: []byte("{")}, CoverageJSON: {Data: []byte("[")}}
	if _, err := IndexAt(broken, IndexJSON, BotBranch); err == nil || !strings.Contains(err.Error(), BotBranch+": "+IndexJSON) {
		t.Errorf("IndexAt of a broken index: %v; want an error naming %s: %s", err, BotBranch, IndexJSON)
	}
	if _, err := ReportIn(broken, BotBranch); err == nil || !strings.Contains(err.Error(), BotBranch+": "+CoverageJSON) {
		t.Errorf("ReportIn of a broken report: %v; want an error naming %s: %s", err, BotBranch, CoverageJSON)
	}
}
