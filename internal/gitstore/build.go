package gitstore

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// emptyTree is the hash of the tree with no entries.
var emptyTree = plumbing.ComputeHash(plumbing.TreeObject, nil)

// packWindow is the delta window of the packs Update sends. Ledger files of
// different hosts gain little from deltas against each other, and a previous
// version of a file is never in the same pack.
const packWindow = 0

// overlay holds the objects one update attempt creates, apart from the local
// store: they join it only once the push has succeeded, and they are all the
// push has to send, since everything else is reachable from the parent.
type overlay struct {
	st     *memory.Storage
	hashes []plumbing.Hash
}

func newOverlay() *overlay { return &overlay{st: memory.NewStorage()} }

type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func (ov *overlay) put(o encoder) (plumbing.Hash, error) {
	m := &plumbing.MemoryObject{}
	if err := o.Encode(m); err != nil {
		return plumbing.ZeroHash, err
	}
	return ov.add(m)
}

func (ov *overlay) add(m *plumbing.MemoryObject) (plumbing.Hash, error) {
	h := m.Hash()
	if ov.st.HasEncodedObject(h) == nil {
		return h, nil
	}
	if _, err := ov.st.SetEncodedObject(m); err != nil {
		return plumbing.ZeroHash, err
	}
	ov.hashes = append(ov.hashes, h)
	return h, nil
}

func (ov *overlay) blob(data []byte) (plumbing.Hash, error) {
	m := &plumbing.MemoryObject{}
	m.SetType(plumbing.BlobObject)
	m.Write(data)
	return ov.add(m)
}

// pack encodes every object of the overlay as a packfile.
func (ov *overlay) pack() ([]byte, error) {
	var buf bytes.Buffer
	if _, err := packfile.NewEncoder(&buf, ov.st, false).Encode(ov.hashes, packWindow); err != nil {
		return nil, fmt.Errorf("encoding pack: %w", err)
	}
	return buf.Bytes(), nil
}

// node is a directory of the pending changes: its children are files to set
// (data != nil), paths to delete (del) or directories with changes below.
type node struct {
	kids   map[string]*node // non-nil for a directory
	data   []byte
	del    bool
	remote bool // the remote holds data already: named, not sent
}

func validPath(p string) error {
	if p == "" || p == "." || !fs.ValidPath(p) || strings.ContainsRune(p, 0) {
		return fmt.Errorf("invalid path %q: want a clean, relative, slash-separated file path", p)
	}
	for part := range strings.SplitSeq(p, "/") {
		if strings.EqualFold(part, ".git") {
			return fmt.Errorf("invalid path %q: git refuses a .git component", p)
		}
	}
	return nil
}

func plan(changes []Change) (*node, error) {
	root := &node{kids: map[string]*node{}}
	for _, c := range changes {
		if err := validPath(c.Path); err != nil {
			return nil, err
		}
		if len(c.Data) > MaxFileSize {
			return nil, fmt.Errorf("%s is %d bytes: %w (GitHub refuses a file of 100 MB or more); nothing was pushed", c.Path, len(c.Data), ErrTooLarge)
		}
		parts := strings.Split(c.Path, "/")
		n := root
		for i, part := range parts[:len(parts)-1] {
			k, ok := n.kids[part]
			if !ok {
				k = &node{kids: map[string]*node{}}
				n.kids[part] = k
			} else if k.kids == nil {
				return nil, fmt.Errorf("conflicting changes: %q is a file, and %q would be under it", strings.Join(parts[:i+1], "/"), c.Path)
			}
			n = k
		}
		leaf := parts[len(parts)-1]
		if k, ok := n.kids[leaf]; ok {
			if k.kids != nil {
				return nil, fmt.Errorf("conflicting changes: %q is a directory of other changes", c.Path)
			}
			return nil, fmt.Errorf("conflicting changes: %q is changed twice", c.Path)
		}
		n.kids[leaf] = &node{data: c.Data, del: c.Data == nil, remote: c.OnRemote}
	}
	return root, nil
}

// build applies changes to the root tree of t (emptyTree for none) and
// returns the new root tree.
// Only the directories on the paths of the changes are read and rewritten;
// every object it creates goes to ov.
func build(t *Tree, ov *overlay, changes []Change) (plumbing.Hash, error) {
	root, err := plan(changes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if len(root.kids) == 0 {
		return t.root, nil
	}
	h, err := buildDir(t, ov, t.root, root, "")
	if err == nil && h == emptyTree && t.root != emptyTree {
		// Every file deleted: the commit refers to the empty tree, so send it.
		_, err = ov.put(&object.Tree{})
	}
	return h, err
}

func buildDir(t *Tree, ov *overlay, old plumbing.Hash, n *node, prefix string) (plumbing.Hash, error) {
	d, err := t.dir(old)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading %q: %w", prefix, err)
	}
	entries := make(map[string]object.TreeEntry, len(d.entries)+len(n.kids))
	for _, e := range d.entries {
		entries[e.Name] = e
	}
	for _, name := range slices.Sorted(maps.Keys(n.kids)) {
		k, p := n.kids[name], prefix+name
		cur, has := entries[name]
		switch {
		case k.del:
			delete(entries, name)
		case k.kids == nil:
			if has && cur.Mode == filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("cannot write file %q: it is a directory in the branch (delete it first)", p)
			}
			if has && cur.Mode == filemode.Regular && cur.Hash == plumbing.ComputeHash(plumbing.BlobObject, k.data) {
				continue // unchanged
			}
			h := plumbing.ComputeHash(plumbing.BlobObject, k.data)
			if !k.remote {
				var err error
				if h, err = ov.blob(k.data); err != nil {
					return plumbing.ZeroHash, err
				}
			}
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
		default:
			var sub plumbing.Hash
			if has {
				if cur.Mode != filemode.Dir {
					return plumbing.ZeroHash, fmt.Errorf("cannot write under %q: it is a file in the branch (delete it first)", p)
				}
				sub = cur.Hash
			}
			h, err := buildDir(t, ov, sub, k, p+"/")
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if h == emptyTree {
				delete(entries, name)
			} else {
				entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
			}
		}
	}
	tree := &object.Tree{Entries: sortEntries(entries)}
	m := &plumbing.MemoryObject{}
	if err := tree.Encode(m); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("tree %q: %w", prefix, err)
	}
	h := m.Hash()
	if h == old || h == emptyTree {
		return h, nil // nothing new to send
	}
	return ov.add(m)
}

// sortEntries orders entries as git requires: by name, a directory's name
// compared as if it ended with "/" (so "a.txt" < "a/" < "a0").
func sortEntries(m map[string]object.TreeEntry) []object.TreeEntry {
	list := make([]object.TreeEntry, 0, len(m))
	for _, e := range m {
		list = append(list, e)
	}
	slices.SortFunc(list, func(a, b object.TreeEntry) int {
		return strings.Compare(gitSortName(a), gitSortName(b))
	})
	return list
}

func gitSortName(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}
