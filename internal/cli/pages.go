package cli

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// policyPage is reports/POLICY.md for set.
func policyPage(set *manifest.Set) public.File {
	return public.File{Name: "POLICY.md", Data: public.RulesOf(set).PolicyMarkdown()}
}

// writePublicPages regenerates the public pages under the reports
// directory from the local ledgers, and the change feeds from the local
// index and derived texts, each only when it changed, so they change in
// the bot's pull request exactly when what they show does. ix is the
// index in memory, nil to read the one on disk.
func writePublicPages(p paths, io IO, set *manifest.Set, st *state.State, rep *report.Report, ix *store.Index, now time.Time) error {
	count := public.CountFunc(func(string, string, string) (map[string]int, error) { return nil, nil })
	if _, err := os.Stat(p.ledgerDir()); err == nil { // no ledgers yet: no requests, and nothing to create
		l, err := ledger.Open(p.ledgerDir())
		if err != nil {
			return err
		}
		defer l.Close()
		count = l.CountDispatches
	}
	files, err := public.Pages(set, st, rep, count, now)
	if err != nil {
		return err
	}
	if ix == nil {
		if ix, err = store.LoadIndex(p.indexPath()); err != nil {
			return err
		}
	}
	feeds, err := public.RulesOf(set).Feeds(public.FeedInput{
		Set: set, Index: ix, Blob: review.BlobLink(repository(io).FileURL("main")),
		Text: func(sum, contentType string) (string, bool) {
			path, err := textview.TextPath(p.Snapshots, sum)
			if err != nil {
				return "", false
			}
			if data, err := os.ReadFile(path); err == nil {
				return string(data), true
			}
			// Not derived yet (a first copy's text is kept only once it is
			// compared): derive it from the held bytes.
			raw, err := os.ReadFile(filepath.Join(p.Snapshots, store.Sum(sum).Path()))
			if err != nil {
				return "", false
			}
			res := textview.Extract(context.Background(), raw, contentType, textview.Limits{})
			return res.Text, res.OK()
		},
	})
	if err != nil {
		return err
	}
	_, err = public.Write(p.Reports, append(files, feeds...)...)
	return err
}

// repository is where the feeds link blobs: the repository Actions names
// (GITHUB_SERVER_URL, GITHUB_REPOSITORY), else the bot's own.
func repository(io IO) github.Config {
	c := github.Config{ServerURL: github.DefaultServerURL}
	c.Owner, c.Repo, _ = strings.Cut(policy.IdentityRepository, "/")
	if io.Getenv == nil {
		return c
	}
	if owner, repo, ok := strings.Cut(strings.TrimSpace(io.Getenv("GITHUB_REPOSITORY")), "/"); ok && owner != "" && repo != "" && !strings.Contains(repo, "/") {
		c.Owner, c.Repo = owner, repo
	}
	if u, err := url.Parse(strings.TrimSpace(io.Getenv("GITHUB_SERVER_URL"))); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil {
		c.ServerURL = strings.TrimRight(u.String(), "/")
	}
	return c
}
