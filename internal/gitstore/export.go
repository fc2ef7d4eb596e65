package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
)

// Export writes every regular file under the directory prefix of fsys (a Tree,
// usually) into dir, at its path relative to prefix: Export(tree, "state",
// ".taxkernelbot/state") pulls the state directory of the cache branch before
// a run. prefix "" or "." exports everything. Each file is written to a
// temporary file and renamed into place, so it is whole or absent; files of
// dir that fsys does not have are left alone. When prefix does not exist the
// error wraps fs.ErrNotExist and nothing is written.
func Export(fsys fs.FS, prefix, dir string) error {
	if prefix == "" {
		prefix = "."
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if !fs.ValidPath(prefix) {
		return fmt.Errorf("gitstore: export: invalid prefix %q", prefix)
	}
	fi, err := fs.Stat(fsys, prefix)
	if err != nil {
		return fmt.Errorf("gitstore: export %q: %w", prefix, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("gitstore: export %q: not a directory", prefix)
	}
	return fs.WalkDir(fsys, prefix, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("gitstore: export: %w", err)
		}
		rel := p // p is prefix joined with the names below it
		if prefix != "." {
			if rel = strings.TrimPrefix(strings.TrimPrefix(p, prefix), "/"); rel == "" {
				rel = "."
			}
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if rel != "." && !filepath.IsLocal(filepath.FromSlash(rel)) {
			return fmt.Errorf("gitstore: export: refusing path %q outside %s", p, dir)
		}
		switch {
		case d.IsDir():
			if err := atomicfile.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("gitstore: export: %w", err)
			}
		case d.Type().IsRegular():
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return fmt.Errorf("gitstore: export: %w", err)
			}
			if err := writeFile(target, data); err != nil {
				return fmt.Errorf("gitstore: export %s: %w", p, err)
			}
		}
		return nil
	})
}

// writeFile replaces name with data through a temporary file and a rename.
func writeFile(name string, data []byte) (err error) {
	if err := atomicfile.Check(name); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), name); err != nil {
		return errors.Join(err, os.Remove(f.Name()))
	}
	return nil
}
