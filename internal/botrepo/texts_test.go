package botrepo

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// TestATextPerSourceSaysItsBytes: main keeps a source's text at one path,
// snapshots/text/<version>/<id>.txt, whatever the bytes; its .engine names
// the bytes it is of, read back by SourceTextIn and TextsBySum; a text
// without a reason deletes the reason an earlier version had.
func TestATextPerSourceSaysItsBytes(t *testing.T) {
	a, b := store.Sum(strings.Repeat("a", 64)), store.Sum(strings.Repeat("b", 64))
	if got, want := TextPath("ca-ita"), "snapshots/text/"+textview.Version+"/ca-ita.txt"; got != want {
		t.Fatalf("TextPath = %s, want %s", got, want)
	}
	tree := fstest.MapFS{}
	write := func(t Text, id string, sum store.Sum) {
		for _, ch := range t.Changes(id, sum) {
			if ch.Data == nil {
				delete(tree, ch.Path)
				continue
			}
			tree[ch.Path] = &fstest.MapFile{Data: ch.Data}
		}
	}
	write(Text{Text: []byte("part of it"), Reason: []byte("cut at 20 MB\n"), Engine: "pdf: pdftotext 24.02.0"}, "ca-ita", a)
	got, from, ok := SourceTextIn(tree, "ca-ita")
	if !ok || from != a || string(got.Text) != "part of it" || string(got.Reason) != "cut at 20 MB\n" || got.Engine != "pdf: pdftotext 24.02.0" {
		t.Fatalf("SourceTextIn = %+v, %.8s, %v", got, from, ok)
	}
	// The next version: the same path, its reason gone.
	write(Text{Text: []byte("all of it"), Engine: "pdf: pdftotext 24.02.0"}, "ca-ita", b)
	// Another source serving the same bytes has a file of its own.
	write(Text{Text: []byte("all of it"), Engine: "pdf: pdftotext 24.02.0"}, "ca-ita-copy", b)
	got, from, ok = SourceTextIn(tree, "ca-ita")
	if !ok || from != b || string(got.Text) != "all of it" || got.Reason != nil {
		t.Errorf("after the next version: %+v, %.8s, %v; want b's text, no reason", got, from, ok)
	}
	if n := len(tree); n != 4 {
		t.Errorf("the tree holds %d files, want two texts and two engines: %v", n, tree)
	}
	if m := TextsBySum(tree); len(m) != 1 || m[b] == "" || m[a] != "" {
		t.Errorf("TextsBySum = %v, want b's only", m)
	}
	if _, _, ok := SourceTextIn(tree, "unknown"); ok {
		t.Error("SourceTextIn found a text for a source with none")
	}
}

// TestStaleTextDirs: the folders of texts named by their bytes' hash
// (main's older layout) and the folders of another text version are found
// from listings; a source's file of this version is not one.
func TestStaleTextDirs(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	tree := fstest.MapFS{
		"snapshots/text/v2/ab/" + sum + ".txt": {},
		"snapshots/text/v2/t-a.txt":            {},
		"snapshots/text/v3/ab/" + sum + ".txt": {},
		"snapshots/text/v3/cd/" + sum + ".txt": {},
		TextPath("ab"):                         {},
		"snapshots/text/v3/notes/x.txt":        {},
	}
	got := strings.Join(StaleTextDirs(tree), " ")
	if want := "snapshots/text/v2 snapshots/text/v3/ab snapshots/text/v3/cd"; got != want {
		t.Errorf("StaleTextDirs = %s, want %s", got, want)
	}
	if t2, ok := StoredTextIn(fstest.MapFS{
		"snapshots/text/" + textview.Version + "/ab/" + sum + ".txt":    {Data: []byte("old layout")},
		"snapshots/text/" + textview.Version + "/ab/" + sum + ".engine": {Data: []byte("text: utf-8\n")},
	}, store.Sum(sum)); !ok || string(t2.Text) != "old layout" || t2.Engine != "text: utf-8" {
		t.Errorf("StoredTextIn = %+v, %v", t2, ok)
	}
}
