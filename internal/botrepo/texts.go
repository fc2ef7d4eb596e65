package botrepo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// Where the derived texts are.
//
// main keeps, per source, the text of the version the source serves now
// (its index's current entry, store.Index.Current), at one path per
// source: snapshots/text/<version>/<source id>.txt, with the .reason and
// .engine beside it. Each new version rewrites that file, so a source's
// history of texts is git's history of one file (`git log -p` on it), the
// bot's pull request shows a changed source's text as a diff of one file,
// and git packs the versions as deltas of each other: its packer pairs
// objects by the end of their path, which texts named by their bytes'
// hash never share. The tree holds only what the sources serve now; the
// history holds the rest. Two sources that serve the same bytes have a
// file each, which git stores once.
//
// The runner's own store and the cache branch's pending/ keep texts by
// their bytes' hash (textview.TextPath): there a text waits for main
// whichever source it is the text of.

// TextPath is where main keeps the text of the version source id serves
// now: snapshots/text/<version>/<id>.txt.
func TextPath(sourceID string) string {
	return "snapshots/" + textview.TextDir + "/" + textview.Version + "/" + sourceID + ".txt"
}

// TextsDir is the folder of main's texts, of this text version.
const TextsDir = "snapshots/" + textview.TextDir + "/" + textview.Version

// fromLine begins the line of a main .engine file that names the bytes the
// text was derived from.
const fromLine = "sha256 "

// Text is a derived text's files: the text, the reason it is missing or
// partial (nil for none), and the line naming its engine.
type Text struct {
	Text, Reason []byte
	Engine       string // "<kind>: <engine>", as textview.Save writes it
}

// StoreTextFiles are the files of blob sum's derived text in a store's
// layout, relative to its root (text/<version>/<2 hex>/<sum>.txt, .reason,
// .engine): the runner's store, and pending/ on the cache branch.
func StoreTextFiles(sum store.Sum) []string {
	p, err := textview.TextPath(".", string(sum))
	if err != nil {
		return nil
	}
	return TextFiles(filepath.ToSlash(p))
}

// PendingTextFiles are where blob sum's derived text waits on the cache
// branch: pending/text/<version>/<2 hex>/<sum>.txt and its sidecars.
func PendingTextFiles(sum store.Sum) []string {
	fs := StoreTextFiles(sum)
	for i, f := range fs {
		fs[i] = PendingDir + "/" + f
	}
	return fs
}

// StoreTexts are the files of the text derived from blob sum that the
// store at root holds (the .txt, the .reason when there is one, the
// .engine), keyed by their path relative to root.
func StoreTexts(root string, sum store.Sum) map[string][]byte {
	out := map[string][]byte{}
	for _, f := range StoreTextFiles(sum) {
		if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f))); err == nil {
			out[f] = data
		}
	}
	return out
}

// LocalText is blob sum's text as the runner's store at snapshots keeps
// it; false when it keeps none (or not whole: no .txt or no .engine).
func LocalText(snapshots string, sum store.Sum) (Text, bool) {
	return textOf(StoreTexts(snapshots, sum), StoreTextFiles(sum))
}

// PendingText is blob sum's text waiting on the cache branch's tree
// cache; false when none does.
func PendingText(cache fs.FS, sum store.Sum) (Text, bool) {
	return textUnder(cache, PendingTextFiles(sum))
}

// CacheTextFiles are where the cache branch keeps blob sum's text once it
// has left pending/: blobs/text/<version>/<2 hex>/<sum>.txt and its
// sidecars.
func CacheTextFiles(sum store.Sum) []string {
	fs := StoreTextFiles(sum)
	for i, f := range fs {
		fs[i] = CacheBlobsDir + "/" + f
	}
	return fs
}

// CachedText is blob sum's text as the cache branch's tree cache keeps it
// once it left pending/ (an older version's, which main no longer has in
// its tree); false when it keeps none.
func CachedText(cache fs.FS, sum store.Sum) (Text, bool) {
	return textUnder(cache, CacheTextFiles(sum))
}

func textUnder(tree fs.FS, files []string) (Text, bool) {
	if tree == nil {
		return Text{}, false
	}
	return textOf(readFiles(tree, files), files)
}

// readFiles reads those of files tree holds, keyed by name.
func readFiles(tree fs.FS, files []string) map[string][]byte {
	got := map[string][]byte{}
	for _, f := range files {
		if data, err := fs.ReadFile(tree, f); err == nil {
			got[f] = data
		}
	}
	return got
}

// StoredTextIn is blob sum's text in a tree that keeps texts by hash under
// snapshots/ (main before texts were kept per source); false when it
// keeps none.
func StoredTextIn(tree fs.FS, sum store.Sum) (Text, bool) {
	files := StoreTextFiles(sum)
	for i, f := range files {
		files[i] = "snapshots/" + f
	}
	return textUnder(tree, files)
}

func textOf(got map[string][]byte, files []string) (Text, bool) {
	if len(files) != 3 {
		return Text{}, false
	}
	text, ok := got[files[0]]
	engine, eok := got[files[2]]
	if !ok || !eok {
		return Text{}, false
	}
	first, _, _ := strings.Cut(string(engine), "\n")
	return Text{Text: text, Reason: got[files[1]], Engine: strings.TrimSpace(first)}, true
}

// Changes are the changes that make main keep t as source id's text,
// derived from blob sum: the .txt, the .reason (deleted when t has none:
// the previous version's must not stay), and the .engine, which names
// sum on its second line so that a reader tells which bytes the text is
// of (SourceTextIn).
func (t Text) Changes(sourceID string, sum store.Sum) []gitstore.Change {
	files := TextFiles(TextPath(sourceID))
	text := t.Text
	if text == nil {
		text = []byte{} // an empty text is a text: nil would delete the file
	}
	return []gitstore.Change{
		{Path: files[0], Data: text},
		{Path: files[1], Data: t.Reason},
		{Path: files[2], Data: []byte(t.Engine + "\n" + fromLine + string(sum) + "\n")},
	}
}

// NoText are the changes that say, in main, that source id's text of
// blob sum (the bytes it serves now) is held nowhere yet: the text of
// other bytes is deleted, and a .reason says why there is none, beside
// an .engine naming sum. The bot writes the text once a runner that
// holds the bytes derives it.
func NoText(sourceID string, sum store.Sum) []gitstore.Change {
	files := TextFiles(TextPath(sourceID))
	return []gitstore.Change{
		{Path: files[0]},
		{Path: files[1], Data: []byte(NoTextReason + "\n")},
		{Path: files[2], Data: []byte("none\n" + fromLine + string(sum) + "\n")},
	}
}

// NoTextReason is the reason main keeps for a source whose text of the
// bytes it serves now was held nowhere when the bot wrote its record.
const NoTextReason = "not derived yet: the bytes' text was held nowhere when this was written; the bot's next pull request brings it once a runner that holds them derives it"

// SourceTextFrom reads the hash of the bytes source id's text in tree was
// derived from, from its .engine ("" when the tree keeps no text for id,
// or one that does not say).
func SourceTextFrom(tree fs.FS, sourceID string) store.Sum {
	data, err := fs.ReadFile(tree, textview.EnginePath(TextPath(sourceID)))
	if err != nil {
		return ""
	}
	return EngineFrom(data)
}

// EngineFrom is the hash of the bytes a main .engine file says its text
// is of ("" when it does not say).
func EngineFrom(engine []byte) store.Sum {
	sc := bufio.NewScanner(bytes.NewReader(engine))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), fromLine); ok && store.Sum(rest).Valid() {
			return store.Sum(rest)
		}
	}
	return ""
}

// SourceTextIn is source id's text in tree and the hash of the bytes it
// was derived from; false when the tree keeps none for id or does not say
// which bytes it is of.
func SourceTextIn(tree fs.FS, sourceID string) (Text, store.Sum, bool) {
	files := TextFiles(TextPath(sourceID))
	got := readFiles(tree, files)
	t, ok := textOf(got, files)
	if !ok {
		return Text{}, "", false
	}
	sum := EngineFrom(got[files[2]])
	return t, sum, sum != ""
}

// TextsBySum maps, for a tree holding main's texts, each hash a source's
// text was derived from to that text's path: the reader of a version's
// text finds it in main when it is what a source serves now. The .engine
// files are read (a partial tree fetches them first).
func TextsBySum(tree fs.FS) map[store.Sum]string {
	out := map[store.Sum]string{}
	ents, err := fs.ReadDir(tree, TextsDir)
	if err != nil {
		return out
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".engine")
		if !ok || e.IsDir() {
			continue
		}
		if sum := SourceTextFrom(tree, id); sum != "" {
			if _, seen := out[sum]; !seen {
				out[sum] = TextPath(id)
			}
		}
	}
	return out
}

// StaleTextDirs are the folders of main's texts that the bot's next pull
// request deletes, found from listings alone: those that keep texts by
// their bytes' hash under snapshots/text/<version>/<2 hex>/ (main before
// its texts were kept per source), and every folder of another text
// version, whose texts another extractor derived. That pull request
// writes each source's text of this version at its own path.
func StaleTextDirs(tree fs.FS) []string {
	root := "snapshots/" + textview.TextDir
	versions, err := fs.ReadDir(tree, root)
	if err != nil {
		return nil
	}
	var out []string
	for _, v := range versions {
		if !v.IsDir() {
			continue
		}
		if v.Name() != textview.Version {
			out = append(out, path.Join(root, v.Name()))
			continue
		}
		ents, _ := fs.ReadDir(tree, path.Join(root, v.Name()))
		for _, e := range ents {
			if e.IsDir() && isHexByte(e.Name()) {
				out = append(out, path.Join(root, v.Name(), e.Name()))
			}
		}
	}
	return out
}

func isHexByte(name string) bool {
	return len(name) == 2 && strings.Trim(name, "0123456789abcdef") == ""
}

// fetcher is a tree that holds only what it was asked to fetch.
type fetcher interface {
	Fetch(ctx context.Context, paths ...string) error
}

// Fetch fetches paths into tree when it is partial (a gitstore.Tree);
// other trees hold everything already.
func Fetch(ctx context.Context, tree fs.FS, paths ...string) error {
	f, ok := tree.(fetcher)
	if !ok || len(paths) == 0 {
		return nil
	}
	if err := f.Fetch(ctx, paths...); err != nil {
		return fmt.Errorf("fetching %d text file(s): %w", len(paths), err)
	}
	return nil
}

// SnapshotsFS is the store or checkout at dir (a repository's snapshots/
// folder) as a tree of the repository: its files are named
// snapshots/<path>, as TextPath names them.
func SnapshotsFS(dir string) fs.FS { return snapshotsFS{os.DirFS(dir)} }

type snapshotsFS struct{ dir fs.FS }

func (s snapshotsFS) Open(name string) (fs.File, error) {
	rest, ok := strings.CutPrefix(name, "snapshots/")
	if name == "snapshots" {
		rest, ok = ".", true
	}
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return s.dir.Open(rest)
}

// TextFiles are the files of the derived text at a text path: the .txt,
// the .reason when the text is missing or partial, and the .engine that
// says what derived it (so that a runner that gets them need not derive
// them again).
func TextFiles(textPath string) []string {
	return []string{textPath, textview.ReasonPath(textPath), textview.EnginePath(textPath)}
}
