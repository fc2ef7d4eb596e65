package outputs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
)

// ownedDirs are the folders under the reports directory whose every file
// is an output: a file there that is no longer rendered (the feed of a
// source since removed) is left over, but for a change document (Kept).
var ownedDirs = []string{"feeds", "changes", report.SplitDir, public.SiteDir}

// Kept says whether name, a file the outputs no longer render, is one
// the repository keeps all the same: a change document that no feed
// links any more (the feeds are windows on the newest changes). The
// record keeps every change document it wrote, which references link
// (refs --archive-url); the site publishes only those rendered, within
// GitHub Pages' 1 GB.
func Kept(name string) bool { return changedoc.IsPath(name) }

// Compare returns the names of the files whose bytes dir does not hold,
// and of the files in the folders the outputs own that files does not
// name (left over) and the repository does not keep (Kept).
func Compare(dir string, files []public.File) (differ, stale []string, err error) {
	rendered := make(map[string]bool, len(files))
	for _, f := range files {
		rendered[f.Name] = true
		held, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		if err != nil || !bytes.Equal(held, f.Data) {
			differ = append(differ, f.Name)
		}
	}
	for _, sub := range ownedDirs {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			if name := filepath.ToSlash(rel); !rendered[name] && !strings.HasPrefix(d.Name(), ".") && !Kept(name) {
				stale = append(stale, name)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	slices.Sort(stale)
	return differ, stale, nil
}
