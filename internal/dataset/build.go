package dataset

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
	"github.com/taxkernel/taxkernelbot/internal/wacz"
	"github.com/taxkernel/taxkernelbot/internal/warc"
)

// The files of a dataset, beside the WARC (Period.WarcName) and the texts
// under TextDir.
const (
	SumsName     = "SHA256SUMS"
	IndexName    = "index.json"
	CoverageName = "coverage.json"
	ReadmeName   = "README.md"
	TextDir      = textview.TextDir
)

// textFile is a text's name in a dataset: the text store's layout.
var textFile = regexp.MustCompile(`^` + TextDir + `/([A-Za-z0-9._-]+)/([0-9a-f]{2})/([0-9a-f]{64})\.(txt|reason|engine)$`)

// ErrEmpty says no document was held in the period: there is nothing to
// release.
var ErrEmpty = errors.New("no document held")

// ErrNotDataset says the output directory holds something other than an
// earlier build of the same dataset, which Build will not write over.
var ErrNotDataset = errors.New("not an earlier build of this dataset")

// Input is the record a dataset is built from. Nothing in it is written.
type Input struct {
	Index     *store.Index
	Store     *store.Store
	Snapshots string // the store's root, where the kept texts are (text/)
	LedgerDir string // <state>/ledgers: the checks; missing means no revisits
	Coverage  []byte // the coverage report to ship (reports/coverage.json)
	Identity  warc.Identity
	Period    Period
	// Limits bound the extraction of a text the record does not keep yet.
	Limits textview.Limits
	// FRBR gives where a source's document sits in FRBR's levels (nil when
	// its manifest names neither its work nor its edition), for FRBRName;
	// nil for none.
	FRBR func(id string, e store.Entry) *manifest.FRBR
	// URLs maps a source id to its URL in the manifests, which the change
	// documents name (as the feeds' do); a source not in it is named by
	// the final URL of its new bytes.
	URLs map[string]string
}

// File is one file of a built dataset.
type File struct {
	Path string // slash-separated, relative to the dataset's directory
	Size int64
	Sum  string
}

// Summary says what Build wrote.
type Summary struct {
	Files     []File // sorted by path, SHA256SUMS last
	Documents int    // index entries
	Sources   int
	warc.Counts
	Derived int // texts the record did not keep, derived for the dataset
	Changes int // change documents (ChangeDir)
}

// Build writes the dataset of in.Period into dir: a new or empty
// directory, or an earlier build of the same dataset, which it brings up
// to date (files are replaced atomically, SHA256SUMS last, and a file the
// new build does not have is removed).
func Build(ctx context.Context, in Input, dir string) (Summary, error) {
	var sum Summary
	ix := Served(in.Index, in.Period)
	if ix.Len() == 0 {
		return sum, fmt.Errorf("%w: no source held any bytes between %s (the record's index has no entry first seen by %s)", ErrEmpty, in.Period, in.Period.to())
	}
	if in.Coverage == nil {
		return sum, errors.New("dataset: no coverage report given")
	}
	old, err := checkDir(dir, in.Period)
	if err != nil {
		return sum, err
	}
	items, err := items(in, ix)
	if err != nil {
		return sum, err
	}
	w := &writer{dir: dir, sums: map[string]File{}}

	// The WARC.
	f, err := atomicfile.Create(filepath.Join(dir, in.Period.WarcName()), 0o644)
	if err != nil {
		return sum, fmt.Errorf("dataset: %w", err)
	}
	defer f.Abort()
	h := &hashCount{h: sha256.New()}
	selection := [][2]string{{"selection", "documents served from " + in.Period.from() + " to " + in.Period.to() + " (UTC), the version held when the period began included"}}
	// The warcinfo is dated at the period's end, not the build's, so that a
	// rebuild gives the same bytes.
	sum.Counts, err = warc.Export(ctx, io.MultiWriter(f, h), in.Period.WarcName(), in.Period.End().Add(-1), in.Identity, selection, items)
	if err != nil {
		return sum, fmt.Errorf("dataset: %w", err)
	}
	if err := f.Commit(); err != nil {
		return sum, fmt.Errorf("dataset: %w", err)
	}
	w.sums[in.Period.WarcName()] = File{in.Period.WarcName(), h.n, hex.EncodeToString(h.h.Sum(nil))}
	if err := w.wacz(in.Period, sum.Counts.Records); err != nil {
		return sum, err
	}

	data, err := ix.Marshal()
	if err != nil {
		return sum, err
	}
	if err := w.put(IndexName, data); err != nil {
		return sum, err
	}
	if err := w.put(CoverageName, in.Coverage); err != nil {
		return sum, err
	}
	frbr, err := frbrFile(ix, in.FRBR)
	if err != nil {
		return sum, err
	}
	if frbr != nil {
		if err := w.put(FRBRName, frbr); err != nil {
			return sum, err
		}
	}
	if sum.Derived, err = w.texts(ctx, in, ix); err != nil {
		return sum, err
	}
	if sum.Changes, err = w.changes(ctx, in); err != nil {
		return sum, err
	}
	if err := w.put(ReadmeName, readme(in.Period, ix, sum.Counts, frbr != nil)); err != nil {
		return sum, err
	}

	// SHA256SUMS last: until it is written, the directory does not verify.
	var list bytes.Buffer
	for _, p := range w.paths() {
		fmt.Fprintf(&list, "%s  %s\n", w.sums[p].Sum, p)
	}
	if err := w.put(SumsName, list.Bytes()); err != nil {
		return sum, err
	}
	var gone []string // listed by the earlier build, not written by this one
	for _, p := range old {
		if _, ok := w.sums[p]; !ok {
			gone = append(gone, p)
		}
	}
	if err := atomicfile.RemoveEach(dir, gone...); err != nil {
		return sum, fmt.Errorf("dataset: the earlier build's files: %w", err)
	}
	if _, err := atomicfile.SweepTree(dir); err != nil {
		return sum, fmt.Errorf("dataset: %w", err)
	}
	for _, p := range w.paths() {
		sum.Files = append(sum.Files, w.sums[p])
	}
	sum.Files = append(sum.Files, w.sums[SumsName])
	sum.Documents, sum.Sources = ix.Len(), len(ix.IDs())
	return sum, nil
}

// Served is the part of ix a dataset of p holds: for each source, the
// entries whose bytes it held at some time in p (the one held when p began,
// and each first seen or returned to in p), with no return date after p.
func Served(ix *store.Index, p Period) *store.Index {
	out := store.NewIndex()
	from, to := p.from(), p.to()
	for _, id := range ix.IDs() {
		keep := map[store.Sum]bool{}
		var held store.Sum
		for _, c := range ix.History(id) {
			switch {
			case c.Date < from:
				held = c.Entry.SHA256
			case c.Date <= to:
				keep[c.Entry.SHA256] = true
			}
		}
		if held != "" {
			keep[held] = true
		}
		for _, e := range ix.Entries(id) {
			if !keep[e.SHA256] {
				continue
			}
			e.Returned = slices.DeleteFunc(slices.Clone(e.Returned), func(d string) bool { return d > to })
			out.Add(id, e, "")
		}
	}
	return out
}

// items plans the WARC from the whole record, so that the checks of the
// period find the captures they confirm, and keeps the captures of the
// dataset's entries and the checks made in the period.
func items(in Input, ix *store.Index) ([]warc.Item, error) {
	all, err := warc.Plan(warc.Input{Index: in.Index, Store: in.Store, LedgerDir: in.LedgerDir})
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return slices.DeleteFunc(all, func(it warc.Item) bool {
		if it.Capture != nil {
			_, ok := ix.Lookup(it.Capture.Source, store.Sum(it.Capture.SHA256))
			return !ok
		}
		t := it.Revisit.Time
		return t.Before(in.Period.From) || !t.Before(in.Period.End())
	}), nil
}

type hashCount struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int64
}

func (c *hashCount) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

// writer writes a dataset's files and remembers their sums.
type writer struct {
	dir  string
	sums map[string]File
}

func (w *writer) put(name string, data []byte) error {
	if err := atomicfile.WriteFile(filepath.Join(w.dir, filepath.FromSlash(name)), data, 0o644); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	s := sha256.Sum256(data)
	w.sums[name] = File{name, int64(len(data)), hex.EncodeToString(s[:])}
	return nil
}

// paths are the files written so far but SHA256SUMS, sorted.
func (w *writer) paths() []string {
	var ps []string
	for p := range w.sums {
		if p != SumsName {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return ps
}

// wacz packs the dataset's WARC, whose records are at recs, as a WACZ
// package, which web archive tools (ReplayWeb.page, pywb) open and replay
// as they are.
func (w *writer) wacz(p Period, recs []warc.Located) error {
	f, err := atomicfile.Create(filepath.Join(w.dir, p.WaczName()), 0o644)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	defer f.Abort()
	h := &hashCount{h: sha256.New()}
	warcPath := filepath.Join(w.dir, p.WarcName())
	_, err = wacz.Write(io.MultiWriter(f, h), wacz.Package{
		Title:       "TaxKernelBot dataset " + p.Name(),
		Description: "The documents TaxKernelBot held for the sources of its manifests from " + p.from() + " to " + p.to() + " (UTC), as its dataset's WARC file " + p.WarcName() + ", indexed for replay",
		Created:     p.End().Add(-time.Second), // the warcinfo's date: no time of the build, so a rebuild gives the same bytes
		Software:    "TaxKernelBot",
		WARCs: []wacz.WARC{{
			Name:    p.WarcName(),
			Open:    func() (io.ReadCloser, error) { return os.Open(warcPath) },
			Records: recs,
		}},
	})
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	w.sums[p.WaczName()] = File{p.WaczName(), h.n, hex.EncodeToString(h.h.Sum(nil))}
	return nil
}

// putText writes t as the text of blob sum, in the store's layout.
func (w *writer) putText(sum store.Sum, t botrepo.Text) error {
	files := botrepo.StoreTextFiles(sum)
	if err := w.put(files[0], t.Text); err != nil {
		return err
	}
	if t.Reason != nil {
		if err := w.put(files[1], t.Reason); err != nil {
			return err
		}
	}
	return w.put(files[2], []byte(t.Engine+"\n"))
}

// texts copies the kept texts of each document (every extractor version
// the record has, with its .engine and .reason), and derives, for the
// dataset only, the text of a document the record keeps none of.
func (w *writer) texts(ctx context.Context, in Input, ix *store.Index) (int, error) {
	derived := 0
	seen := map[store.Sum]bool{}
	// A checkout's snapshots/ keeps each source's text of the bytes it
	// serves now, by source; the texts of earlier bytes are derived again.
	repo := botrepo.SnapshotsFS(in.Snapshots)
	var bySum map[store.Sum]string
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if seen[e.SHA256] {
				continue
			}
			seen[e.SHA256] = true
			s := string(e.SHA256)
			kept, err := filepath.Glob(filepath.Join(in.Snapshots, TextDir, "*", s[:2], s+".*"))
			if err != nil {
				return derived, err
			}
			slices.Sort(kept)
			whole := false
			for _, k := range kept {
				rel, err := filepath.Rel(in.Snapshots, k)
				if err != nil {
					return derived, err
				}
				rel = filepath.ToSlash(rel)
				if !textFile.MatchString(rel) {
					continue // a temp file of an interrupted write, say
				}
				data, err := os.ReadFile(k)
				if err != nil {
					return derived, fmt.Errorf("dataset: kept text: %w", err)
				}
				if err := w.put(rel, data); err != nil {
					return derived, err
				}
				if strings.HasSuffix(rel, ".engine") {
					if _, err := os.Stat(strings.TrimSuffix(k, ".engine") + ".txt"); err == nil {
						whole = true
					}
				}
			}
			if whole {
				continue
			}
			if bySum == nil {
				bySum = botrepo.TextsBySum(repo)
			}
			if tp, ok := bySum[e.SHA256]; ok {
				// The repository's text of a source that serves these
				// bytes now, laid out by hash as the dataset keeps texts.
				if id, ok := strings.CutSuffix(path.Base(tp), ".txt"); ok {
					if t, from, ok := botrepo.SourceTextIn(repo, id); ok && from == e.SHA256 {
						if err := w.putText(e.SHA256, t); err != nil {
							return derived, err
						}
						continue
					}
				}
			}
			res := extractHeld(ctx, in, e)
			if err := ctx.Err(); err != nil {
				return derived, err
			}
			p, err := textview.Save(w.dir, s, res)
			if err != nil {
				return derived, fmt.Errorf("dataset: %w", err)
			}
			for _, f := range []string{p, textview.ReasonPath(p), textview.EnginePath(p)} {
				data, err := os.ReadFile(f)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					return derived, err
				}
				rel, _ := filepath.Rel(w.dir, f)
				s := sha256.Sum256(data)
				w.sums[filepath.ToSlash(rel)] = File{filepath.ToSlash(rel), int64(len(data)), hex.EncodeToString(s[:])}
			}
			derived++
		}
	}
	return derived, nil
}

// checkDir makes sure dir can take the dataset of p, and returns the files
// an earlier build of it listed.
func checkDir(dir string, p Period) ([]string, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is a file; give -o a new or empty directory", ErrNotDataset, dir)
	}
	// What a build writes first is the WARC: a directory holding this
	// period's WARC, or a SHA256SUMS naming it, is an earlier build (maybe
	// one that stopped half way), provided it holds nothing else.
	list, err := os.ReadFile(filepath.Join(dir, SumsName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var old []string
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		if _, name, ok := strings.Cut(sc.Text(), "  "); ok {
			// The build removes what its earlier build listed and it
			// no longer writes: never a name that leads out.
			if !filepath.IsLocal(filepath.FromSlash(name)) {
				return nil, fmt.Errorf("%w: %s/%s lists %q, outside the directory; give -o a new or empty directory", ErrNotDataset, dir, SumsName, name)
			}
			old = append(old, name)
		}
	}
	_, werr := os.Stat(filepath.Join(dir, p.WarcName()))
	ours := slices.Contains(old, p.WarcName()) || werr == nil
	others := 0 // files that are not temp files
	err = filepath.WalkDir(dir, func(fp string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			others++
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	switch {
	case others == 0:
		return nil, nil
	case list == nil && !ours:
		return nil, fmt.Errorf("%w: %s is not empty and has no %s; give -o a new or empty directory", ErrNotDataset, dir, SumsName)
	case !ours:
		return nil, fmt.Errorf("%w: %s/%s does not list %s (another period's dataset?); give -o a new or empty directory", ErrNotDataset, dir, SumsName, p.WarcName())
	}
	err = filepath.WalkDir(dir, func(fp string, d fs.DirEntry, err error) error {
		if err != nil || fp == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, fp)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (rel == TextDir || strings.HasPrefix(rel, TextDir+"/") || inChanges(rel)):
			return nil
		case d.Type().IsRegular() && (belongs(rel, p) || strings.HasPrefix(path.Base(rel), atomicfile.TempPrefix)):
			return nil
		}
		return fmt.Errorf("%w: %s is not part of the dataset of %s; remove it or give -o another directory", ErrNotDataset, fp, p.Name())
	})
	return old, err
}

// belongs reports whether rel is a name the dataset of p has.
func belongs(rel string, p Period) bool {
	switch rel {
	case SumsName, IndexName, CoverageName, ReadmeName, FRBRName, p.WarcName(), p.WaczName():
		return true
	}
	return textFile.MatchString(rel) || changeName.MatchString(rel)
}

// extractHeld derives the text of e's held bytes, streamed from the store
// to the extracting process.
func extractHeld(ctx context.Context, in Input, e store.Entry) textview.Result {
	return textview.ExtractDoc(ctx, textview.Doc{
		Open:        func() (io.ReadCloser, error) { return in.Store.Open(e.SHA256) },
		Size:        e.Size,
		ContentType: e.ContentType,
	}, in.Limits)
}
