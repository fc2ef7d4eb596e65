package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

var (
	// ErrNoBranch: the branch does not exist on the remote (yet).
	ErrNoBranch = errors.New("branch does not exist")
	// ErrRejected: every push attempt found that the branch had moved since
	// it was read (another writer keeps updating it). Nothing was pushed.
	ErrRejected = errors.New("push rejected: the branch moved")
	// ErrAuth: the remote refused the credentials (HTTP 401 or 403).
	ErrAuth = errors.New("the remote refused the credentials")
)

// DefaultAttempts is the number of push attempts Update makes when asked for
// zero or fewer.
const DefaultAttempts = 5

// Remote is a repository reached over smart HTTP(S). Username and Password are
// sent as basic auth (GitHub: "x-access-token" and the token); the URL itself
// must not carry credentials, as it appears in error messages.
type Remote struct {
	URL                string
	Username, Password string
	// Token, when set, is asked for the password on each request (a token
	// that is renewed while the Repo is in use); Password is then unused.
	Token func(ctx context.Context) (string, error)
	// HTTPClient is the client used for every request; nil uses a client on
	// http.DefaultTransport. Deadlines come from the context of each call.
	HTTPClient *http.Client
	// Notify, when set, hears what a maintainer may want to know but is no
	// error: a partial Repo that had to fall back to whole fetches because
	// the server does not offer filtered ones. Once per Repo.
	Notify func(msg string)
}

// Signature names the author and committer of a commit. When is part of the
// commit (to the second, in its time zone): commits are deterministic given
// the tree, the parent, the signature and the message.
type Signature struct {
	Name, Email string
	When        time.Time
}

// MaxFileSize is the largest file a commit may hold: GitHub refuses a push
// with a file of 100 MB or more (GH001), whole.
const MaxFileSize = 100_000_000 - 1

// ErrTooLarge: a change would commit a file larger than MaxFileSize.
var ErrTooLarge = errors.New("file too large for GitHub")

// Change sets the file at Path (slash-separated, relative to the root of the
// branch) to Data. Data == nil deletes the file, or the whole directory, at
// Path (deleting an absent path is not an error). Directories that become
// empty disappear. Files are written with mode 0644.
type Change struct {
	Path string
	Data []byte
	// OnRemote says the remote already holds Data as a blob (another of its
	// branches has it): the commit names it without sending it again, so a
	// push carries only what is new to the repository.
	OnRemote bool
}

// Edit computes the changes to make on top of the branch's tip, given its
// files (an empty tree when the branch does not exist yet; read them with
// fs.ReadFile, fs.ReadDir, fs.WalkDir: only what is read is loaded). Update
// calls it once per attempt, each time on the newest tip, so it must be a pure
// function of the tree and of the caller's own data: for example, append to a
// ledger the lines the tip does not hold yet. It must not call back into the
// Repo that runs it.
type Edit func(tip fs.FS) ([]Change, error)

// Repo is a local object store attached to one Remote. Keep one for the
// lifetime of the process: repeated Read and Update calls download only what
// is new. Its methods may be called concurrently; they run one at a time.
type Repo struct {
	remote Remote
	ep     *transport.Endpoint
	auth   transport.AuthMethod
	client transport.Transport

	op sync.Mutex // one Read or Update at a time

	mu     sync.Mutex // guards st: every object and ref access
	st     storage.Storer
	closer io.Closer

	partial bool // see OpenPartial
	// whole: the server offers no filtered fetches or wants of reachable
	// objects, so this partial Repo fetches the tips it reads whole.
	whole bool
	tips  []plumbing.Hash // the tips a partial Repo has read
}

// Open returns a Repo that keeps its objects in dir (created if needed; the
// objects/ and refs/ of a bare git repository), so that a later process
// reusing dir (a CI cache, say) does not download the history again. Each
// fetch and each push adds a pack. Close it.
func Open(dir string, r Remote) (*Repo, error) {
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRUDefault(),
		filesystem.Options{KeepDescriptors: true})
	return newRepo(r, st, st)
}

// OpenLocal returns a Repo over the objects a local git directory (a
// checkout's .git, or its common directory) already holds, with no remote:
// for reading a commit's files with TreeOf. Nothing is fetched or written.
func OpenLocal(gitDir string) *Repo {
	st := filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault())
	return &Repo{st: st, closer: st}
}

func newRepo(r Remote, st storage.Storer, closer io.Closer) (*Repo, error) {
	u, err := url.Parse(r.URL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("gitstore: remote URL %q: %w", r.URL, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("gitstore: remote URL %q: want an http:// or https:// URL (smart HTTP)", r.URL)
	case u.User != nil:
		return nil, fmt.Errorf("gitstore: remote URL %s: remove the credentials from the URL and set Remote.Username and Remote.Password", u.Redacted())
	case u.Host == "":
		return nil, fmt.Errorf("gitstore: remote URL %q has no host", r.URL)
	}
	ep, err := transport.NewEndpoint(r.URL)
	if err != nil {
		return nil, fmt.Errorf("gitstore: remote URL %q: %w", r.URL, err)
	}
	repo := &Repo{remote: r, ep: ep, client: githttp.NewClient(r.HTTPClient), st: st, closer: closer}
	switch {
	case r.Token != nil:
		repo.auth = &tokenAuth{user: r.Username, token: r.Token}
	case r.Username != "" || r.Password != "":
		repo.auth = &githttp.BasicAuth{Username: r.Username, Password: r.Password}
	}
	return repo, nil
}

// Close releases the files of a Repo made by Open. Trees it returned must no
// longer be read.
func (r *Repo) Close() error {
	if r.closer == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closer.Close()
}

// Read fetches branch and returns its tip and its files. When the branch does
// not exist it returns "", nil and an error wrapping ErrNoBranch.
func (r *Repo) Read(ctx context.Context, branch string) (string, *Tree, error) {
	ref, err := branchRef(branch)
	if err != nil {
		return "", nil, err
	}
	r.op.Lock()
	defer r.op.Unlock()
	tip, err := r.fetch(ctx, ref)
	if err != nil {
		return "", nil, err
	}
	if tip.IsZero() {
		return "", nil, fmt.Errorf("gitstore: read branch %q at %s: %w", branch, r.remote.URL, ErrNoBranch)
	}
	root, err := r.commitTree(tip)
	if err != nil {
		return "", nil, r.fail("read", ref, err)
	}
	t := r.newTree(root)
	t.ctx = ctx
	return tip.String(), t, nil
}

// Tip returns where branch is on the remote now, "" when it does not
// exist, without fetching anything. It may be called from an Edit.
func (r *Repo) Tip(ctx context.Context, branch string) (string, error) {
	ref, err := branchRef(branch)
	if err != nil {
		return "", err
	}
	tip, err := r.remoteTip(ctx, ref)
	if err != nil {
		return "", err
	}
	return hashString(tip), nil
}

// Update fetches branch, calls edit on its tip, commits the changes with
// message and sig (parent: the tip read; no parent when the branch does not
// exist yet, which creates it as an orphan branch) and pushes the commit as a
// compare-and-swap on the tip read. If the branch moved meanwhile, it starts
// over on the new tip, up to attempts times (DefaultAttempts if attempts <= 0),
// then returns an error wrapping ErrRejected. It never forces a push.
//
// When the changes leave the tree as it is, Update commits and pushes nothing
// and returns the current tip ("" if the branch does not exist). Otherwise it
// returns the hash of the commit it pushed, which is then the branch's tip.
func (r *Repo) Update(ctx context.Context, branch, message string, sig Signature, edit Edit, attempts int) (string, error) {
	return r.update(ctx, branch, "", message, sig, edit, attempts)
}

// UpdateFrom is Update for a branch that, while it does not exist, starts from
// the tip of base instead of from nothing: Edit sees base's files and the
// first commit has base's tip as its parent (a pull request branch made from
// main). Once the branch exists, base plays no part. The base branch must
// exist (else the error wraps ErrNoBranch).
func (r *Repo) UpdateFrom(ctx context.Context, branch, base, message string, sig Signature, edit Edit, attempts int) (string, error) {
	if base == "" {
		return "", errors.New("gitstore: UpdateFrom needs a base branch")
	}
	return r.update(ctx, branch, base, message, sig, edit, attempts)
}

func (r *Repo) update(ctx context.Context, branch, base, message string, sig Signature, edit Edit, attempts int) (string, error) {
	ref, err := branchRef(branch)
	if err != nil {
		return "", err
	}
	var baseRef plumbing.ReferenceName
	if base != "" {
		if baseRef, err = branchRef(base); err != nil {
			return "", err
		}
	}
	if err := checkSignature(sig); err != nil {
		return "", err
	}
	if strings.TrimSpace(message) == "" {
		return "", errors.New("gitstore: empty commit message")
	}
	if !strings.HasSuffix(message, "\n") {
		message += "\n"
	}
	if edit == nil {
		return "", errors.New("gitstore: Update needs an Edit")
	}
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	r.op.Lock()
	defer r.op.Unlock()

	var last plumbing.Hash // where the branch was when the last push was refused
	for range attempts {
		if err := ctx.Err(); err != nil {
			return "", r.fail("update", ref, err)
		}
		tip, err := r.fetch(ctx, ref)
		if err != nil {
			return "", err
		}
		parent := tip // the commit to build on: the tip, or the base's for a new branch
		if tip.IsZero() && baseRef != "" {
			if parent, err = r.fetch(ctx, baseRef); err != nil {
				return "", err
			}
			if parent.IsZero() {
				return "", fmt.Errorf("gitstore: create branch %q from %q at %s: %q: %w", branch, base, r.remote.URL, base, ErrNoBranch)
			}
		}
		c, err := r.commitOn(parent, message, sig, edit)
		if err != nil {
			return "", fmt.Errorf("gitstore: update branch %q at %s: %w", branch, r.remote.URL, err)
		}
		if c == nil {
			return hashString(tip), nil // nothing to commit
		}
		commit, ov, pack := c.hash, c.ov, c.pack
		err = r.push(ctx, ref, tip, commit, pack)
		var moved *movedError
		switch {
		case err == nil:
			r.keep(ref, commit, ov, pack)
			return commit.String(), nil
		case errors.As(err, &moved):
			last = moved.now
			continue
		default:
			return "", err
		}
	}
	return "", fmt.Errorf("gitstore: update branch %q at %s: %w %d times in a row (last seen at %s): another writer keeps updating it; nothing was pushed and the caller's data is intact, run the update again later",
		branch, r.remote.URL, ErrRejected, attempts, short(last))
}

// built is a commit made locally, not pushed yet: its objects and their pack.
type built struct {
	hash plumbing.Hash
	ov   *overlay
	pack []byte
}

// commitOn builds the commit of edit's changes on parent (zero: a root
// commit). It returns nil when the changes leave parent's tree as it is.
func (r *Repo) commitOn(parent plumbing.Hash, message string, sig Signature, edit Edit) (*built, error) {
	ov := newOverlay()
	commit, err := r.commitInto(ov, parent, message, sig, edit)
	if err != nil || commit.IsZero() {
		return nil, err
	}
	pack, err := ov.pack()
	if err != nil {
		return nil, err
	}
	return &built{hash: commit, ov: ov, pack: pack}, nil
}

// commitsOn builds a commit per step, each on the one before, the first
// on parent, all in one overlay and pack; nil when no step changes
// anything. Each commit's objects are added to the local store as soon as
// it is built, so that the next step reads its tree: unpushed, they are
// only objects nothing names, as a failed push leaves.
func (r *Repo) commitsOn(parent plumbing.Hash, sig Signature, steps []Step) (*built, error) {
	ov := newOverlay()
	tip := parent
	for i, st := range steps {
		commit, err := r.commitInto(ov, tip, st.Message, sig, st.Edit)
		if err != nil {
			return nil, err
		}
		if commit.IsZero() {
			continue
		}
		tip = commit
		if i < len(steps)-1 {
			if err := r.adopt(ov); err != nil {
				return nil, err
			}
		}
	}
	if tip == parent {
		return nil, nil
	}
	pack, err := ov.pack()
	if err != nil {
		return nil, err
	}
	return &built{hash: tip, ov: ov, pack: pack}, nil
}

// adopt adds the objects of ov to the local store.
func (r *Repo) adopt(ov *overlay) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range ov.hashes {
		if r.st.HasEncodedObject(h) == nil {
			continue
		}
		o, err := ov.st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return err
		}
		if _, err := r.st.SetEncodedObject(o); err != nil {
			return err
		}
	}
	return nil
}

// commitInto builds the commit of edit's changes on parent (zero: a root
// commit) into ov, and returns its hash: zero when the changes leave
// parent's tree as it is.
func (r *Repo) commitInto(ov *overlay, parent plumbing.Hash, message string, sig Signature, edit Edit) (plumbing.Hash, error) {
	root := emptyTree
	if !parent.IsZero() {
		var err error
		if root, err = r.commitTree(parent); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	tree := r.newTree(root)
	changes, err := edit(tree)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("edit on %s: %w", short(parent), err)
	}
	newRoot, err := build(tree, ov, changes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if newRoot == root {
		return plumbing.ZeroHash, nil
	}
	var parents []plumbing.Hash
	if !parent.IsZero() {
		parents = []plumbing.Hash{parent}
	}
	who := object.Signature{Name: sig.Name, Email: sig.Email, When: sig.When}
	return ov.put(&object.Commit{
		Author:       who,
		Committer:    who,
		Message:      message,
		TreeHash:     newRoot,
		ParentHashes: parents,
	})
}

// ErrMoved: Rebuild found the branch elsewhere than the caller expected.
var ErrMoved = errors.New("the branch is not where it was expected")

// Rebuild points branch at a new commit: the tip of base plus the changes
// edit makes on base's files, whatever branch held before, provided the
// branch still holds expect ("" when it must not exist): an expected-old-
// value push, git's force-with-lease. It is for a branch that is one
// commit on top of another and rewritten on each cycle (a pull request
// branch kept on main); it must never be used on a branch others build on.
//
// When the changes leave base's tree as it is, Rebuild pushes nothing and
// returns "". When the branch is not at expect, nothing is pushed and the
// error wraps ErrMoved: the caller looks again before deciding. base must
// exist (else ErrNoBranch).
func (r *Repo) Rebuild(ctx context.Context, branch, base, expect, message string, sig Signature, edit Edit) (string, error) {
	return r.RebuildSteps(ctx, branch, base, expect, sig, []Step{{Message: message, Edit: edit}})
}

// Step is one commit of RebuildSteps: its message, and the changes Edit
// makes on the files of the commit before it.
type Step struct {
	Message string
	Edit    Edit
}

// RebuildSteps is Rebuild with one commit per step, each on the one
// before (the first on base's tip), in one push: a branch of several
// proposals a reviewer can tell apart. A step that changes nothing makes
// no commit; when none changes anything, nothing is pushed and it returns
// "".
func (r *Repo) RebuildSteps(ctx context.Context, branch, base, expect string, sig Signature, steps []Step) (string, error) {
	ref, err := branchRef(branch)
	if err != nil {
		return "", err
	}
	baseRef, err := branchRef(base)
	if err != nil {
		return "", err
	}
	if err := checkSignature(sig); err != nil {
		return "", err
	}
	if len(steps) == 0 {
		return "", errors.New("gitstore: Rebuild needs a step")
	}
	for i, st := range steps {
		if strings.TrimSpace(st.Message) == "" || st.Edit == nil {
			return "", errors.New("gitstore: Rebuild needs a message and an Edit for each commit")
		}
		if !strings.HasSuffix(st.Message, "\n") {
			steps[i].Message += "\n"
		}
	}
	old := plumbing.ZeroHash
	if expect != "" {
		if old = plumbing.NewHash(expect); old.IsZero() || old.String() != expect {
			return "", fmt.Errorf("gitstore: Rebuild: %q is not a commit hash", expect)
		}
	}
	r.op.Lock()
	defer r.op.Unlock()
	parent, err := r.fetch(ctx, baseRef)
	if err != nil {
		return "", err
	}
	if parent.IsZero() {
		return "", fmt.Errorf("gitstore: rebuild branch %q on %q at %s: %q: %w", branch, base, r.remote.URL, base, ErrNoBranch)
	}
	c, err := r.commitsOn(parent, sig, steps)
	if err != nil {
		return "", fmt.Errorf("gitstore: rebuild branch %q on %q at %s: %w", branch, base, r.remote.URL, err)
	}
	if c == nil {
		return "", nil
	}
	err = r.push(ctx, ref, old, c.hash, c.pack)
	var moved *movedError
	switch {
	case err == nil:
		r.keep(ref, c.hash, c.ov, c.pack)
		return c.hash.String(), nil
	case errors.As(err, &moved):
		return "", fmt.Errorf("gitstore: rebuild branch %q at %s: %w (expected %s, found %s); nothing was pushed",
			branch, r.remote.URL, ErrMoved, short(old), short(moved.now))
	}
	return "", err
}

func branchRef(branch string) (plumbing.ReferenceName, error) {
	ref := plumbing.NewBranchReferenceName(branch)
	if branch == "" || strings.HasPrefix(branch, "refs/") || ref.Validate() != nil {
		return "", fmt.Errorf("gitstore: invalid branch name %q (want a plain branch name such as fetch-cache)", branch)
	}
	return ref, nil
}

func checkSignature(sig Signature) error {
	bad := func(s string) bool { return s == "" || strings.ContainsAny(s, "<>\n\x00") }
	switch {
	case bad(sig.Name) || bad(sig.Email):
		return fmt.Errorf("gitstore: invalid signature %q <%s>: want a name and an email without <, > or newlines", sig.Name, sig.Email)
	case sig.When.IsZero():
		return errors.New("gitstore: signature has no time: set Signature.When (from the injected clock), it is part of the commit")
	}
	return nil
}

// commitTree returns the root tree of a commit held locally.
func (r *Repo) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	o, err := r.object(h, plumbing.CommitObject)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var c object.Commit
	if err := c.Decode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("commit %s: %w", h, err)
	}
	return c.TreeHash, nil
}

// objectData reads an object of the local store fully into memory.
func (r *Repo) objectData(h plumbing.Hash, t plumbing.ObjectType) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.st.EncodedObject(t, h)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", t, h, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", t, h, err)
	}
	defer rd.Close()
	data := make([]byte, 0, o.Size())
	buf := bytes.NewBuffer(data)
	if _, err := buf.ReadFrom(rd); err != nil {
		return nil, fmt.Errorf("%s %s: %w", t, h, err)
	}
	return buf.Bytes(), nil
}

// object reads an object of the local store, ready to decode.
func (r *Repo) object(h plumbing.Hash, t plumbing.ObjectType) (*plumbing.MemoryObject, error) {
	data, err := r.objectData(h, t)
	if err != nil {
		return nil, err
	}
	m := &plumbing.MemoryObject{}
	m.SetType(t)
	m.Write(data)
	return m, nil
}

func (r *Repo) has(h plumbing.Hash) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.HasEncodedObject(h) == nil
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none: no branch)"
	}
	return h.String()[:12]
}

func hashString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// tokenAuth is basic auth whose password is asked for on each request.
type tokenAuth struct {
	user  string
	token func(ctx context.Context) (string, error)
}

func (a *tokenAuth) SetAuth(r *http.Request) {
	tok, err := a.token(r.Context())
	if err != nil {
		return // unauthenticated: the server's 401 says so, as ErrAuth
	}
	r.SetBasicAuth(a.user, tok)
}

func (a *tokenAuth) Name() string   { return "http-basic-auth" }
func (a *tokenAuth) String() string { return "http-basic-auth - " + a.user + ":<renewed token>" }
