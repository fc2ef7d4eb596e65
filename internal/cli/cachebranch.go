package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/taxkernel/taxkernelbot/internal/cycle"
)

// errNoCacheBranch says the local repository has no copy of the cache
// branch; what to do about it depends on the command.
var errNoCacheBranch = errors.New("no copy of the cache branch")

// cacheBranch opens the cache branch as the local repository that holds
// dir has it: ref if given (a branch, a remote branch such as
// origin/fetch-cache, a tag or a commit hash), else origin's
// remote-tracking branch, else a local branch of that name. Nothing is
// fetched and nothing written. It returns the branch's files (state.json,
// robots/, ledgers/ at the root) and what was read, e.g.
// "origin/fetch-cache at 1a2b3c4d5e6f".
func cacheBranch(dir, ref string) (fs.FS, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	repo, err := findRepo(abs)
	if err != nil {
		return nil, "", fmt.Errorf("reading the cache branch needs a git repository at or above %s: %w", dir, err)
	}
	st := filesystem.NewStorage(osfs.New(repo.commonDir), cache.NewObjectLRUDefault())
	refs := []string{ref}
	if ref == "" {
		refs = []string{"origin/" + cycle.CacheBranch, cycle.CacheBranch}
	}
	var hash plumbing.Hash
	var name string
	for _, r := range refs {
		if h, err := repo.resolve(st, r); err == nil {
			hash, name = h, r
			break
		}
	}
	if name == "" {
		return nil, "", fmt.Errorf("%w: the repository at %s has no %s; fetch it first (git fetch origin %s)",
			errNoCacheBranch, repo.root, joinOr(refs), cycle.CacheBranch)
	}
	commit, err := object.GetCommit(st, hash)
	if err != nil {
		return nil, "", fmt.Errorf("cache branch %s: %w", name, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, "", fmt.Errorf("cache branch %s: %w", name, err)
	}
	return treeFS{tree}, fmt.Sprintf("%s at %.12s", name, hash), nil
}

func joinOr(refs []string) string {
	if len(refs) == 2 {
		return refs[0] + " or " + refs[1]
	}
	return refs[0]
}

// treeFS is a git tree as a read-only fs.FS.
type treeFS struct{ t *object.Tree }

func (f treeFS) entry(op, name string) (*object.TreeEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &object.TreeEntry{Name: ".", Mode: filemode.Dir, Hash: f.t.Hash}, nil
	}
	e, err := f.t.FindEntry(name)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return e, nil
}

func (f treeFS) ReadFile(name string) ([]byte, error) {
	e, err := f.entry("read", name)
	if err != nil {
		return nil, err
	}
	if !e.Mode.IsFile() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	blob, err := f.t.File(name)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	defer r.Close()
	return io.ReadAll(r)
}

func (f treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := f.entry("readdir", name)
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	sub := f.t
	if name != "." {
		if sub, err = f.t.Tree(name); err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
		}
	}
	out := make([]fs.DirEntry, 0, len(sub.Entries))
	for _, e := range sub.Entries {
		info := treeInfo{name: e.Name, dir: e.Mode == filemode.Dir}
		if !info.dir {
			file, err := sub.TreeEntryFile(&e)
			if err != nil {
				return nil, &fs.PathError{Op: "readdir", Path: path.Join(name, e.Name), Err: err}
			}
			info.size = file.Size
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	return out, nil
}

func (f treeFS) Open(name string) (fs.File, error) {
	e, err := f.entry("open", name)
	if err != nil {
		return nil, err
	}
	if e.Mode == filemode.Dir {
		ents, err := f.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &treeDir{info: treeInfo{name: path.Base(name), dir: true}, ents: ents}, nil
	}
	data, err := f.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &treeFile{Reader: bytes.NewReader(data), info: treeInfo{name: path.Base(name), size: int64(len(data))}}, nil
}

type treeInfo struct {
	name string
	size int64
	dir  bool
}

func (i treeInfo) Name() string       { return i.name }
func (i treeInfo) Size() int64        { return i.size }
func (i treeInfo) ModTime() time.Time { return time.Time{} }
func (i treeInfo) IsDir() bool        { return i.dir }
func (i treeInfo) Sys() any           { return nil }
func (i treeInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

type treeFile struct {
	*bytes.Reader
	info treeInfo
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *treeFile) Close() error               { return nil }

type treeDir struct {
	info treeInfo
	ents []fs.DirEntry
}

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *treeDir) Close() error               { return nil }
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}

func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		ents := d.ents
		d.ents = nil
		return ents, nil
	}
	if len(d.ents) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.ents))
	ents := d.ents[:n]
	d.ents = d.ents[n:]
	return ents, nil
}
