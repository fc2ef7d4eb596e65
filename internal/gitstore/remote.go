package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// trackingRef records, in the local store, the last tip of branch seen on the
// remote: the "have" that keeps the next fetch down to what is new.
func trackingRef(ref plumbing.ReferenceName) plumbing.ReferenceName {
	return plumbing.NewRemoteReferenceName("origin", ref.Short())
}

// fetch reads where ref is on the remote and downloads the objects of that
// tip the local store lacks. It returns the zero hash when the branch does not
// exist.
func (r *Repo) fetch(ctx context.Context, ref plumbing.ReferenceName) (plumbing.Hash, error) {
	sess, err := r.client.NewUploadPackSession(r.ep, r.auth)
	if err != nil {
		return plumbing.ZeroHash, r.fail("fetch", ref, err)
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, r.fail("fetch", ref, err)
	}
	tip, ok := ar.References[ref.String()]
	if !ok {
		return plumbing.ZeroHash, nil
	}
	// Every commit in the store arrived with all it refers to (a whole pack,
	// or an update of ours whose other objects came from its parent), so
	// holding the tip means holding its history.
	switch {
	case r.has(tip):
	case r.partial:
		if err := r.fetchShallow(ctx, ar, sess, tip); err != nil {
			return plumbing.ZeroHash, r.fail("fetch", ref, err)
		}
	default:
		req := uploadRequest(ar)
		req.Wants = []plumbing.Hash{tip}
		req.Haves = r.haves()
		if err := r.receive(ctx, sess, req); err != nil {
			return plumbing.ZeroHash, r.fail("fetch", ref, err)
		}
		if !r.has(tip) {
			return plumbing.ZeroHash, r.fail("fetch", ref, fmt.Errorf("the server did not send the tip %s", tip))
		}
	}
	r.setTracking(ref, tip)
	return tip, nil
}

// uploadRequest is a fetch request for what ar advertises: without a thin
// pack, which leans on objects outside it (the store keeps packs as they
// come, so it asks for self-contained ones), and without progress lines.
func uploadRequest(ar *packp.AdvRefs) *packp.UploadPackRequest {
	req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
	req.Capabilities.Delete(capability.ThinPack)
	if ar.Capabilities.Supports(capability.NoProgress) {
		_ = req.Capabilities.Set(capability.NoProgress)
	}
	return req
}

// haves lists the last tips seen of every branch fetched so far, held in the
// store: the server sends only what they lack (a branch made from main, say,
// comes without main's history when main was fetched before).
func (r *Repo) haves() []plumbing.Hash {
	r.mu.Lock()
	defer r.mu.Unlock()
	refs, err := r.st.IterReferences()
	if err != nil {
		return nil
	}
	var out []plumbing.Hash
	_ = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && ref.Name().IsRemote() && r.st.HasEncodedObject(ref.Hash()) == nil && !slices.Contains(out, ref.Hash()) {
			out = append(out, ref.Hash())
		}
		return nil
	})
	return out
}

func (r *Repo) setTracking(ref plumbing.ReferenceName, h plumbing.Hash) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Only an optimisation of the next fetch: failing to record it is harmless.
	_ = r.st.SetReference(plumbing.NewHashReference(trackingRef(ref), h))
}

// movedError: the branch was not where the push expected it.
type movedError struct{ now plumbing.Hash }

func (e *movedError) Error() string { return "the branch moved to " + short(e.now) }

// push sends pack and asks the remote to move ref from old (zero: create it)
// to new. receive-pack applies the update only if ref still has the value
// old, under its ref lock: the compare-and-swap. A *movedError says the
// branch was elsewhere; anything else is a failure not worth retrying.
func (r *Repo) push(ctx context.Context, ref plumbing.ReferenceName, old, new plumbing.Hash, pack []byte) error {
	sess, err := r.client.NewReceivePackSession(r.ep, r.auth)
	if err != nil {
		return r.fail("push to", ref, err)
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return r.fail("push to", ref, err)
	}
	if cur := ar.References[ref.String()]; cur != old {
		return &movedError{now: cur} // no need to send anything
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	var said bytes.Buffer // what the server's hooks print (GitHub: protected branch, ...)
	if ar.Capabilities.Supports(capability.Sideband64k) {
		_ = req.Capabilities.Set(capability.Sideband64k)
		req.Progress = &said
	}
	req.Commands = []*packp.Command{{Name: ref, Old: old, New: new}}
	req.Packfile = io.NopCloser(bytes.NewReader(pack))
	rs, err := sess.ReceivePack(ctx, req)
	if err == nil && rs != nil {
		return nil
	}
	if err == nil {
		err = errors.New("the server sent no report")
	}
	// Refused, or the answer was lost: where the branch is now tells which.
	now, lerr := r.remoteTip(ctx, ref)
	switch {
	case lerr != nil:
		return fmt.Errorf("%w; whether it landed is unknown, reading the branch back failed too: %w", r.fail("push to", ref, err), lerr)
	case now == new:
		return nil // it landed
	case now != old:
		return &movedError{now: now}
	}
	if msg := strings.TrimSpace(said.String()); msg != "" {
		err = fmt.Errorf("%w; the server said: %s", err, msg)
	}
	return r.fail("push to", ref, fmt.Errorf("the branch is still at %s and the push was refused: %w", short(old), err))
}

// remoteTip reads where ref is on the remote (zero if absent).
func (r *Repo) remoteTip(ctx context.Context, ref plumbing.ReferenceName) (plumbing.Hash, error) {
	sess, err := r.client.NewUploadPackSession(r.ep, r.auth)
	if err != nil {
		return plumbing.ZeroHash, r.fail("read", ref, err)
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, r.fail("read", ref, err)
	}
	return ar.References[ref.String()], nil
}

// keep adds the objects of a pushed update to the local store, so that the
// next update starts from it without downloading it back.
func (r *Repo) keep(ref plumbing.ReferenceName, commit plumbing.Hash, ov *overlay, pack []byte) {
	r.mu.Lock()
	var err error
	if pw, ok := r.st.(storer.PackfileWriter); ok {
		err = packfile.WritePackfileToObjectStorage(pw, bytes.NewReader(pack))
	} else {
		for _, h := range ov.hashes {
			var o plumbing.EncodedObject
			if o, err = ov.st.EncodedObject(plumbing.AnyObject, h); err != nil {
				break
			}
			if _, err = r.st.SetEncodedObject(o); err != nil {
				break
			}
		}
	}
	r.mu.Unlock()
	// The push has succeeded; a store that failed to keep the objects only
	// means the next fetch downloads them again (it looks for the tip, which
	// is written last).
	if err == nil {
		r.setTracking(ref, commit)
	}
}

// fail describes a failed exchange with the remote: which remote, which
// branch, and what to do about it.
func (r *Repo) fail(op string, ref plumbing.ReferenceName, err error) error {
	where := fmt.Sprintf("gitstore: %s branch %q at %s", op, ref.Short(), r.remote.URL)
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired):
		return fmt.Errorf("%s: %w (HTTP 401): the credentials are missing, wrong or expired: %w", where, ErrAuth, err)
	case errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%s: %w (HTTP 403): the credentials may not do this (a push needs write access to the repository's contents): %w", where, ErrAuth, err)
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Errorf("%s: repository not found (HTTP 404): check Remote.URL and that the credentials can see the repository: %w", where, err)
	}
	return fmt.Errorf("%s: %w", where, err)
}

// LastSeen returns the tip of branch this Repo last saw on the remote (by
// a read or its own push), or "" if it never saw the branch: how an
// on-disk Repo remembers, from one run to the next, that a branch existed.
func (r *Repo) LastSeen(branch string) string {
	ref, err := branchRef(branch)
	if err != nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	got, err := r.st.Reference(trackingRef(ref))
	if err != nil {
		return ""
	}
	return hashString(got.Hash())
}
