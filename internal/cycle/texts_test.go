package cycle

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// textFrom is the hash of the bytes a branch's text of source id says it
// is of ("" when the branch keeps none for id).
func textFrom(r *repo, branch, id string) store.Sum {
	return store.Sum(strings.TrimPrefix(lineWith(r.show(branch, textview.EnginePath(botrepo.TextPath(id))), "sha256 "), "sha256 "))
}

func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// assertTextsCurrent: every source a branch's index names has, at its one
// path, the text of the bytes it serves now (the index's current entry),
// its .engine naming them; and no text is kept under a bytes' hash.
func assertTextsCurrent(t *testing.T, r *repo, branch string) {
	t.Helper()
	textsCurrent(t, r, branch, false)
}

// textsCurrent is assertTextsCurrent, allowing, with orReason, a reason
// naming the current bytes in place of their text (held nowhere yet).
func textsCurrent(t testing.TB, r *repo, branch string, orReason bool) {
	t.Helper()
	data := r.show(branch, botrepo.IndexJSON)
	if data == "" {
		return
	}
	ix, err := store.ParseIndex([]byte(data))
	must(t, err)
	files := r.files(branch)
	for _, id := range ix.IDs() {
		e, ok := ix.Current(id)
		if !ok {
			continue
		}
		held := files[botrepo.TextPath(id)] || orReason && files[textview.ReasonPath(botrepo.TextPath(id))]
		if from := textFrom(r, branch, id); !held || from != e.SHA256 {
			t.Errorf("%s: %s's text at %s is of %.12s (held: %v), want the bytes it serves now, %.12s", branch, id, botrepo.TextPath(id), from, files[botrepo.TextPath(id)], e.SHA256)
		}
	}
	for p := range files {
		if strings.HasPrefix(p, "snapshots/text/") && strings.Count(p, "/") > 3 {
			t.Errorf("%s keeps a text under its bytes' hash: %s", branch, p)
		}
	}
}

// TestEachSourcesTextIsOneFile: main keeps each source's text at one path;
// a new version rewrites it, so the pull request shows it as a change of
// that one file and main's history of it is the document's; a source
// going back to earlier bytes gets their text back; two sources serving
// the same bytes each have their file.
func TestEachSourcesTextIsOneFile(t *testing.T) {
	t.Parallel()
	for _, inStores := range []bool{false, true} {
		t.Run(fmt.Sprint("stores=", inStores), func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "t-a", "t-b")
			if inStores {
				withStores(t, r, nil)
			}
			r.docs["t-a"], r.docs["t-b"] = "the same table\n", "the same table\n"
			r.cycle()
			assertTextsCurrent(t, r, botrepo.BotBranch)
			a, b := r.show(botrepo.BotBranch, botrepo.TextPath("t-a")), r.show(botrepo.BotBranch, botrepo.TextPath("t-b"))
			if !strings.Contains(a, "the same table") || a != b {
				t.Errorf("two sources of the same bytes: t-a's text %q, t-b's %q; want the same text in each", a, b)
			}
			r.squashMerge(1)
			first := textFrom(r, botrepo.BaseBranch, "t-a")

			r.docs["t-a"] = "the same table\nwith a new row\n"
			r.cycle()
			assertTextsCurrent(t, r, botrepo.BotBranch)
			status := r.git.Git(t, repoName, "diff", "--name-status", "main", botrepo.BotBranch, "--", "snapshots/text/")
			want := []string{"M\t" + textview.EnginePath(botrepo.TextPath("t-a")), "M\t" + botrepo.TextPath("t-a")}
			if got := strings.Split(status, "\n"); !slices.Equal(got, want) {
				t.Errorf("the pull request changes the texts\n%s\nwant t-a's text and engine changed in place:\n%s", status, strings.Join(want, "\n"))
			}
			if diff := r.git.Git(t, repoName, "diff", "main", botrepo.BotBranch, "--", botrepo.TextPath("t-a")); !strings.Contains(diff, "\n+the same table with a new row") {
				t.Errorf("git's diff of t-a's text does not show the new row:\n%s", diff)
			}
			if body := r.gh.PRs()[1].Body; !strings.Contains(body, "with a new row") || !strings.Contains(body, botrepo.TextPath("t-a")) {
				t.Errorf("the pull request's body does not show t-a's text diff and file:\n%s", body)
			}
			r.squashMerge(2)

			r.docs["t-a"] = "the same table\n" // back to the first version
			r.cycle()
			assertTextsCurrent(t, r, botrepo.BotBranch)
			if got := textFrom(r, botrepo.BotBranch, "t-a"); got != first {
				t.Errorf("t-a back to its first bytes: its text is of %.12s, want %.12s", got, first)
			}
			// The feed's entries compare texts main's tree no longer holds
			// (the second version's): read from the bytes, wherever they are.
			if feed := r.show(botrepo.BotBranch, "reports/feeds/sources/t-a.atom"); strings.Contains(feed, "No text diff") || strings.Count(feed, "with a new row") < 2 {
				t.Errorf("t-a's feed does not show both changes' diffs:\n%s", feed)
			}
			r.squashMerge(3)
			assertTextsCurrent(t, r, botrepo.BaseBranch)
			log := r.git.Git(t, repoName, "log", "--format=%s", "main", "--", botrepo.TextPath("t-a"))
			if n := len(strings.Split(log, "\n")); n != 3 {
				t.Errorf("main's history of t-a's text has %d commits, want its three versions:\n%s", n, log)
			}
			assertHeld(t, r)
		})
	}
}

// TestATextSupersededWhilePendingLeaves: a version's text waits on the
// cache branch until main holds it at its source's path; a source that
// moves on to other bytes before then leaves only the newer text waiting;
// once main holds it, pending/ keeps no text.
func TestATextSupersededWhilePendingLeaves(t *testing.T) {
	t.Parallel()
	for _, inStores := range []bool{false, true} {
		t.Run(fmt.Sprint("stores=", inStores), func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, "t-a")
			if inStores {
				withStores(t, r, nil)
			}
			r.cycle()
			r.squashMerge(1)
			pendingTexts := func() []store.Sum {
				var out []store.Sum
				for p := range r.files(botrepo.CacheBranch) {
					if name, ok := strings.CutSuffix(p, ".txt"); ok && strings.HasPrefix(p, botrepo.PendingDir+"/text/") {
						out = append(out, store.Sum(name[strings.LastIndex(name, "/")+1:]))
					}
				}
				return out
			}
			r.cycle()
			if got := pendingTexts(); len(got) != 0 {
				t.Errorf("the day after the merge pending/ keeps texts %v", got)
			}
			r.docs["t-a"] = "t-a, edition 2"
			r.cycle()
			second := sumOf([]byte(r.docs["t-a"]))
			if got := pendingTexts(); !slices.Equal(got, []store.Sum{second}) {
				t.Errorf("edition 2 not merged: pending/ keeps texts %v, want edition 2's %.12s", got, second)
			}
			r.docs["t-a"] = "t-a, edition 3"
			r.cycle()
			third := sumOf([]byte(r.docs["t-a"]))
			if got := pendingTexts(); !slices.Equal(got, []store.Sum{third}) {
				t.Errorf("edition 3 superseded edition 2: pending/ keeps texts %v, want edition 3's %.12s only", got, third)
			}
			assertTextsCurrent(t, r, botrepo.BotBranch)
			r.squashMerge(2)
			r.cycle()
			if got := pendingTexts(); len(got) != 0 {
				t.Errorf("main holds edition 3's text: pending/ still keeps %v", got)
			}
			assertTextsCurrent(t, r, botrepo.BaseBranch)
		})
	}
}

// TestMainsHashNamedTextsMoveToTheirSources: a repository whose main keeps
// its texts named by their bytes' hash (the layout before) gets them
// moved by the bot's next pull request, on a day with nothing new: each
// source's text written at its path, the hash-named folders deleted.
func TestMainsHashNamedTextsMoveToTheirSources(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	r.cycle()
	r.squashMerge(1)
	// main as an older bot kept it: every text under its bytes' hash.
	work := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", work, "-c", "user.name=Maintainer", "-c", "user.email=m@example.com"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("clone", "--quiet", "--branch", "main", r.git.Dir(repoName), ".")
	legacy := map[string]string{}
	for _, id := range []string{"t-a", "t-b"} {
		sum := sumOf([]byte(r.docs[id]))
		hashed, err := textview.TextPath("snapshots", string(sum))
		must(t, err)
		for i, f := range botrepo.TextFiles(botrepo.TextPath(id)) {
			data, err := os.ReadFile(filepath.Join(work, f))
			if i == 1 {
				continue // no reason
			}
			must(t, err)
			if i == 2 {
				data = []byte(strings.SplitAfter(string(data), "\n")[0]) // the engine alone, as it was
			}
			to := botrepo.TextFiles(filepath.ToSlash(hashed))[i]
			must(t, os.MkdirAll(filepath.Join(work, filepath.Dir(to)), 0o755))
			must(t, os.WriteFile(filepath.Join(work, to), data, 0o644))
			legacy[to] = string(data)
		}
	}
	git("rm", "-q", "-r", botrepo.TextsDir+"/t-a.txt", botrepo.TextsDir+"/t-a.engine", botrepo.TextsDir+"/t-b.txt", botrepo.TextsDir+"/t-b.engine")
	git("add", "-A")
	git("commit", "-q", "-m", "texts as they were kept before")
	git("push", "-q", "origin", "main")
	if files := r.files(botrepo.BaseBranch); files[botrepo.TextPath("t-a")] || !files[slices.Sorted(func(yield func(string) bool) {
		for p := range legacy {
			if !yield(p) {
				return
			}
		}
	})[0]] {
		t.Fatal("main was not put in the older layout")
	}

	r.cycle() // nothing fetched changed: the move alone is proposed
	prs := r.gh.PRs()
	if len(prs) != 2 || prs[1].State != "open" {
		t.Fatalf("pull requests %+v, want #2 open to move main's texts", prs)
	}
	assertTextsCurrent(t, r, botrepo.BotBranch)
	for id, want := range map[string]string{"t-a": r.docs["t-a"], "t-b": r.docs["t-b"]} {
		if got := r.show(botrepo.BotBranch, botrepo.TextPath(id)); !strings.Contains(got, strings.TrimSpace(want)) {
			t.Errorf("%s's text at its path: %q, want its document's text", id, got)
		}
	}
	tip := r.tip(botrepo.BotBranch)
	r.cycle()
	if r.tip(botrepo.BotBranch) != tip {
		t.Error("a day with nothing new moved the bot branch that already moves the texts")
	}
	r.squashMerge(2)
	assertTextsCurrent(t, r, botrepo.BaseBranch)
	r.cycle()
	if prs := r.gh.PRs(); len(prs) != 2 {
		t.Errorf("after the move was merged, a pull request opened again: %+v", prs[len(prs)-1])
	}
}

// loadCounting counts, per hash, the blobs a store is asked to load.
type loadCounting struct {
	blobs.Backend
	mu    *sync.Mutex
	loads map[store.Sum]int
}

func (c loadCounting) Load(ctx context.Context, sum store.Sum) (io.ReadCloser, error) {
	c.mu.Lock()
	c.loads[sum]++
	c.mu.Unlock()
	return c.Backend.Load(ctx, sum)
}

// URL keeps the release assets' links in the pull request and the pages.
func (c loadCounting) URL(ctx context.Context, sum store.Sum) (string, error) {
	if l, ok := c.Backend.(blobs.Linker); ok {
		return l.URL(ctx, sum)
	}
	return "", nil
}

// TestOlderTextsStayOnTheCacheBranch: with the bytes in stores, main's
// tree keeps only each source's current text, while a source's feed
// compares its older versions too. A text that leaves pending/ is kept on
// the cache branch under blobs/, so a fresh runner reads the older text
// there and downloads no bytes from the stores to derive it again.
func TestOlderTextsStayOnTheCacheBranch(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a")
	withStores(t, r, nil)
	var mu sync.Mutex
	loads := map[store.Sum]int{}
	stores := r.stores
	r.stores = func(clk clock.Clock) blobs.Stores {
		ss := stores(clk)
		for i := range ss {
			ss[i] = loadCounting{ss[i], &mu, loads}
		}
		return ss
	}
	r.docs["t-a"] = "a table\n"
	first := sumOf([]byte(r.docs["t-a"]))
	r.cycle()
	r.squashMerge(1)
	r.docs["t-a"] = "a table\nwith a second row\n"
	r.cycle()
	r.squashMerge(2)
	r.cycle() // main holds the second text: it leaves pending/
	kept := botrepo.CacheTextFiles(first)
	if files := r.files(botrepo.CacheBranch); !files[kept[0]] || !files[kept[2]] {
		t.Fatalf("the cache branch does not keep the first version's text at %s once it left pending/", kept[0])
	}
	r.docs["t-a"] = "a table\nwith a second row\nand a third\n"
	clear(loads)
	r.cycle()
	// The feed shows the first change's diff: the first version's text,
	// in neither main's tree, the runner's store nor pending/.
	if feed := r.show(botrepo.BotBranch, "reports/feeds/sources/t-a.atom"); strings.Contains(feed, "No text diff") || !strings.Contains(feed, "-a table&#xA;") || !strings.Contains(feed, "a table with a second row and a third&#xA;") {
		t.Errorf("t-a's feed does not show both changes' diffs:\n%s", feed)
	}
	if n := loads[first]; n != 0 {
		t.Errorf("the stores were asked %d time(s) for the first version's bytes, whose text the cache branch keeps", n)
	}
	assertTextsCurrent(t, r, botrepo.BotBranch)
	assertHeld(t, r)
}

// TestTextsOfAnotherVersionAreDerivedAgain: main keeps texts another
// extractor version derived (snapshots/text/<older>/<id>.txt). The bot's
// next pull request deletes that folder and writes each source's text of
// this version, derived again from the bytes where the runner did not
// fetch them this run (a source that is gone), not a reason saying it is
// held nowhere.
func TestTextsOfAnotherVersionAreDerivedAgain(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b")
	withStores(t, r, nil)
	r.cycle()
	r.squashMerge(1)
	r.cycle() // main holds the texts: none waits under pending/
	const older = "snapshots/" + textview.TextDir + "/v2"
	work := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", work, "-c", "user.name=Maintainer", "-c", "user.email=m@example.com"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("clone", "--quiet", "--branch", "main", r.git.Dir(repoName), ".")
	git("mv", botrepo.TextsDir, older)
	git("commit", "-q", "-m", "texts as an older extractor left them")
	git("push", "-q", "origin", "main")

	tb := r.docs["t-b"]
	r.docs["t-b"] = "" // gone: this run holds neither its bytes nor its text
	r.cycle()
	files := r.files(botrepo.BotBranch)
	for p := range files {
		if strings.HasPrefix(p, older+"/") {
			t.Errorf("the bot branch keeps %s, a text of another version", p)
		}
	}
	if got := r.show(botrepo.BotBranch, botrepo.TextPath("t-b")); !strings.Contains(got, strings.TrimSpace(tb)) || files[textview.ReasonPath(botrepo.TextPath("t-b"))] {
		t.Errorf("t-b's text of this version: %q (a reason: %t); want its bytes' text, derived again", got, files[textview.ReasonPath(botrepo.TextPath("t-b"))])
	}
	assertTextsCurrent(t, r, botrepo.BotBranch)
}
