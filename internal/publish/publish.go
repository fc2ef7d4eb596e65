package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/outputs"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// publishAttempts bounds how often a cycle starts its publishing over
// because another shard moved the bot branch meanwhile.
const publishAttempts = 3

// Publish brings what the cache branch and this runner's store hold to
// reviewers: it rebuilds the bot branch as main plus one bot commit when
// that proposes something main lacks, and opens or edits the pull
// request. It returns the pull request's address when one is open with
// it, and the cache branch's state it published from (nil if it could not
// read it).
func (pub *Publisher) Publish(ctx context.Context) (string, *state.State, error) {
	local, err := store.LoadIndex(filepath.Join(pub.o.Snapshots, "index.json"))
	if err != nil {
		return "", nil, err
	}
	pr, err := pub.o.GitHub.LatestPR(ctx, botrepo.BotBranch)
	if err != nil {
		return "", nil, err
	}
	for attempt := 1; ; attempt++ {
		url, st, err := pub.publishOnce(ctx, local, pr)
		if !errors.Is(err, gitstore.ErrMoved) || attempt == publishAttempts {
			return url, st, err
		}
		pub.logf("publish: %s moved while this cycle built it (another shard published): looking again", botrepo.BotBranch)
	}
}

// view is one reading of the repository, for one publishing attempt.
type view struct {
	reader   *gitstore.Repo
	mainTree *gitstore.Tree
	onMain   *report.Report
	botTip   string
	botTree  *gitstore.Tree // nil when the branch does not exist
	// Read or made once, on first use (mainIndex, botIndex, proposed).
	mainIx, botIx, proposed *store.Index
}

func (pub *Publisher) read(ctx context.Context) (*view, error) {
	reader, err := gitstore.OpenPartial(pub.o.Remote)
	if err != nil {
		return nil, err
	}
	v := &view{reader: reader}
	if _, v.mainTree, err = reader.Read(ctx, botrepo.BaseBranch); err != nil {
		return nil, botrepo.ExplainGit(err)
	}
	if err := v.mainTree.Fetch(ctx, botrepo.CoverageJSON); err != nil {
		return nil, err
	}
	if v.onMain, err = botrepo.ReportIn(v.mainTree, botrepo.BaseBranch); err != nil {
		return nil, err
	}
	v.botTip, v.botTree, err = reader.Read(ctx, botrepo.BotBranch)
	if errors.Is(err, gitstore.ErrNoBranch) {
		return v, nil
	}
	return v, botrepo.ExplainGit(err)
}

func (pub *Publisher) publishOnce(ctx context.Context, local *store.Index, pr *github.PRState) (url string, st *state.State, err error) {
	v, err := pub.read(ctx)
	if err != nil {
		return "", nil, err
	}
	defer v.reader.Close()
	// One reading of the cache branch gives the bot's memory of its pull
	// requests and the newest state: a shard that publishes later has seen
	// every state pushed before it.
	st, cache, err := pub.cacheState(ctx)
	if err != nil {
		return "", nil, err
	}
	rec, err := recordIn(cache)
	if err != nil {
		return "", st, err
	}
	read := rec
	open := pr != nil && pr.Open

	// Whose is the branch? A commit by anyone else is never dropped.
	rebase := false
	if open && v.botTip != "" {
		if theirs := foreignCommits(v.reader, v.botTip); len(theirs) > 0 {
			if !pr.HasLabel(RebaseLabel) {
				return pr.URL, st, pub.leaveAlone(ctx, pr, theirs, rec)
			}
			rebase = true
			pub.note("%s: the label %s is on pull request #%d, so the bot rebuilds its branch over %s", botrepo.BotBranch, RebaseLabel, pr.Number, describe(theirs))
		}
	}
	if v.botTip == "" && rec.Head != "" && !(pr != nil && pr.Merged) {
		pub.note("branch %s was missing (deleted?): it is recreated from %s if there is anything to propose", botrepo.BotBranch, botrepo.BaseBranch)
	}
	if err := pub.closedHow(ctx, pr, &rec); err != nil {
		return "", st, err
	}

	// What the bot branch should propose now.
	rep := dropUnheld(report.Keep(report.Build(pub.o.Set, st), v.onMain), v.onMain, pub.holder(ctx, v, cache)).AddUsage(local.Usage)
	changes := report.Diff(v.onMain, rep)
	pages, coverage, err := pub.pages(ctx, cache, st, rep, v, local)
	if err != nil {
		return "", st, err
	}
	extra := differing(ctx, v.mainTree, pages)
	moves, err := pub.moves(ctx, v, nil)
	if err != nil {
		return "", st, err
	}
	keys := slices.Sorted(slices.Values(append(Proposal(changes, extra), moves...)))
	rec.Declined = keep(rec.Declined, keys)
	persist := func() error {
		if string(rec.encode()) == string(read.encode()) {
			return nil
		}
		return pub.saveRecord(ctx, read, rec)
	}
	// asIs: the cycle leaves the branch and the pull request as they are.
	// When the record does not name them (a publisher stopped between its
	// push and its edit), the body is made to describe the branch's head,
	// and the record to name it.
	asIs := func() error {
		if open && v.botTip != "" && !rebase && (rec.Number != pr.Number || rec.Head != v.botTip) {
			pub.logf("publish: the record names %.12s of pull request #%d, not %s's %.12s: the pull request is described again", rec.Head, rec.Number, botrepo.BotBranch, v.botTip)
			if err := pub.settleRecord(ctx, v, st, &rec, pr.Number, "", nil, pages); err != nil {
				return errors.Join(err, persist())
			}
		}
		return persist()
	}
	switch {
	case len(keys) == 0:
		pub.logf("publish: nothing differs from %s: no pull request", botrepo.BaseBranch)
		return "", st, asIs()
	case open && v.botTip != "" && !rebase:
		held, err := proposalIn(ctx, v, v.botTree, pages)
		if err != nil {
			return "", st, err
		}
		moved, err := pub.moves(ctx, v, v.botTree)
		if err != nil {
			return "", st, err
		}
		held = slices.Sorted(slices.Values(append(held, moved...)))
		whole, err := pub.branchHoldsIndex(ctx, v, cache, local)
		if err != nil {
			return "", st, err
		}
		if slices.Equal(held, keys) && whole && !pub.mainMovedUnder(v) {
			pub.logf("publish: pull request #%d already proposes all of this: no push, no edit", pr.Number)
			return pr.URL, st, asIs()
		}
	case !open && rec.DeclinedPR != 0 && subset(keys, rec.Declined):
		pub.logf("publish: only what pull request #%d proposed before a reviewer closed it: nothing opened", rec.DeclinedPR)
		return "", st, persist()
	}

	sig, msg := pub.signature(snapshotsSubject)
	if seen := pub.o.Cache.LastSeen(botrepo.CacheBranch); seen != "" {
		msg += "\n\n" + botrepo.CacheTrailer + seen
	}
	// The bot commit, then one commit per new edition, each adding its
	// manifest entry: extra holds the manifests as they end, for the
	// proposal's keys, and the bot commit leaves them to those commits.
	steps := append([]gitstore.Step{{Message: msg, Edit: func(base fs.FS) ([]gitstore.Change, error) {
		others := withoutManifests(extra)
		changes, err := pub.botChanges(ctx, base, cache, v, local, rep, coverage, others)
		pub.files = len(changes) + len(extra) - len(others) // and the manifests the editions' commits write
		return changes, err
	}}}, editionSteps(pub.editionCommits)...)
	tip, err := v.reader.RebuildSteps(ctx, botrepo.BotBranch, botrepo.BaseBranch, v.botTip, sig, steps)
	if err != nil {
		return "", st, botrepo.ExplainGit(err)
	}
	if tip == "" {
		return "", st, asIs()
	}
	title, body := review.Title(changes), pub.body(ctx, v, st, changes, rep, tip, v.botTree)
	var number int
	if open {
		number, url = pr.Number, pr.URL
		err = pub.o.GitHub.EditPR(ctx, number, title, body)
	} else {
		var created bool
		number, url, created, err = pub.o.GitHub.EnsurePR(ctx, github.PR{Head: botrepo.BotBranch, Base: botrepo.BaseBranch, Title: title, Body: body, Labels: []string{PRLabel}})
		if errors.Is(err, github.ErrLabels) {
			pub.logf("publish: %v", err)
			err = nil
		}
		if created {
			pub.logf("publish: pull request #%d opened: %s", number, url)
		}
	}
	rec.Number, rec.Head, rec.Proposal = number, tip, keys
	if err == nil {
		// The record names what the body describes once settled.
		err = pub.settleRecord(ctx, v, st, &rec, number, tip, keys, pages)
	}
	if perr := persist(); err == nil {
		err = perr
	}
	if err != nil {
		return "", st, err
	}
	if rebase {
		if err := pub.o.GitHub.RemoveLabel(ctx, number, RebaseLabel); err != nil {
			pub.logf("publish: %v", err)
		}
	}
	pub.logf("publish: %s is %.12s, pull request #%d: %s", botrepo.BotBranch, tip, number, url)
	return url, st, nil
}

// closedHow decides what a pull request closed without merging means. Closed
// by a person, it is a reviewer's "no": what it proposed is not proposed
// again, until a maintainer puts the label ReproposeLabel on it. Closed
// because its branch was deleted (GitHub's timeline says head_ref_deleted),
// it is no decision about the content: the branch is recreated from main
// and a new pull request opens with what main lacks.
func (pub *Publisher) closedHow(ctx context.Context, pr *github.PRState, rec *Record) error {
	if pr == nil || pr.Open || pr.Merged || pr.Number != rec.Number {
		return nil
	}
	if pr.HasLabel(ReproposeLabel) {
		if rec.DeclinedPR == pr.Number {
			rec.Declined, rec.DeclinedPR = nil, 0
			pub.note("pull request #%d carries the label %s: what it proposed is proposed again", pr.Number, ReproposeLabel)
		}
		return nil
	}
	if rec.DeclinedPR == pr.Number || rec.BranchDeletedPR == pr.Number {
		return nil // decided in an earlier cycle
	}
	deleted, err := pub.o.GitHub.ClosedByBranchDeletion(ctx, pr.Number)
	if err != nil {
		return err
	}
	if deleted {
		rec.BranchDeletedPR = pr.Number
		pub.note("pull request #%d was closed because its branch %s was deleted, not by a reviewer: the branch is recreated from %s and a new pull request opens with what %s lacks",
			pr.Number, botrepo.BotBranch, botrepo.BaseBranch, botrepo.BaseBranch)
		return nil
	}
	rec.Declined, rec.DeclinedPR = rec.Proposal, pr.Number
	pub.note("pull request #%d was closed without merging: what it proposed is not proposed again, and a new pull request opens only for a new change. "+
		"To have it proposed again, add the label %s to pull request #%d", pr.Number, ReproposeLabel, pr.Number)
	return nil
}

// botPaths are the parts of the repository the bot commit writes.
var botPaths = []string{"reports", "snapshots"}

// snapshotsSubject begins the message of the bot commit.
const snapshotsSubject = "snapshots and coverage"

// mainMovedUnder reports whether main changed what the bot writes since
// the commit the bot branch sits on (someone merged a hand edit of the
// report, say): the open pull request would then conflict, so the branch
// is rebuilt on main even though it proposes nothing new. A branch whose
// base cannot be read counts as moved.
func (pub *Publisher) mainMovedUnder(v *view) bool {
	log, err := v.reader.Log(v.botTip, len(pub.editionCommits)+2)
	if err != nil {
		return true
	}
	at, ok := branchBase(log)
	if !ok {
		return true
	}
	base, err := v.reader.TreeOf(at.Hash)
	if err != nil {
		return true
	}
	paths := botPaths
	if len(pub.editionCommits) > 0 {
		paths = append(slices.Clip(paths), "manifests") // the new editions' entries are written over main's
	}
	for _, p := range paths {
		a, errA := base.ObjectID(p)
		b, errB := v.mainTree.ObjectID(p)
		if a != b || (errA == nil) != (errB == nil) {
			return true
		}
	}
	return false
}

// settle makes the pull request's body describe the branch's tip as it is
// now. When another shard pushed after this one, whichever edits last must
// not leave the older picture: each publisher looks at the tip after its
// edit and, if it moved, describes the newer tip instead. It returns the
// tip the body last described (ours when it did not move; "" for none),
// and its tree when that is not ours.
func (pub *Publisher) settle(ctx context.Context, v *view, st *state.State, number int, ours string) (string, *gitstore.Tree, error) {
	var described *gitstore.Tree
	for range publishAttempts {
		tip, tree, err := v.reader.Read(ctx, botrepo.BotBranch)
		if err != nil || tip == ours {
			return ours, described, botrepo.ExplainGit(err)
		}
		if err := tree.Fetch(ctx, botrepo.CoverageJSON); err != nil {
			return ours, described, err
		}
		rep, err := botrepo.ReportIn(tree, botrepo.BotBranch)
		if err != nil || rep == nil {
			return ours, described, err
		}
		changes := report.Diff(v.onMain, rep)
		if err := pub.o.GitHub.EditPR(ctx, number, review.Title(changes), pub.body(ctx, v, st, changes, rep, tip, tree)); err != nil {
			return ours, described, err
		}
		ours, described = tip, tree
	}
	return ours, described, nil
}

// settleRecord settles pull request number's body (from ours, the tip this
// cycle described, with keys its proposal; "" for none) and makes rec name
// what the body then describes: the pull request, the head, and what that
// head proposes.
func (pub *Publisher) settleRecord(ctx context.Context, v *view, st *state.State, rec *Record, number int, ours string, keys []string, pages map[string][]byte) error {
	head, tree, err := pub.settle(ctx, v, st, number, ours)
	if head == "" {
		return err
	}
	if tree != nil {
		var perr error
		if keys, perr = proposalIn(ctx, v, tree, pages); perr != nil {
			return errors.Join(err, perr)
		}
	}
	rec.Number, rec.Head, rec.Proposal = number, head, keys
	return err
}

// body is the pull request body for changes, with the text diffs of the
// changed documents read from the local store, main or the bot branch's
// tree at tip.
func (pub *Publisher) body(ctx context.Context, v *view, st *state.State, changes []report.Change, rep *report.Report, tip string, bot *gitstore.Tree) string {
	d := BodyDetails(ctx, pub.o.Set, st, changes, outputs.Blobs(ctx, pub.o.Snapshots, trees(v.mainTree, bot)...))
	d.Files = pub.files
	d.Editions = pub.editions
	file := pub.o.Links.FileURL(tip)
	return review.Body(changes, review.SummaryOf(rep), review.Links{Blob: pub.blobLink(file), File: file, Run: pub.o.Links.RunURL()}, d)
}

// leaveAlone is what the bot does while someone else's commit is on its
// branch: fetch results keep flowing to the cache branch, the bot branch
// and the pull request stay as they are, and the bot says so once.
func (pub *Publisher) leaveAlone(ctx context.Context, pr *github.PRState, theirs []gitstore.Commit, rec Record) error {
	pub.note("%s has %s: the bot leaves the branch alone until a maintainer adds the label %s to pull request #%d, or it is merged or closed",
		botrepo.BotBranch, describe(theirs), RebaseLabel, pr.Number)
	if rec.ForeignNoted == theirs[0].Hash {
		return nil
	}
	body := fmt.Sprintf("TaxKernelBot will not rewrite this branch: it has %s, which the bot did not write.\n\n"+
		"New fetch results keep being recorded, but this pull request is not updated while that commit is here. "+
		"To let the bot rebuild the branch on `%s` (dropping that commit), add the label `%s`; or merge or close this pull request.",
		describe(theirs), botrepo.BaseBranch, RebaseLabel)
	if err := pub.o.GitHub.Comment(ctx, pr.Number, body); err != nil {
		return err
	}
	read := rec
	rec.ForeignNoted = theirs[0].Hash
	return pub.saveRecord(ctx, read, rec)
}

// foreignCommits returns the commits at the tip of the bot branch that
// the bot did not write, newest first: a bot commit sits directly on a
// commit of main, so the walk stops at the first one of the bot's.
func foreignCommits(reader *gitstore.Repo, tip string) []gitstore.Commit {
	log, err := reader.Log(tip, gitstore.PartialDepth)
	if err != nil {
		return nil
	}
	var theirs []gitstore.Commit
	for _, cm := range log {
		if cm.AuthorEmail == botrepo.BotEmail {
			break
		}
		theirs = append(theirs, cm)
	}
	return theirs
}

func describe(commits []gitstore.Commit) string {
	var parts []string
	for _, cm := range commits {
		subject, _, _ := strings.Cut(cm.Message, "\n")
		parts = append(parts, fmt.Sprintf("%.12s (%s: %q)", cm.Hash, cm.AuthorName, subject))
	}
	if len(parts) == 1 {
		return "a commit by someone else, " + parts[0]
	}
	return fmt.Sprintf("%d commits by someone else, %s", len(parts), strings.Join(parts, ", "))
}

// Proposal lists the keys of what a bot commit proposes, sorted: one per
// change of the coverage report (report.Change.Key), one per other
// report file whose bytes differ from main's (extra, by path). Record
// keeps them.
func Proposal(changes []report.Change, extra map[string][]byte) []string {
	keys := make([]string, 0, len(changes)+len(extra))
	for _, ch := range changes {
		keys = append(keys, ch.Key())
	}
	for _, p := range slices.Sorted(maps.Keys(extra)) {
		keys = append(keys, fileKey(p, extra[p]))
	}
	slices.Sort(keys)
	return keys
}

func fileKey(path string, data []byte) string {
	sum := sha256.Sum256(data)
	return "file " + path + " " + hex.EncodeToString(sum[:])
}

// proposalIn is what a tree of the bot branch proposes against main as it
// is now, in the same keys.
func proposalIn(ctx context.Context, v *view, tree *gitstore.Tree, pages map[string][]byte) ([]string, error) {
	paths := []string{botrepo.CoverageJSON}
	for p := range pages {
		paths = append(paths, p)
	}
	docs := changeDocsIn(tree, pages)
	paths = append(paths, docs...)
	if err := tree.Fetch(ctx, paths...); err != nil {
		return nil, err
	}
	rep, err := botrepo.ReportIn(tree, botrepo.BotBranch)
	if err != nil {
		return nil, err
	}
	if rep == nil {
		return nil, nil
	}
	held := map[string][]byte{}
	for _, p := range paths[1:] {
		if data, err := fs.ReadFile(tree, p); err == nil {
			held[p] = data
		}
	}
	return Proposal(report.Diff(v.onMain, rep), differing(ctx, v.mainTree, held)), nil
}

// pages records in rep what the cache branch's state and ledgers say of
// each host, and renders the public pages (the rules, the hosts and their
// requests per week, the index page, the change feeds) from rep and the
// index the bot commit proposes: the same picture whichever runner
// renders them. The coverage report rendered with them (coverage.json and
// its Markdown) is the bot commit's own, apart: its changes are the
// proposal's keys, not files that differ.
func (pub *Publisher) pages(ctx context.Context, cache fs.FS, st *state.State, rep *report.Report, v *view, local *store.Index) (map[string][]byte, []public.File, error) {
	count := func(host, since, until string) (map[string]int, error) {
		ledgers, err := fs.Sub(cache, "ledgers")
		if err != nil {
			return nil, err
		}
		return ledger.CountDaysFS(ledgers, host, since, until)
	}
	ix, texts, err := pub.feedsInput(ctx, cache, v, local)
	if err != nil {
		return nil, nil, err
	}
	// The next editions the held pages link to: announced in the feeds,
	// listed in the body, added to the manifests.
	pub.editions = outputs.Editions(ctx, pub.o.Set, ix, texts.Held(ctx), texts)
	found := pub.editions
	if found == nil {
		found = []edition.Proposal{} // looked for, none: Render does not look again
	}
	files, err := outputs.Render(ctx, outputs.Input{
		Set: pub.o.Set, Report: rep, State: st, Count: count, Index: ix, Texts: texts,
		Blob: pub.blobLink(pub.o.Links.FileURL(botrepo.BaseBranch)), Now: pub.o.Clock.Now(),
		Editions: found,
	})
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string][]byte, len(files.Pages)+len(files.Feeds)+len(files.Site))
	for _, f := range slices.Concat(files.Pages, files.Feeds, files.Site) {
		out["reports/"+f.Name] = f.Data
	}
	edits, applied := pub.manifestEdits(ctx, v.mainTree, pub.editions)
	maps.Copy(out, edits)
	pub.editionCommits = applied
	return out, files.Coverage, nil
}

// differing returns the files whose bytes main does not hold.
func differing(ctx context.Context, mainTree *gitstore.Tree, files map[string][]byte) map[string][]byte {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	_ = mainTree.Fetch(ctx, paths...) // a failure shows as a difference below
	out := map[string][]byte{}
	for p, data := range files {
		if main, err := fs.ReadFile(mainTree, p); err != nil || string(main) != string(data) {
			out[p] = data
		}
	}
	return out
}

// botChanges is the bot commit on top of main: the hash index (main's,
// the bot branch's and this runner's, united: nothing served is ever
// dropped), every blob it names that main lacks (documents, and the bytes
// they were sent as under a Content-Encoding), and the reports: coverage
// (rep rendered) and extra.
func (pub *Publisher) botChanges(ctx context.Context, base, cache fs.FS, v *view, local *store.Index, rep *report.Report, coverage []public.File, extra map[string][]byte) ([]gitstore.Change, error) {
	mainIx, err := botrepo.IndexAt(base, botrepo.IndexJSON, botrepo.BaseBranch)
	if err != nil {
		return nil, err
	}
	onBase := botrepo.Lister(base)
	ix, err := pub.unitedIndex(ctx, mainIx, onBase, cache, v, local)
	if err != nil {
		return nil, err
	}
	var out []gitstore.Change
	var fromBranch []string // blobs only the bot branch holds
	added := map[string]bool{}
	stored := map[store.Sum]bool{} // blobs every store holds
	if pub.inStores() {
		if out, err = pub.recordChanges(ctx, ix, onBase, cache, v, stored); err != nil {
			return nil, err
		}
	}
	for _, id := range ix.IDs() {
		if pub.inStores() {
			break // the record only: recordChanges
		}
		for _, e := range ix.Entries(id) {
			// The bytes as sent, for a document that came under a
			// Content-Encoding, travel with it.
			for _, sum := range e.Blobs() {
				p := "snapshots/" + sum.Path()
				if onBase(p) || added[p] {
					continue // two sources may have served the same bytes
				}
				added[p] = true
				data, err := botrepo.ReadLocal(pub.o.Snapshots, sum)
				if errors.Is(err, fs.ErrNotExist) {
					if data, err = botrepo.PendingBlob(cache, p); err == nil {
						out = append(out, gitstore.Change{Path: p, Data: data})
						continue
					}
					fromBranch = append(fromBranch, p)
					continue
				}
				if err != nil {
					return nil, err
				}
				out = append(out, gitstore.Change{Path: p, Data: data})
			}
		}
	}
	if len(fromBranch) > 0 {
		if v.botTree == nil {
			return nil, fmt.Errorf("the hash index names %d blob(s) that neither %s, %s's pending/ nor this runner holds, e.g. %s", len(fromBranch), botrepo.BaseBranch, botrepo.CacheBranch, fromBranch[0])
		}
		if err := v.botTree.Fetch(ctx, fromBranch...); err != nil {
			return nil, err
		}
		for _, p := range fromBranch {
			data, err := fs.ReadFile(v.botTree, p)
			if err != nil {
				return nil, fmt.Errorf("the hash index names %s, which neither %s, %s nor this runner holds: %w", p, botrepo.BaseBranch, botrepo.BotBranch, err)
			}
			out = append(out, gitstore.Change{Path: p, Data: data})
		}
	}
	// The text of what each source serves now, at the source's own path,
	// for readers of the repository (a rules engine) and the pull
	// request's diff.
	texts, err := pub.textChanges(ctx, base, cache, onBase, mainIx, ix, v)
	if err != nil {
		return nil, err
	}
	out = append(out, texts...)
	// What waits under pending/ is on the server already: named, not sent,
	// so the bot branch's push carries only the reports and the index.
	if cache != nil {
		onCache := botrepo.Lister(cache)
		for i, ch := range out {
			if ch.Data != nil && strings.HasPrefix(ch.Path, "snapshots/sha256/") && onCache(botrepo.PendingPath(ch.Path)) { // named by their hash
				out[i].OnRemote = true
			}
		}
	}
	onMain, err := botrepo.ReportIn(base, botrepo.BaseBranch)
	if err != nil {
		return nil, err
	}
	inCommit := map[string]bool{}
	for _, ch := range out {
		inCommit[ch.Path] = ch.Data != nil
	}
	held := func(p string) bool {
		if stored[store.Sum(path.Base(p))] {
			return true
		}
		if data, ok := inCommit[p]; ok {
			return data // a deletion holds nothing
		}
		return onBase(p)
	}
	if err := checkRecord(mainIx, ix, onMain, rep, held); err != nil {
		return nil, err
	}
	engines := map[string][]byte{}
	for _, ch := range out {
		if strings.HasPrefix(ch.Path, botrepo.TextsDir+"/") {
			engines[ch.Path] = ch.Data
		}
	}
	textOf := func(id string) (store.Sum, bool) {
		if data, ok := engines[textview.EnginePath(botrepo.TextPath(id))]; ok {
			return botrepo.EngineFrom(data), data != nil
		}
		m, ok := mainIx.Current(id)
		return m.SHA256, ok && onBase(botrepo.TextPath(id)) // main's rule (textChanges)
	}
	if err := checkTexts(ix, textOf); err != nil {
		return nil, err
	}
	idx, err := ix.Marshal()
	if err != nil {
		return nil, err
	}
	out = append(out, gitstore.Change{Path: botrepo.IndexJSON, Data: idx})
	// coverage.json, coverage.md and the per-jurisdiction files of a
	// large report; those a smaller report no longer has are deleted.
	rendered := map[string]bool{}
	for _, f := range coverage {
		rendered[f.Name] = true
	}
	splitDir := "reports/" + report.SplitDir
	if ents, err := fs.ReadDir(base, splitDir); err == nil {
		for _, e := range ents {
			if !rendered[report.SplitDir+"/"+e.Name()] && !e.IsDir() {
				out = append(out, gitstore.Change{Path: splitDir + "/" + e.Name()})
			}
		}
	}
	for _, f := range coverage {
		out = append(out, gitstore.Change{Path: "reports/" + f.Name, Data: f.Data})
	}
	for _, p := range slices.Sorted(maps.Keys(extra)) {
		out = append(out, gitstore.Change{Path: p, Data: extra[p]})
	}
	return out, nil
}

// cacheState is the state on the cache branch's tip now, and the tip.
func (pub *Publisher) cacheState(ctx context.Context) (*state.State, fs.FS, error) {
	_, tip, err := pub.o.Cache.Read(ctx, botrepo.CacheBranch)
	if errors.Is(err, gitstore.ErrNoBranch) {
		return state.New(), emptyFS{}, nil
	}
	if err != nil {
		return nil, nil, botrepo.ExplainGit(err)
	}
	st, err := state.Decode(tip)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", botrepo.CacheBranch, err)
	}
	return st, tip, nil
}

// emptyFS is a tree with no files.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
