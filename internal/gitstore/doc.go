// Package gitstore reads and writes one branch of a remote git repository over
// smart HTTP(S), without a working tree: it is how TaxKernelBot keeps its
// cache branch (fetch-cache: the per-day host ledgers and the fetch state),
// the shared memory between runs.
//
// A write is a compare-and-swap on the branch tip. Repo.Update fetches the
// branch, asks the caller's Edit for the changes to make on top of the tip it
// read, commits them (the tip as the only parent; no parent when it creates
// the branch, which is then an orphan) and pushes with the tip it read as the
// expected old value: git's receive-pack refuses the update if the branch has
// moved meanwhile. Then Update fetches the new tip, calls Edit again on it and
// retries, a bounded number of times, before failing with ErrRejected. It never
// forces: every commit it pushes descends from the tip it replaces, and the
// branch is never rewound.
//
// The cost of an update follows what changes, not the size of the tree or of
// the history: files are read lazily from the objects of one commit (Tree is
// an io/fs.FS), a new tree is built by rewriting only the directories on the
// paths of the changed files, and the push sends only the objects the update
// created. A Repo keeps the objects it has fetched (in memory, or on disk with
// Open) so that repeated calls download only what is new; the first fetch
// downloads the branch's whole history (never a shallow clone).
//
// It is also the one reader of a checkout's own git data: OpenWorkTree finds
// the work tree that holds a directory (linked work trees included),
// WorkTree.Resolve names a commit as git does (HEAD, a branch, a remote
// branch, a tag, a hash) and WorkTree.Tree reads its files as a Tree, all
// without a network; the commands that compare with a base branch or read
// the cache branch as the checkout has it go through it.
package gitstore
