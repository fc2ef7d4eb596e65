package cycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/public"
)

// TestNewEditionIsProposedNotFetched: the held page of a yearly source
// links to next year's. The cycle's pull request proposes it, as an entry
// of main's manifest beside the listed one, in its body (the old and new
// addresses, the held page and line) and in the source's feed; no request
// goes to the new address. A reviewer's "no" sticks: closed, it is not
// proposed again.
func TestNewEditionIsProposedNotFetched(t *testing.T) {
	t.Parallel()
	const id = "t-rates-2025-26"
	r := newRepo(t, id)
	r.sent = map[string]int{}
	r.docs[id] = "<html><body>\n<p>Rates for 2025 to 2026</p>\n<p><a href=\"t-rates-2026-27\">Rates 2026-27</a></p>\n</body></html>\n"
	// main holds the manifest the runners load.
	manifests := filepath.Join(t.TempDir(), "manifests")
	r.manifests(manifests)
	listed, err := os.ReadFile(filepath.Join(manifests, "test.yaml"))
	must(t, err)
	r.git.Commit(t, repoName, "main", "manifests", map[string][]byte{"manifests/test.yaml": listed})

	_, log := r.cycle()
	next := "https://" + r.host(0) + "/t-rates-2026-27"
	got := r.show(botrepo.BotBranch, "manifests/test.yaml") + "\n" // show trims the last newline
	if !strings.HasPrefix(got, string(listed)) || !strings.Contains(got, "  - id: t-rates-2026-27\n    url: "+next+"\n    kind: rates-page\n    title: t-rates-2026-27\n    recheck: 1h\n") {
		t.Fatalf("the bot branch's manifest does not add the new edition after the listed one:\n%s\n%s", got, log)
	}
	// One commit for the snapshots and reports, one for the new edition,
	// which changes the manifest only.
	if got := r.git.Git(t, repoName, "log", "--format=%an %s", "main.."+botrepo.BotBranch); !strings.HasPrefix(got, "TaxKernelBot manifests: the next edition of "+id+", proposed as t-rates-2026-27") ||
		strings.Count(got, "\n") != 1 || !strings.Contains(got, "\nTaxKernelBot snapshots and coverage") {
		t.Errorf("the bot branch's commits:\n%s\nwant the bot's snapshots commit, then its edition commit", got)
	}
	if got := r.git.Git(t, repoName, "show", "--format=", "--name-only", botrepo.BotBranch); got != "manifests/test.yaml" {
		t.Errorf("the edition commit changes %q, want the manifest only", got)
	}
	msg := r.git.Git(t, repoName, "log", "-1", "--format=%B", botrepo.BotBranch)
	for _, want := range []string{"Listed: https://" + r.host(0) + "/" + id, "New:    " + next, "Read on the held copy of " + id + " (sha256 ", "line 3."} {
		if !strings.Contains(msg, want) {
			t.Errorf("the edition commit's message lacks %q:\n%s", want, msg)
		}
	}
	prs := r.gh.PRs()
	if len(prs) != 1 {
		t.Fatalf("%d pull requests, want 1", len(prs))
	}
	for _, want := range []string{"### New editions (1)", "https://" + r.host(0) + "/" + id, next, "line 3", "Rates 2026-27"} {
		if !strings.Contains(prs[0].Body, want) {
			t.Errorf("the body lacks %q:\n%s", want, prs[0].Body)
		}
	}
	if feed := r.show(botrepo.BotBranch, "reports/"+public.FeedOf(id, true)); !strings.Contains(feed, "a new edition is available") || !strings.Contains(feed, next) {
		t.Errorf("the source's feed does not say a new edition is available:\n%s", feed)
	}
	for day, n := range r.sent {
		if !strings.HasSuffix(day, " "+r.host(0)) || n != 1 {
			t.Errorf("requests %s: %d; want one, to the listed address", day, n)
		}
	}

	// Nothing new: the open pull request proposes it all already.
	tip := r.tip(botrepo.BotBranch)
	r.now = r.now.Add(-23 * time.Hour) // the same day: nothing is due, nothing new is fetched
	if _, log = r.cycle(); r.tip(botrepo.BotBranch) != tip || !strings.Contains(log, "already proposes all of this") {
		t.Errorf("a cycle with nothing new moved the branch, or said other than that it proposes it all:\n%s", log)
	}

	r.gh.Close(1)                      // a reviewer's "no"
	r.now = r.now.Add(-23 * time.Hour) // the same day: nothing is due, nothing new is fetched
	_, log = r.cycle()
	if n := len(r.gh.PRs()); n != 1 {
		t.Errorf("%d pull requests after a reviewer closed #1: the new edition is proposed again\n%s", n, log)
	}
}
