package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taxkernel/taxkernelbot/internal/gitstore/gittest"
)

const (
	user   = "x-access-token"
	pass   = "s3cret"
	branch = "fetch-cache"
	ref    = "refs/heads/" + branch
	repoNm = "cache.git"
	ledger = "ledgers/2026-11-29/www.gov.uk.jsonl"
)

type fixture struct {
	srv *gittest.Server
	url string
}

func newFixture(t testing.TB) *fixture {
	srv := gittest.New(t, user, pass)
	return &fixture{srv: srv, url: srv.NewRepo(t, repoNm)}
}

func (f *fixture) remote() Remote { return Remote{URL: f.url, Username: user, Password: pass} }

func (f *fixture) open(t testing.TB) *Repo {
	t.Helper()
	r, err := memoryRepo(f.remote())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fixture) git(t testing.TB, args ...string) string {
	t.Helper()
	return f.srv.Git(t, repoNm, args...)
}

// lines returns the lines of the file at rev:path on the server.
func (f *fixture) lines(t testing.TB, rev, path string) []string {
	t.Helper()
	return strings.Split(f.git(t, "show", rev+":"+path), "\n")
}

// history returns the commits of the branch, newest first, and fails unless
// each has exactly one parent, the next one (the oldest: none).
func (f *fixture) history(t testing.TB) []string {
	t.Helper()
	var commits []string
	rows := strings.Split(f.git(t, "rev-list", "--topo-order", "--parents", ref), "\n")
	for i, row := range rows {
		fields := strings.Fields(row)
		commits = append(commits, fields[0])
		want := 2
		if i == len(rows)-1 {
			want = 1
		}
		if len(fields) != want || (want == 2 && fields[1] != strings.Fields(rows[i+1])[0]) {
			t.Fatalf("history is not linear at %q:\n%s", row, strings.Join(rows, "\n"))
		}
	}
	return commits
}

// ancestor reports whether a is an ancestor of (or equal to) b on the server.
func (f *fixture) ancestor(a, b string) bool {
	_, err := f.srv.Run(repoNm, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func sig(minute int) Signature {
	return Signature{Name: "TaxKernelBot", Email: "bot@taxkernel.com", When: t0.Add(time.Duration(minute) * time.Minute)}
}

// appendLines is the union of ledger lines, the Edit that publishing a host
// ledger needs: it appends to the JSONL file at path the lines the tip does
// not hold yet, in order, and changes nothing when it holds them all. Being a
// pure function of the tip and of lines, it can be applied again on whatever
// tip a concurrent writer left.
func appendLines(path string, lines ...string) Edit {
	return func(tip fs.FS) ([]Change, error) {
		data, err := fs.ReadFile(tip, path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		have := map[string]bool{}
		for l := range strings.Lines(string(data)) {
			have[strings.TrimSuffix(l, "\n")] = true
		}
		out := bytes.Clone(data)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		added := false
		for _, l := range lines {
			if !have[l] {
				out = append(out, l+"\n"...)
				have[l] = true
				added = true
			}
		}
		if !added {
			return nil, nil
		}
		return []Change{{Path: path, Data: out}}, nil
	}
}

func line(n int) string {
	return fmt.Sprintf(`{"event":"dispatch","n":%d,"url":"https://www.gov.uk/income-tax-rates"}`, n)
}

// openMemory opens a Repo of rem in memory.
func openMemory(t testing.TB, rem Remote) *Repo {
	t.Helper()
	r, err := memoryRepo(rem)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustUpdate(t testing.TB, r *Repo, minute int, edit Edit) string {
	t.Helper()
	tip, err := r.Update(t.Context(), branch, fmt.Sprintf("ledgers: update %d", minute), sig(minute), edit, 3)
	if err != nil {
		t.Fatal(err)
	}
	return tip
}

func TestUpdateCreatesOrphanBranch(t *testing.T) {
	f := newFixture(t)
	mainTip := f.srv.Commit(t, repoNm, "main", "README", map[string][]byte{"README.md": []byte("TaxKernelBot\n")})

	tip := mustUpdate(t, f.open(t), 0, appendLines(ledger, line(1), line(2)))

	if got := f.git(t, "rev-parse", ref); got != tip {
		t.Fatalf("branch at %s, Update returned %s", got, tip)
	}
	if got := f.git(t, "rev-list", "--parents", ref); got != tip {
		t.Errorf("rev-list --parents = %q, want the single commit %s with no parent (an orphan)", got, tip)
	}
	if got := f.git(t, "rev-parse", "refs/heads/main"); got != mainTip {
		t.Errorf("main moved: %s, was %s", got, mainTip)
	}
	if _, err := f.srv.Run(repoNm, "merge-base", "main", branch); err == nil {
		t.Error("fetch-cache shares history with main")
	}
	if diff := cmp.Diff([]string{line(1), line(2)}, f.lines(t, tip, ledger)); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
	if got := f.git(t, "ls-tree", "-r", "--name-only", tip); got != ledger {
		t.Errorf("files = %q, want only %s", got, ledger)
	}
	want := "TaxKernelBot <bot@taxkernel.com> 1795946400 +0000|TaxKernelBot <bot@taxkernel.com> 1795946400 +0000|ledgers: update 0"
	if got := f.git(t, "log", "-1", "--format=%an <%ae> %ad|%cn <%ce> %cd|%B", "--date=raw", tip); strings.TrimSpace(got) != want {
		t.Errorf("commit = %q, want %q", got, want)
	}
	f.git(t, "fsck", "--strict", "--no-dangling")
	if rl := f.srv.RefLog(t, repoNm, ref); len(rl) != 1 || rl[0].Old != strings.Repeat("0", 40) || rl[0].New != tip {
		t.Errorf("reflog = %v, want one creation of %s", rl, tip)
	}
}

func TestSecondUpdateHasFirstAsParent(t *testing.T) {
	f := newFixture(t)
	r := f.open(t)
	first := mustUpdate(t, r, 0, appendLines(ledger, line(1)))
	second := mustUpdate(t, r, 1, appendLines(ledger, line(2)))
	if got := f.git(t, "rev-list", "--parents", "-1", ref); got != second+" "+first {
		t.Errorf("tip commit and parents = %q, want %q", got, second+" "+first)
	}
	if diff := cmp.Diff([]string{second, first}, f.history(t)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{line(1), line(2)}, f.lines(t, second, ledger)); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
	// A third Update from a fresh Repo (a new run) builds on the second.
	third := mustUpdate(t, f.open(t), 2, appendLines("state/backoff.json", "{}"))
	if got := f.git(t, "rev-parse", third+"^"); got != second {
		t.Errorf("parent of the third commit = %s, want %s", got, second)
	}
	f.git(t, "fsck", "--strict", "--no-dangling")
}

func TestNoOpUpdateMakesNoCommit(t *testing.T) {
	f := newFixture(t)
	r := f.open(t)

	// Nothing to write on a missing branch: no branch is created.
	tip, err := r.Update(t.Context(), branch, "nothing", sig(0), func(fs.FS) ([]Change, error) { return nil, nil }, 3)
	if err != nil || tip != "" {
		t.Fatalf("Update = %q, %v; want \"\", nil", tip, err)
	}
	if _, err := f.srv.Run(repoNm, "rev-parse", "--verify", ref); err == nil {
		t.Fatal("an empty Update created the branch")
	}

	first := mustUpdate(t, r, 1, appendLines(ledger, line(1)))
	pushes := f.srv.Pushes(repoNm)
	for name, edit := range map[string]Edit{
		"no changes":        func(fs.FS) ([]Change, error) { return nil, nil },
		"lines already in":  appendLines(ledger, line(1)),
		"same bytes":        func(fs.FS) ([]Change, error) { return []Change{{Path: ledger, Data: []byte(line(1) + "\n")}}, nil },
		"delete the absent": func(fs.FS) ([]Change, error) { return []Change{{Path: "state/none.json"}}, nil },
	} {
		for _, repo := range []*Repo{r, f.open(t)} {
			tip, err := repo.Update(t.Context(), branch, name, sig(2), edit, 3)
			if err != nil || tip != first {
				t.Errorf("%s: Update = %q, %v; want the unchanged tip %s", name, tip, err, first)
			}
		}
	}
	if got := f.srv.Pushes(repoNm); got != pushes {
		t.Errorf("no-op Updates made %d push requests", got-pushes)
	}
	if got := f.git(t, "rev-list", "--count", ref); got != "1" {
		t.Errorf("%s commits, want 1", got)
	}
}

func TestWrongCredentials(t *testing.T) {
	f := newFixture(t)
	for name, rem := range map[string]Remote{
		"wrong password": {URL: f.url, Username: user, Password: "not-the-password"},
		"no credentials": {URL: f.url},
	} {
		t.Run(name, func(t *testing.T) {
			called := false
			_, err := openMemory(t, rem).Update(t.Context(), branch, "ledgers", sig(0), func(tip fs.FS) ([]Change, error) {
				called = true
				return appendLines(ledger, line(1))(tip)
			}, 3)
			if !errors.Is(err, ErrAuth) {
				t.Fatalf("err = %v, want ErrAuth", err)
			}
			for _, want := range []string{f.url, `"fetch-cache"`, "401", "missing, wrong or expired"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "not-the-password") {
				t.Errorf("error %q shows the password", err)
			}
			if called {
				t.Error("Edit was called without a tip")
			}
			if _, _, err := openMemory(t, rem).Read(t.Context(), branch); !errors.Is(err, ErrAuth) {
				t.Errorf("Read: err = %v, want ErrAuth", err)
			}
		})
	}
	if n := f.srv.Pushes(repoNm); n != 0 {
		t.Errorf("%d push requests reached git", n)
	}
	if _, err := f.srv.Run(repoNm, "rev-parse", "--verify", ref); err == nil {
		t.Error("the branch exists")
	}
}

// TestRaceReappliesEditOnNewestTip: A and B both read the same tip; B pushes
// first (from inside A's Edit, so the order is certain); A's push, which
// expects the old tip, is refused; A fetches B's commit, applies its Edit
// again on it, and pushes on top of it.
func TestRaceReappliesEditOnNewestTip(t *testing.T) {
	f := newFixture(t)
	base := mustUpdate(t, f.open(t), 0, appendLines(ledger, line(1)))
	a, b := f.open(t), f.open(t)
	for _, r := range []*Repo{a, b} {
		if tip, _, err := r.Read(t.Context(), branch); err != nil || tip != base {
			t.Fatalf("Read = %s, %v; want %s", tip, err, base)
		}
	}

	var seen []string // the tip each call of A's Edit saw
	var tipB string
	editA := func(tip fs.FS) ([]Change, error) {
		data, _ := fs.ReadFile(tip, ledger)
		seen = append(seen, string(data))
		if len(seen) == 1 {
			tipB = mustUpdate(t, b, 1, appendLines(ledger, line(2)))
		}
		return appendLines(ledger, line(3))(tip)
	}
	tipA := mustUpdate(t, a, 2, editA)

	want := []string{line(1) + "\n", line(1) + "\n" + line(2) + "\n"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("A's Edit saw (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{tipA, tipB, base}, f.history(t)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{line(1), line(2), line(3)}, f.lines(t, ref, ledger)); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
	f.git(t, "fsck", "--strict", "--no-dangling")
}

// TestServerRefusesStalePush makes the competing update land after A has read
// the refs for its push and before git processes it, so that it is git's
// receive-pack, checking the expected old value under its ref lock, that
// refuses A's push — for an update and for the creation of the branch.
func TestServerRefusesStalePush(t *testing.T) {
	for _, create := range []bool{false, true} {
		t.Run(fmt.Sprintf("create=%v", create), func(t *testing.T) {
			f := newFixture(t)
			var base string
			if !create {
				base = mustUpdate(t, f.open(t), 0, appendLines(ledger, line(1)))
			}
			a, b := f.open(t), f.open(t)
			var fired atomic.Bool
			var tipB string
			f.srv.BeforeReceivePack(func(string) {
				if fired.CompareAndSwap(false, true) { // B's own push then goes through
					tipB = mustUpdate(t, b, 1, appendLines(ledger, line(2)))
				}
			})
			pushes := f.srv.Pushes(repoNm)
			calls := 0
			tipA := mustUpdate(t, a, 2, func(tip fs.FS) ([]Change, error) {
				calls++
				return appendLines(ledger, line(3))(tip)
			})
			f.srv.BeforeReceivePack(nil)

			if got := f.srv.Pushes(repoNm) - pushes; got != 3 {
				t.Errorf("%d push requests, want 3 (A refused, B, A again)", got)
			}
			if calls != 2 {
				t.Errorf("A's Edit ran %d times, want 2", calls)
			}
			want := []string{tipA, tipB}
			lines := []string{line(2), line(3)}
			if !create {
				want = append(want, base)
				lines = append([]string{line(1)}, lines...)
			}
			if diff := cmp.Diff(want, f.history(t)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(lines, f.lines(t, ref, ledger)); diff != "" {
				t.Errorf("ledger (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAttemptsExhausted: every one of A's pushes is overtaken by one of B's.
// A gives up with ErrRejected after its attempts, having never forced: all of
// B's commits are still in the branch, and the branch only moved forward.
func TestAttemptsExhausted(t *testing.T) {
	f := newFixture(t)
	base := mustUpdate(t, f.open(t), 0, appendLines(ledger, line(1)))
	a, b := f.open(t), f.open(t)
	var mu sync.Mutex
	inB := false
	var tipsB []string
	f.srv.BeforeReceivePack(func(string) {
		mu.Lock()
		defer mu.Unlock()
		if inB { // B's own push goes through
			return
		}
		inB = true
		mu.Unlock()
		tip := mustUpdate(t, b, 10+len(tipsB), appendLines(ledger, line(10+len(tipsB))))
		mu.Lock()
		inB = false
		tipsB = append(tipsB, tip)
	})
	calls := 0
	tip, err := a.Update(t.Context(), branch, "A", sig(1), func(tip fs.FS) ([]Change, error) {
		calls++
		return appendLines(ledger, line(2))(tip)
	}, 3)
	f.srv.BeforeReceivePack(nil)

	if !errors.Is(err, ErrRejected) || tip != "" {
		t.Fatalf("Update = %q, %v; want ErrRejected", tip, err)
	}
	for _, want := range []string{f.url, `"fetch-cache"`, "3 times", "run the update again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if calls != 3 || len(tipsB) != 3 {
		t.Fatalf("A's Edit ran %d times and B pushed %d times, want 3 and 3", calls, len(tipsB))
	}
	if n := f.srv.Pushes(repoNm); n != 1+3+3 {
		t.Errorf("%d push requests, want 7: the base, B's 3 and A's 3 refused ones", n)
	}
	want := append(slices.Clone(tipsB), base)
	slices.Reverse(want[:3])
	if diff := cmp.Diff(want, f.history(t)); diff != "" {
		t.Errorf("history (-want +got): B's commits must all be there, A's none:\n%s", diff)
	}
	for _, l := range f.lines(t, ref, ledger) {
		if l == line(2) {
			t.Error("A's line reached the branch")
		}
	}
	checkReflog(t, f)
}

// checkReflog: every value the branch took on the server descends from the
// previous one, the first is a creation, and they chain.
func checkReflog(t *testing.T, f *fixture) {
	t.Helper()
	prev := strings.Repeat("0", 40)
	for i, u := range f.srv.RefLog(t, repoNm, ref) {
		if u.Old != prev {
			t.Errorf("reflog %d: %s → %s, but the branch was at %s", i, u.Old, u.New, prev)
		}
		if i > 0 && !f.ancestor(u.Old, u.New) {
			t.Errorf("reflog %d: %s → %s rewinds the branch (force push)", i, u.Old, u.New)
		}
		prev = u.New
	}
}

// TestBranchNeverRewound runs writers that keep overtaking each other and
// checks that each tip an Update returned descends from the previous one, and
// so does each value the branch took on the server.
func TestBranchNeverRewound(t *testing.T) {
	f := newFixture(t)
	repos := []*Repo{f.open(t), f.open(t), f.open(t)}
	var tips []string
	for round := range 6 {
		r, other := repos[round%3], repos[(round+1)%3]
		overtaken := round%2 == 1 // overtake r in even rounds, once
		tip := mustUpdate(t, r, 2*round+1, func(tip fs.FS) ([]Change, error) {
			if !overtaken {
				overtaken = true
				tips = append(tips, mustUpdate(t, other, 2*round, appendLines(ledger, line(round))))
			}
			return appendLines(fmt.Sprintf("ledgers/2026-11-%02d/h.jsonl", round+1), line(round))(tip)
		})
		tips = append(tips, tip)
	}
	for i := 1; i < len(tips); i++ {
		if !f.ancestor(tips[i-1], tips[i]) {
			t.Errorf("tip %d (%s) does not descend from tip %d (%s)", i, tips[i], i-1, tips[i-1])
		}
	}
	hist := f.history(t)
	if len(hist) != len(tips) || hist[0] != tips[len(tips)-1] {
		t.Errorf("%d commits in the branch, %d tips returned: a commit was lost", len(hist), len(tips))
	}
	if rl := f.srv.RefLog(t, repoNm, ref); len(rl) != len(tips) {
		t.Errorf("the branch moved %d times, %d Updates", len(rl), len(tips))
	}
	checkReflog(t, f)
}

func TestRead(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{
		"ledgers/2026-11-28/www.gov.uk.jsonl":       line(1) + "\n",
		"ledgers/2026-11-29/www.gov.uk.jsonl":       line(2) + "\n",
		"ledgers/2026-11-29/example.gov_8443.jsonl": line(3) + "\n",
		"state/state.json":                          `{"version":1}`,
		"state/robots/www.gov.uk.txt":               "User-agent: *\nDisallow: /private/\n",
		"state/robots/deep/er/x.txt":                "x",
		"README":                                    "cache branch\n",
	}
	mustUpdate(t, f.open(t), 0, func(fs.FS) ([]Change, error) {
		var cs []Change
		for p, d := range files {
			cs = append(cs, Change{Path: p, Data: []byte(d)})
		}
		return cs, nil
	})

	tip, tree, err := f.open(t).Read(t.Context(), branch)
	if err != nil || tip != f.git(t, "rev-parse", ref) {
		t.Fatalf("Read = %s, %v", tip, err)
	}
	var names []string
	for p := range files {
		names = append(names, p)
	}
	if err := fstest.TestFS(tree, names...); err != nil {
		t.Error(err)
	}
	for p, want := range files {
		if got, err := fs.ReadFile(tree, p); err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", p, got, err, want)
		}
	}
	if _, err := fs.ReadFile(tree, "state/missing.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v, want fs.ErrNotExist", err)
	}
	if _, err := fs.ReadFile(tree, "README/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("path under a file: err = %v, want fs.ErrNotExist", err)
	}
	days, err := fs.ReadDir(tree, "ledgers")
	if err != nil || len(days) != 2 || days[0].Name() != "2026-11-28" || !days[0].IsDir() {
		t.Errorf("ReadDir(ledgers) = %v, %v", days, err)
	}

	if tip, tree, err := f.open(t).Read(t.Context(), "no-such-branch"); !errors.Is(err, ErrNoBranch) || tip != "" || tree != nil {
		t.Errorf("Read of a missing branch = %q, %v, %v; want ErrNoBranch", tip, tree, err)
	}
	empty := gittest.New(t, user, pass)
	if _, _, err := openMemory(t, Remote{URL: empty.NewRepo(t, "empty.git"), Username: user, Password: pass}).Read(t.Context(), branch); !errors.Is(err, ErrNoBranch) {
		t.Errorf("Read of an empty repository: err = %v, want ErrNoBranch", err)
	}
}

// TestTreeOrderAndDeletes: git sorts a directory as if its name ended with
// "/"; the server checks every object it receives (receive.fsckObjects), so a
// misordered tree would be refused.
func TestTreeOrderAndDeletes(t *testing.T) {
	f := newFixture(t)
	r := f.open(t)
	set := func(minute int, cs ...Change) string {
		return mustUpdate(t, r, minute, func(fs.FS) ([]Change, error) { return cs, nil })
	}
	c := func(p string) Change { return Change{Path: p, Data: []byte(p)} }
	set(0, c("foo/x"), c("foo.txt"), c("foo-bar"), c("foo0"), c("a/b/c"), c("a/b.txt"), c("z"))
	if got, want := f.git(t, "ls-tree", "--name-only", ref), "a\nfoo-bar\nfoo.txt\nfoo\nfoo0\nz"; got != want {
		t.Errorf("root entries:\n%s\nwant:\n%s", got, want)
	}
	f.git(t, "fsck", "--strict", "--no-dangling")

	set(1, Change{Path: "a/b/c"}, Change{Path: "foo"}, c("foo.txt/../x/y"[0:7]+"2"))
	if got, want := f.git(t, "ls-tree", "-r", "--name-only", ref), "a/b.txt\nfoo-bar\nfoo.txt\nfoo.txt2\nfoo0\nz"; got != want {
		t.Errorf("files after deletes:\n%s\nwant:\n%s", got, want)
	}
	set(2, Change{Path: "a"}, Change{Path: "foo-bar"}, Change{Path: "foo.txt"}, Change{Path: "foo.txt2"}, Change{Path: "foo0"}, Change{Path: "z"})
	if got := f.git(t, "ls-tree", "-r", ref); got != "" {
		t.Errorf("after deleting everything: %q", got)
	}
	if got := f.git(t, "rev-parse", ref+"^{tree}"); got != emptyTree.String() {
		t.Errorf("tree = %s, want the empty tree", got)
	}
	f.git(t, "fsck", "--strict", "--no-dangling")
	f.history(t)
}

func TestInvalidChanges(t *testing.T) {
	f := newFixture(t)
	r := f.open(t)
	mustUpdate(t, r, 0, func(fs.FS) ([]Change, error) {
		return []Change{{Path: "dir/file", Data: []byte("x")}, {Path: "file", Data: []byte("y")}}, nil
	})
	pushes := f.srv.Pushes(repoNm)
	errEdit := errors.New("ledger unreadable")
	for name, tc := range map[string]struct {
		edit Edit
		want string
	}{
		"dot-dot":        {edit: changes(Change{Path: "../x", Data: []byte{}}), want: "invalid path"},
		"absolute":       {edit: changes(Change{Path: "/x", Data: []byte{}}), want: "invalid path"},
		"double slash":   {edit: changes(Change{Path: "a//x", Data: []byte{}}), want: "invalid path"},
		"dot git":        {edit: changes(Change{Path: "a/.GIT/config", Data: []byte{}}), want: ".git"},
		"twice":          {edit: changes(Change{Path: "a", Data: []byte{}}, Change{Path: "a", Data: []byte{}}), want: "twice"},
		"file and below": {edit: changes(Change{Path: "a", Data: []byte{}}, Change{Path: "a/b", Data: []byte{}}), want: "conflicting"},
		"file over dir":  {edit: changes(Change{Path: "dir", Data: []byte{}}), want: "is a directory"},
		"below a file":   {edit: changes(Change{Path: "file/x", Data: []byte{}}), want: "is a file"},
		"edit fails":     {edit: func(fs.FS) ([]Change, error) { return nil, errEdit }, want: "ledger unreadable"},
	} {
		_, err := r.Update(t.Context(), branch, name, sig(1), tc.edit, 3)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one about %q", name, err, tc.want)
		}
		if name == "edit fails" && !errors.Is(err, errEdit) {
			t.Errorf("%s: err = %v does not wrap the Edit's error", name, err)
		}
	}
	if got := f.srv.Pushes(repoNm); got != pushes {
		t.Errorf("%d push requests for invalid changes", got-pushes)
	}

	for name, rem := range map[string]Remote{
		"credentials in URL": {URL: "https://x-access-token:tok@github.com/o/r.git"},
		"ssh":                {URL: "git@github.com:o/r.git"},
		"file":               {URL: "file:///tmp/r.git"},
	} {
		if _, err := memoryRepo(rem); err == nil || strings.Contains(err.Error(), "tok@") {
			t.Errorf("%s: memoryRepo err = %v", name, err)
		}
	}
	for name, s := range map[string]Signature{
		"no time":  {Name: "a", Email: "b"},
		"no email": {Name: "a", When: t0},
		"bracket":  {Name: "a<", Email: "b", When: t0},
	} {
		if _, err := r.Update(t.Context(), branch, "m", s, appendLines(ledger, "x"), 1); err == nil {
			t.Errorf("%s: Update accepted %+v", name, s)
		}
	}
	for _, b := range []string{"", "refs/heads/x", "a..b", "a b"} {
		if _, err := r.Update(t.Context(), b, "m", sig(1), appendLines(ledger, "x"), 1); err == nil {
			t.Errorf("branch %q accepted", b)
		}
	}
}

func changes(cs ...Change) Edit { return func(fs.FS) ([]Change, error) { return cs, nil } }

// TestDeterministicCommits: the same update of the same tip gives the same
// commit, wherever it is made.
func TestDeterministicCommits(t *testing.T) {
	srv := gittest.New(t, user, pass)
	var tips []string
	for _, name := range []string{"one.git", "two.git"} {
		url := srv.NewRepo(t, name)
		for i := range 2 {
			tip, err := openMemory(t, Remote{URL: url, Username: user, Password: pass}).Update(t.Context(), branch, "m", sig(i),
				appendLines(ledger, line(i)), 1)
			if err != nil {
				t.Fatal(err)
			}
			tips = append(tips, tip)
		}
	}
	if tips[0] != tips[2] || tips[1] != tips[3] {
		t.Errorf("tips %v: the same updates gave different commits", tips)
	}
}

// TestOpenKeepsObjects: a Repo on disk, reopened, knows the branch's objects
// and downloads only what others pushed since.
func TestOpenKeepsObjects(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	r, err := Open(dir, f.remote())
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, r, 0, appendLines(ledger, line(1)))
	tip := mustUpdate(t, r, 1, appendLines(ledger, line(2)))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.Fetches(repoNm); n != 0 {
		t.Errorf("%d fetches by the only writer", n)
	}

	r, err = Open(dir, f.remote())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, tree, err := r.Read(t.Context(), branch)
	if err != nil || got != tip {
		t.Fatalf("Read = %s, %v; want %s", got, err, tip)
	}
	if data, err := fs.ReadFile(tree, ledger); err != nil || string(data) != line(1)+"\n"+line(2)+"\n" {
		t.Errorf("ledger = %q, %v", data, err)
	}
	if n := f.srv.Fetches(repoNm); n != 0 {
		t.Errorf("reopened Repo fetched %d times; it holds the tip", n)
	}
	other := mustUpdate(t, f.open(t), 2, appendLines(ledger, line(3)))
	fetches := f.srv.Fetches(repoNm)
	final := mustUpdate(t, r, 3, appendLines(ledger, line(4)))
	if n := f.srv.Fetches(repoNm) - fetches; n != 1 {
		t.Errorf("%d fetches, want 1 for the other writer's commit", n)
	}
	if got := f.git(t, "rev-parse", final+"^"); got != other {
		t.Errorf("parent = %s, want %s", got, other)
	}
	if diff := cmp.Diff([]string{line(1), line(2), line(3), line(4)}, f.lines(t, ref, ledger)); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
}

// TestUpdateFromBase: a branch made from main (the bot's pull request
// branch) starts on main's tip with main's files; once it exists it builds on
// its own tip, whatever main does.
func TestUpdateFromBase(t *testing.T) {
	f := newFixture(t)
	const pr = "taxkernelbot/update"
	mainTip := f.srv.Commit(t, repoNm, "main", "main", map[string][]byte{"README.md": []byte("TaxKernelBot\n")})
	r := f.open(t)
	var saw []string
	edit := func(blob string) Edit {
		return func(tip fs.FS) ([]Change, error) {
			data, err := fs.ReadFile(tip, "README.md")
			saw = append(saw, string(data))
			if err != nil {
				return nil, err
			}
			return []Change{{Path: "snapshots/sha256/ab/" + blob, Data: []byte(blob)}}, nil
		}
	}
	first, err := r.UpdateFrom(t.Context(), pr, "main", "snapshots", sig(0), edit("ab01"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.git(t, "rev-list", "--parents", "-1", "refs/heads/"+pr); got != first+" "+mainTip {
		t.Errorf("first commit and parents = %q, want %s %s", got, first, mainTip)
	}
	newMain := f.srv.Commit(t, repoNm, "main", "main moves", map[string][]byte{"other.txt": []byte("x")})
	second, err := f.open(t).UpdateFrom(t.Context(), pr, "main", "snapshots", sig(1), edit("ab02"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.git(t, "rev-parse", second+"^"); got != first {
		t.Errorf("parent of the second commit = %s, want %s (not main's %s)", got, first, newMain)
	}
	if got, want := f.git(t, "ls-tree", "-r", "--name-only", second), "README.md\nsnapshots/sha256/ab/ab01\nsnapshots/sha256/ab/ab02"; got != want {
		t.Errorf("files:\n%s\nwant:\n%s", got, want)
	}
	if diff := cmp.Diff([]string{"TaxKernelBot\n", "TaxKernelBot\n"}, saw); diff != "" {
		t.Errorf("Edit saw (-want +got):\n%s", diff)
	}
	if got := f.git(t, "rev-parse", "refs/heads/main"); got != newMain {
		t.Errorf("main moved to %s", got)
	}
	if _, err := r.UpdateFrom(t.Context(), "other", "no-such-base", "m", sig(2), edit("ab03"), 3); !errors.Is(err, ErrNoBranch) {
		t.Errorf("missing base: err = %v, want ErrNoBranch", err)
	}
}

// TestNoFileOfAHundredMegabytes: a change with a file GitHub would refuse
// (100 MB or more) is refused before anything is pushed.
func TestNoFileOfAHundredMegabytes(t *testing.T) {
	f := newFixture(t)
	r := f.open(t)
	pushes := f.srv.Pushes(repoNm)
	_, err := r.Update(t.Context(), "fetch-cache", "big", sig(0), func(fs.FS) ([]Change, error) {
		return []Change{{Path: "pending/big", Data: make([]byte, MaxFileSize+1)}}, nil
	}, 0)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 100 MB file: %v, want ErrTooLarge", err)
	}
	if f.srv.Pushes(repoNm) != pushes {
		t.Error("a push was sent")
	}
}

// TestOnRemoteIsNamedNotSent: a file the remote already holds on another
// branch is named by the commit without being sent: the push is small, the
// server (which checks that every object is there) accepts it, and the
// file reads back whole. One the remote lacks is refused by the server.
func TestOnRemoteIsNamedNotSent(t *testing.T) {
	f := newFixture(t)
	r := f.open(t)
	big := bytesOf(1<<20, 7)
	if _, err := r.Update(t.Context(), "fetch-cache", "the blob", sig(0), func(fs.FS) ([]Change, error) {
		return []Change{{Path: "pending/sha256/ab/blob", Data: big}}, nil
	}, 0); err != nil {
		t.Fatal(err)
	}
	f.srv.Commit(t, repoNm, "main", "start", map[string][]byte{"README.md": []byte("x\n")})
	other := f.open(t)
	if _, err := other.UpdateFrom(t.Context(), "update", "main", "named", sig(1), func(fs.FS) ([]Change, error) {
		return []Change{{Path: "snapshots/sha256/ab/blob", Data: big, OnRemote: true}}, nil
	}, 0); err != nil {
		t.Fatalf("a commit naming a blob the server holds: %v", err)
	}
	if got, err := f.srv.Run(repoNm, "cat-file", "-s", "update:snapshots/sha256/ab/blob"); err != nil || got != "1048576" {
		t.Errorf("the named blob on the branch: %q, %v", got, err)
	}
	third := f.open(t)
	if _, err := third.UpdateFrom(t.Context(), "update2", "main", "dangling", sig(2), func(fs.FS) ([]Change, error) {
		return []Change{{Path: "x", Data: []byte("the server never had this"), OnRemote: true}}, nil
	}, 0); err == nil {
		t.Error("a commit naming a blob the server lacks was accepted")
	}
}
