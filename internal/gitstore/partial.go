package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// PartialDepth is how many commits of a branch a partial Repo downloads:
// enough to see who wrote the last few commits of a branch, never its
// whole history.
const PartialDepth = 8

// OpenPartial returns an in-memory Repo that reads branches the way a
// partial, shallow clone does: Read downloads the last PartialDepth commits
// of the branch and their trees, but no file contents; a file's content is
// downloaded when it is first read (or, for many at once, by Tree.Fetch).
// What a read costs therefore follows the size of the branch's tree and the
// files actually read, never the length of its history or the size of the
// files left unread: how the bot reads main, whose snapshots/ grows for
// ever.
//
// Filtered fetches and wants of reachable objects
// (uploadpack.allowFilter and uploadpack.allowReachableSHA1InWant, both on
// at GitHub) make it cheap; a server without them (an Enterprise Server
// with them off, Gitea, a mirror) is read whole instead: the tip's last
// PartialDepth commits with their contents where the server offers shallow
// fetches, its whole history where not, said once through Remote.Notify.
// Rebuild works on a partial Repo; Update and UpdateFrom do too, but only
// where the Edit reads what it needs.
func OpenPartial(r Remote) (*Repo, error) {
	repo, err := newRepo(r, memory.NewStorage(), nil)
	if err != nil {
		return nil, err
	}
	repo.partial = true
	return repo, nil
}

// fetchShallow downloads the last PartialDepth commits of tip with their
// trees and no blobs. A partial Repo sends no haves: its commits are
// shallow, and a have would let the server leave out trees we lack.
func (r *Repo) fetchShallow(ctx context.Context, ar *packp.AdvRefs, sess uploadSession, tip plumbing.Hash) error {
	r.tips = append(r.tips, tip)
	if !ar.Capabilities.Supports(capability.Filter) {
		r.fallBack("the server does not offer filtered fetches (capability filter)")
	}
	return r.fetchTip(ctx, ar, sess, tip)
}

// fetchTip downloads tip's last PartialDepth commits (all of its history
// when the server has no shallow fetches), without file contents unless
// the Repo has fallen back to whole fetches.
func (r *Repo) fetchTip(ctx context.Context, ar *packp.AdvRefs, sess uploadSession, tip plumbing.Hash) error {
	req := uploadRequest(ar)
	if ar.Capabilities.Supports(capability.Shallow) {
		_ = req.Capabilities.Set(capability.Shallow)
		req.Depth = packp.DepthCommits(PartialDepth)
	}
	if !r.whole {
		_ = req.Capabilities.Set(capability.Filter)
		req.Filter = packp.FilterBlobNone()
	}
	req.Wants = []plumbing.Hash{tip}
	return r.receive(ctx, sess, req)
}

// fallBack turns a partial Repo to whole fetches, and says so once.
func (r *Repo) fallBack(why string) {
	if r.whole {
		return
	}
	r.whole = true
	if r.remote.Notify != nil {
		r.remote.Notify(fmt.Sprintf("%s: %s, so the files of %s are downloaded whole (more bytes, the same result); "+
			"allowing uploadpack.allowFilter and uploadpack.allowReachableSHA1InWant on the server makes reads cheap", r.remote.URL, why, "each branch read"))
	}
}

// refetchWhole downloads every tip read so far whole: what a server that
// will not send single objects still sends.
func (r *Repo) refetchWhole(ctx context.Context) error {
	sess, ar, err := r.upload(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	for _, tip := range r.tips {
		if err := r.fetchTip(ctx, ar, sess, tip); err != nil {
			return err
		}
	}
	return nil
}

// upload opens an upload-pack session and reads what the server
// advertises; the caller closes the session.
func (r *Repo) upload(ctx context.Context) (transport.UploadPackSession, *packp.AdvRefs, error) {
	sess, err := r.client.NewUploadPackSession(r.ep, r.auth)
	if err != nil {
		return nil, nil, err
	}
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	return sess, ar, nil
}

// fetchObjects downloads the objects named by hashes (blobs of a tree
// already held) in one request.
func (r *Repo) fetchObjects(ctx context.Context, hashes []plumbing.Hash) error {
	sess, ar, err := r.upload(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	req := uploadRequest(ar)
	req.Wants = hashes
	err = r.receive(ctx, sess, req)
	if err == nil && !slices.ContainsFunc(hashes, func(h plumbing.Hash) bool { return !r.has(h) }) {
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	// The server would not send single objects (no wants of reachable
	// objects): read what was read whole instead.
	r.fallBack("the server does not send single objects (uploadpack.allowReachableSHA1InWant is off)")
	if err := r.refetchWhole(ctx); err != nil {
		return err
	}
	for _, h := range hashes {
		if !r.has(h) {
			return fmt.Errorf("the server did not send object %s, not even in a whole fetch of the branches read", h)
		}
	}
	return nil
}

// uploadSession is the part of go-git's upload-pack session fetch uses.
type uploadSession interface {
	UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error)
}

// receive sends req and stores the pack that answers it.
func (r *Repo) receive(ctx context.Context, sess uploadSession, req *packp.UploadPackRequest) error {
	resp, err := sess.UploadPack(ctx, req)
	if err != nil {
		return err
	}
	defer resp.Close()
	var rd io.Reader = resp
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		rd = sideband.NewDemuxer(sideband.Sideband64k, resp)
	case req.Capabilities.Supports(capability.Sideband):
		rd = sideband.NewDemuxer(sideband.Sideband, resp)
	}
	r.mu.Lock()
	err = packfile.UpdateObjectStorage(r.st, rd)
	r.mu.Unlock()
	if err != nil {
		return fmt.Errorf("receiving objects: %w", err)
	}
	return nil
}

// Fetch downloads, in one request, the contents of the named files that a
// partial Repo does not hold yet, so that reading many of them costs one
// round trip. Names that do not exist, and directories, are skipped. On a
// full Repo it does nothing.
func (t *Tree) Fetch(ctx context.Context, names ...string) error {
	if !t.r.partial {
		return nil
	}
	var want []plumbing.Hash
	for _, name := range names {
		e, err := t.lookup("fetch", name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if e.Mode != filemode.Dir && !t.r.has(e.Hash) {
			want = append(want, e.Hash)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if err := t.r.fetchObjects(ctx, want); err != nil {
		return fmt.Errorf("gitstore: fetch %d file(s) at %s: %w", len(want), t.r.remote.URL, err)
	}
	return nil
}

// Commit describes one commit of a branch's recent history.
type Commit struct {
	Hash        string
	AuthorName  string
	AuthorEmail string
	Message     string
}

// Log returns the commits from tip back along first parents, newest first,
// at most n, stopping where the local store's history ends (a partial
// Repo holds PartialDepth commits of what it read).
func (r *Repo) Log(tip string, n int) ([]Commit, error) {
	h := plumbing.NewHash(tip)
	var out []Commit
	for len(out) < n && !h.IsZero() && r.has(h) {
		o, err := r.object(h, plumbing.CommitObject)
		if err != nil {
			return nil, err
		}
		var c object.Commit
		if err := c.Decode(o); err != nil {
			return nil, fmt.Errorf("gitstore: commit %s: %w", h, err)
		}
		info := Commit{Hash: h.String(), AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, Message: c.Message}
		out = append(out, info)
		h = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	return out, nil
}

// ObjectID returns the git object hash of the file or directory at name
// ("" and fs.ErrNotExist when there is none): two trees hold the same
// content at name exactly when the hashes are equal, whatever their size,
// and nothing below name is read or downloaded to tell.
func (t *Tree) ObjectID(name string) (string, error) {
	e, err := t.lookup("objectid", name)
	if err != nil {
		return "", err
	}
	return e.Hash.String(), nil
}

// TreeOf returns the file tree of a commit this Repo holds (one it read,
// or one within PartialDepth of a partial read).
func (r *Repo) TreeOf(commit string) (*Tree, error) {
	h := plumbing.NewHash(commit)
	if h.IsZero() || !r.has(h) {
		return nil, fmt.Errorf("gitstore: commit %q is not held locally", commit)
	}
	root, err := r.commitTree(h)
	if err != nil {
		return nil, err
	}
	return r.newTree(root), nil
}
