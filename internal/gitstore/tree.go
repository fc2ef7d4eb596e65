package gitstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Tree is the read-only file tree of one commit, loaded lazily: a file read
// decodes the directories on its path and its own blob, nothing else. It is an
// io/fs.FS (also fs.ReadFileFS, fs.ReadDirFS and fs.StatFS): fs.ReadFile,
// fs.ReadDir, fs.WalkDir and fs.Glob work on it, and a missing file is an
// fs.ErrNotExist. Directories list their files and subdirectories (symbolic
// links show as such, submodules not at all). Safe for concurrent use.
type Tree struct {
	r    *Repo
	root plumbing.Hash // zero: the empty tree
	// ctx is the context of the Read that made the tree: a partial Repo
	// downloads a file's content when it is first read, under it.
	ctx context.Context

	mu   sync.Mutex
	dirs map[plumbing.Hash]*dir
}

type dir struct {
	entries []object.TreeEntry // in git's order
	byName  map[string]int
}

var (
	_ fs.ReadFileFS = (*Tree)(nil)
	_ fs.ReadDirFS  = (*Tree)(nil)
	_ fs.StatFS     = (*Tree)(nil)
)

func (r *Repo) newTree(root plumbing.Hash) *Tree {
	return &Tree{r: r, root: root, dirs: map[plumbing.Hash]*dir{}}
}

// dir decodes (once) the tree object h.
func (t *Tree) dir(h plumbing.Hash) (*dir, error) {
	if h.IsZero() || h == emptyTree {
		return &dir{}, nil
	}
	t.mu.Lock()
	d, ok := t.dirs[h]
	t.mu.Unlock()
	if ok {
		return d, nil
	}
	o, err := t.r.object(h, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	var tr object.Tree
	if err := tr.Decode(o); err != nil {
		return nil, err
	}
	d = &dir{entries: tr.Entries, byName: make(map[string]int, len(tr.Entries))}
	for i, e := range tr.Entries {
		d.byName[e.Name] = i
	}
	t.mu.Lock()
	t.dirs[h] = d
	t.mu.Unlock()
	return d, nil
}

// lookup finds the entry at name (a valid fs path); "." is the root.
func (t *Tree) lookup(op, name string) (object.TreeEntry, error) {
	if !fs.ValidPath(name) {
		return object.TreeEntry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	e := object.TreeEntry{Name: ".", Mode: filemode.Dir, Hash: t.root}
	if name == "." {
		return e, nil
	}
	for part := range strings.SplitSeq(name, "/") {
		if e.Mode != filemode.Dir {
			return object.TreeEntry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		d, err := t.dir(e.Hash)
		if err != nil {
			return object.TreeEntry{}, &fs.PathError{Op: op, Path: name, Err: err}
		}
		i, ok := d.byName[part]
		if !ok || d.entries[i].Mode == filemode.Submodule {
			return object.TreeEntry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		e = d.entries[i]
	}
	return e, nil
}

func (t *Tree) blob(op, name string, h plumbing.Hash) ([]byte, error) {
	if t.r.partial && !t.r.has(h) {
		ctx := t.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		if err := t.r.fetchObjects(ctx, []plumbing.Hash{h}); err != nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: err}
		}
	}
	data, err := t.r.objectData(h, plumbing.BlobObject)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return data, nil
}

var errIsDir = errors.New("is a directory")

// ReadFile returns the content of the file at name.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	e, err := t.lookup("readfile", name)
	if err != nil {
		return nil, err
	}
	if e.Mode == filemode.Dir {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errIsDir}
	}
	return t.blob("readfile", name, e.Hash)
}

// ReadDir lists the directory at name, sorted by file name.
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := t.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	d, err := t.dir(e.Hash)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	list := make([]fs.DirEntry, 0, len(d.entries))
	for _, c := range d.entries {
		if c.Mode == filemode.Submodule || !fs.ValidPath(c.Name) || strings.Contains(c.Name, "/") || c.Name == "." {
			continue
		}
		list = append(list, dirEntry{t: t, e: c})
	}
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return list, nil
}

// Stat describes the file or directory at name.
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	e, err := t.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return t.info("stat", name, e)
}

func (t *Tree) info(op, name string, e object.TreeEntry) (fs.FileInfo, error) {
	fi := fileInfo{name: path.Base(name), mode: fsMode(e.Mode)}
	if e.Mode != filemode.Dir {
		t.r.mu.Lock()
		size, err := t.r.st.EncodedObjectSize(e.Hash)
		t.r.mu.Unlock()
		if err != nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: err}
		}
		fi.size = size
	}
	return fi, nil
}

// Open opens the file or directory at name.
func (t *Tree) Open(name string) (fs.File, error) {
	e, err := t.lookup("open", name)
	if err != nil {
		return nil, err
	}
	fi, err := t.info("open", name, e)
	if err != nil {
		return nil, err
	}
	if e.Mode == filemode.Dir {
		list, err := t.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &openDir{fi: fi, name: name, list: list}, nil
	}
	data, err := t.blob("open", name, e.Hash)
	if err != nil {
		return nil, err
	}
	return &openFile{fi: fi, Reader: bytes.NewReader(data)}, nil
}

func fsMode(m filemode.FileMode) fs.FileMode {
	switch m {
	case filemode.Dir:
		return fs.ModeDir | 0o755
	case filemode.Executable:
		return 0o755
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777
	}
	return 0o644
}

type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi fileInfo) ModTime() time.Time { return time.Time{} }
func (fi fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }

type dirEntry struct {
	t *Tree
	e object.TreeEntry
}

func (d dirEntry) Name() string               { return d.e.Name }
func (d dirEntry) IsDir() bool                { return d.e.Mode == filemode.Dir }
func (d dirEntry) Type() fs.FileMode          { return fsMode(d.e.Mode).Type() }
func (d dirEntry) Info() (fs.FileInfo, error) { return d.t.info("stat", d.e.Name, d.e) }
func (d dirEntry) String() string             { return fs.FormatDirEntry(d) }

type openFile struct {
	fi fs.FileInfo
	*bytes.Reader
}

func (f *openFile) Stat() (fs.FileInfo, error) { return f.fi, nil }
func (f *openFile) Close() error               { return nil }

type openDir struct {
	fi   fs.FileInfo
	name string
	list []fs.DirEntry
	off  int
}

func (d *openDir) Stat() (fs.FileInfo, error) { return d.fi, nil }
func (d *openDir) Close() error               { return nil }
func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errIsDir}
}

func (d *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.list[d.off:]
	if n <= 0 {
		d.off = len(d.list)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return rest, nil
}
