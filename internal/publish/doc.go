// Package publish brings what the bot fetched to reviewers: it rebuilds
// the bot branch (taxkernelbot/update) as main's tip plus one bot commit
// (and one commit per new edition a held page links to, each adding its
// manifest entry beside the listed source's: edition.Find),
// opens or edits the pull request of that branch, keeps its memory of the
// pull requests (Record) on the cache branch, and keeps one issue per
// source failing for days (FailureIssues). internal/cycle makes the
// Publisher, handing it the cache branch's repository, and calls it once
// it has pushed the state, the ledgers and the pending bytes there.
//
// One bot commit on main: the branch is the bot's, and each publication
// rebuilds it as main plus one commit (the hash index united from main,
// the bot branch, the cache branch's pending/ and this runner's store;
// the blobs main lacks; each source's text of the bytes it serves now, at
// the source's one path, where main's is of other bytes; the reports,
// public pages and feeds, rendered by internal/outputs as a run's end
// renders them, the texts read from this runner, pending/, main's tree or
// the bot branch's, an older version's derived again from its bytes)
// and moves it with an expected-old-value push, so a merge, a squash or a
// rebase-merge of the pull request never conflicts with the next one.
// Shards publish in any order: a publisher whose push lost the race
// starts over (up to three times), and whichever edits the pull request
// last describes the branch's tip as it is then. When nothing meaningful
// changed, nothing is pushed to the bot branch and nothing is written to
// GitHub.
//
// The publisher guarantees:
//
//   - A foreign commit is never dropped. A commit on the bot branch that
//     the bot did not write (BotEmail) is said once on the pull request,
//     and the branch is left alone until a maintainer adds RebaseLabel,
//     or the pull request is merged or closed.
//   - A pull request closed without merging is a reviewer's "no": what
//     it proposed is not proposed again until a maintainer adds
//     ReproposeLabel. One closed because its branch was deleted (GitHub's
//     events say head_ref_deleted) decided nothing: the branch is
//     recreated from main.
//   - Nothing cited is missing. Before each push of the bot branch the
//     commit is checked (ErrBrokenRecord): it cites no hash that neither
//     it nor main holds, drops no entry of main's index and sets no
//     checked source back to pending. The report never cites bytes no
//     place holds.
//
// The bytes the bot commit needs come from this runner's store, else the
// cache branch's pending/ (internal/botrepo says where), else the bot
// branch as it was. With Options.Stores (in GitHub Actions: the
// repository's release assets and policy.yaml's buckets) the bot commit
// carries no blob: each one it cites is saved to every store before the
// push, its index entries name the stores (and the link anyone can
// download it from), "nothing cited is missing" counts what every store
// holds, and a blob main still carries leaves main by the bot commit once
// every store holds it (stores.go). The GitHub API (PullRequests), the
// stores, the clock and the git remote are injected.
package publish
