package publish

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// failureAdvice is what a person should do about a source in each failure
// status. Which statuses open an issue is state.Status.Failure's to say,
// not this list's: a failure with no advice here gets adviceElse.
var failureAdvice = map[state.Status]string{
	"failing": "The server answered with an error, or not at all. Open the URL in a browser: if it works, the failure may be ours or passing " +
		"(the bot retries with backoff); if the document has moved, update the manifest to its new URL; if the site is down for everyone, wait.",
	"unreachable": "The host could not be reached (its name does not resolve, the connection is refused or reset, or TLS fails). " +
		"Check that the host name in the manifest is still the authority's; if it changed, update the manifest.",
	"robots-unavailable": "The site's robots.txt answers with an error, so the bot reads nothing from this host until it answers again. " +
		"If it lasts, tell the site operator: their robots.txt is broken for every crawler.",
	"too-large": "The document is larger than max_body in manifests/policy.yaml. If the size is expected, raise max_body; otherwise check the URL.",
	"paused": "The host refused us with 403 repeatedly. Check whether the site blocks bots or wants us to stop; " +
		"if it does, add an exclude entry to manifests/policy.yaml, otherwise ask the operator.",
	"gone":  "The server says the document is gone (404 or 410). Find where it moved and update the manifest, or remove the entry.",
	"moved": "The document redirects to another host that no manifest lists. Check the new address and list it in the manifest.",
}

// adviceElse is the advice for a failure status failureAdvice lacks.
const adviceElse = "Open the URL in a browser and read the detail above: if the document moved, update the manifest; if it lasts and the site works, the failure may be ours."

// failingSources is what publishing opens issues for: the report's
// sources in a failure status, with the advice for it and the last checks
// ledger lines of each (at most checks, newest days first). ledgerDir is
// <state>/ledgers.
func failingSources(rep *report.Report, ledgerDir string, checks int) ([]review.Failure, error) {
	var out []review.Failure
	want := map[string]int{}
	for _, e := range rep.Sources {
		if !e.Status.Failure() {
			continue
		}
		advice := cmp.Or(failureAdvice[e.Status], adviceElse)
		since, err := time.Parse(time.DateOnly, e.Since)
		if err != nil {
			return nil, fmt.Errorf("report entry %s: since %q is not a date: %w", e.ID, e.Since, err)
		}
		want[e.ID] = len(out)
		out = append(out, review.Failure{
			ID: e.ID, Jurisdiction: e.Jurisdiction, Title: e.Title, URL: e.URL,
			Status: string(e.Status), Detail: e.Detail, HTTPStatus: e.HTTPStatus, Since: since, Advice: advice,
		})
	}
	if len(out) == 0 || checks <= 0 {
		return out, nil
	}
	days, err := ledger.Days(ledgerDir)
	if err != nil {
		return nil, err
	}
	// Newest days first, until every source has its lines or the ledgers end.
	lines := make([][]ledger.Line, len(out))
	for i := len(days) - 1; i >= 0; i-- {
		day, err := ledger.ReadDay(ledgerDir, days[i])
		if err != nil {
			return nil, err
		}
		for j := len(day) - 1; j >= 0; j-- {
			l := day[j]
			k, ok := want[l.Source]
			if ok && l.Event == ledger.Result && len(lines[k]) < checks {
				lines[k] = append(lines[k], l)
			}
		}
		full := true
		for _, ls := range lines {
			full = full && len(ls) == checks
		}
		if full {
			break
		}
	}
	for k, ls := range lines {
		slices.SortFunc(ls, func(a, b ledger.Line) int { return a.Time.Compare(b.Time) })
		for _, l := range ls {
			out[k].Checks = append(out[k].Checks, checkLine(l))
		}
	}
	return out, nil
}

func checkLine(l ledger.Line) string {
	s := fmt.Sprintf("%s GET %s → ", l.Time.UTC().Format(time.RFC3339), l.URL)
	if l.Status != 0 {
		s += fmt.Sprint(l.Status)
	} else {
		s += "no answer"
	}
	if l.Error != "" {
		s += " (" + l.Error + ")"
	}
	return s
}

// lastChecks is how many ledger lines an issue shows of a source's checks.
const lastChecks = 5

// FailureIssues brings a source that has been failing for days to a
// person: one issue per source, commented on when the failure changes,
// closed when the source recovers. The picture is st, the cache branch's
// state the pull request was published from; a quiet day writes nothing.
//
// Issues turned off, or not readable with the token, is said once and then
// not asked again before the next UTC day (the cache branch's record
// remembers it).
func (pub *Publisher) FailureIssues(ctx context.Context, st *state.State) error {
	if _, tip, err := pub.o.Cache.Read(ctx, botrepo.CacheBranch); err == nil {
		if rec, err := recordIn(tip); err == nil && rec.IssuesOff == pub.day {
			pub.logf("issues for sources failing for days: not tried, the repository's issues were off or unreadable earlier today")
			return nil
		}
	}
	failing, err := failingSources(report.Build(pub.o.Set, st), filepath.Join(pub.o.State, "ledgers"), lastChecks)
	if err != nil {
		return err
	}
	now := pub.o.Clock.Now()
	issues, summary := issuesOf(failing, now)
	done, err := pub.o.GitHub.SyncFailureIssues(ctx, issues, github.IssueOptions{After: pub.o.Set.Policy.IssueAfter, Now: now, Summary: summary})
	if errors.Is(err, github.ErrIssuesOff) {
		if rerr := pub.updateRecord(ctx, func(r *Record) { r.IssuesOff = pub.day }); rerr != nil {
			pub.logf("remember that issues are off: %v", rerr)
		}
	}
	if err != nil {
		return err
	}
	for _, what := range []struct {
		verb string
		n    []int
	}{{"opened", done.Opened}, {"commented on", done.Commented}, {"closed", done.Closed}} {
		if len(what.n) > 0 {
			pub.note("issues for sources failing for days: %s %v", what.verb, what.n)
		}
	}
	return nil
}

// issuesOf writes the issue of each failure as of now, and the
// summary issue of those github leaves beyond its bounds.
func issuesOf(failing []review.Failure, now time.Time) ([]github.FailureIssue, func([]github.FailureIssue) (string, string)) {
	byID := make(map[string]review.Failure, len(failing))
	issues := make([]github.FailureIssue, len(failing))
	for i, f := range failing {
		byID[f.ID] = f
		issues[i] = github.FailureIssue{
			Source: f.ID, Since: f.Since, Fingerprint: f.Fingerprint(), Old: f.OldFingerprint(),
			Title: f.IssueTitle(), Body: f.IssueBody(now), Comment: f.ChangedComment(now),
		}
	}
	summary := func(more []github.FailureIssue) (string, string) {
		fs := make([]review.Failure, len(more))
		for i, is := range more {
			fs[i] = byID[is.Source]
		}
		return review.SummaryIssue(fs, now)
	}
	return issues, summary
}
