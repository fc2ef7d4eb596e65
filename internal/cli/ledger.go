package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
	"github.com/taxkernel/taxkernelbot/internal/escape/workflow"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/policy"
)

type ledgerOptions struct {
	paths
	Host         string
	Since, Until string
	JSON         bool
	// FromBranch reads the ledgers of the cache branch in the local
	// repository at Repo (or the one holding the current directory), at
	// Branch if set.
	FromBranch   bool
	Repo, Branch string
	Clock        clock.Clock // says which days are past; nil: the real clock
	IO           IO
}

func cmdLedger(ctx context.Context, io IO, args []string) error {
	opts := ledgerOptions{IO: io, Clock: clock.Real{}}
	fs := newFlags("ledger", "HOST [flags]", io).withArgs()
	opts.register(fs, "state")
	fs.StringVar(&opts.Since, "since", "", "first UTC day to list, `YYYY-MM-DD` (default: the first kept)")
	fs.StringVar(&opts.Until, "until", "", "last UTC day to list, `YYYY-MM-DD` (default: the last kept)")
	fs.BoolVar(&opts.JSON, "json", false, "print one JSON object per request instead of a table")
	fs.BoolVar(&opts.FromBranch, "from-branch", false, "read the ledgers of the cache branch ("+botrepo.CacheBranch+") as the local repository has it, not the state's (also done when the state has no request to HOST); nothing is fetched")
	fs.StringVar(&opts.Repo, "repo", ".", "the local git repository whose cache branch to read, `DIR`")
	fs.StringVar(&opts.Branch, "branch", "", "the cache branch's `REF` in that repository (default origin/"+botrepo.CacheBranch+", then "+botrepo.CacheBranch+")")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError("want exactly one HOST (host, host:port or a URL on it), got %d argument(s); e.g. taxkernelbot ledger www.gov.uk --since 2026-11-01", fs.NArg())
	}
	host, err := hostArg(fs.Arg(0))
	if err != nil {
		return usageError("%w", err)
	}
	opts.Host = host
	return runLedger(ctx, opts)
}

// hostArg reads a host the way the ledger files it: host[:port], lower
// case, default ports dropped. A URL names its host.
func hostArg(s string) (string, error) {
	raw := s
	if !strings.Contains(s, "://") {
		raw = "https://" + s
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("%q is not a host; write host, host:port or a URL, e.g. www.gov.uk", s)
	}
	return policy.Authority(u), nil
}

func runLedger(_ context.Context, opts ledgerOptions) error {
	if opts.Since != "" && opts.Until != "" && opts.Since > opts.Until {
		return usageError("--since %s is after --until %s; swap them", opts.Since, opts.Until)
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	var reqs []ledger.Request
	from, note := opts.ledgerDir(), ""
	// kept says whether any ledger was read at all: with none, an empty
	// answer means only that nothing is here yet.
	kept := false
	if !opts.FromBranch {
		days, err := ledger.Days(opts.ledgerDir())
		if err != nil {
			return cannotRun("%w", err)
		}
		kept = len(days) > 0
		l, err := ledger.Open(opts.ledgerDir())
		if err != nil {
			return cannotRun("%w", err)
		}
		reqs, err = l.Requests(opts.Host, opts.Since, opts.Until)
		l.Close()
		if err != nil {
			return ledgerError(err)
		}
	}
	if len(reqs) == 0 {
		// Nothing here (a fresh checkout keeps its ledgers on the cache
		// branch only): ask the branch, as the local repository has it.
		branch, name, done, err := cacheBranch(opts.Repo, opts.Branch)
		switch {
		case err == nil:
			defer done()
			sub, err := fs.Sub(branch, "ledgers")
			if err != nil {
				return cannotRun("%w", err)
			}
			if reqs, err = ledger.RequestsFS(sub, opts.Host, opts.Since, opts.Until); err != nil {
				return ledgerError(fmt.Errorf("cache branch %s: %w", name, err))
			}
			from, kept = "ledgers/ of the cache branch "+name, true
		case opts.FromBranch || !errors.Is(err, errNoCacheBranch) && opts.Repo != ".":
			return cannotRun("%w", err)
		default:
			note = "; nor on a cache branch (" + err.Error() + ")"
		}
	}
	// A range that ended before today is complete: every request is
	// written down before it is sent, so no run can add to it.
	past := opts.Until != "" && opts.Until < ledger.Day(opts.Clock.Now())
	switch {
	case len(reqs) == 0 && past && kept:
		if !opts.JSON {
			fmt.Fprintf(opts.IO.Out, "0 requests to %s%s, from the ledgers under %s: nothing was sent to it on those days\n", opts.Host, rangeText(opts.Since, opts.Until), from)
		}
		return nil
	case len(reqs) == 0 && past:
		return nothingYet("no ledger is kept under %s%s, so nothing here says what was sent to %s%s; the ledgers live on the cache branch: in a clone of the repository, git fetch origin %s, then ask again", from, note, opts.Host, rangeText(opts.Since, opts.Until), botrepo.CacheBranch)
	case len(reqs) == 0:
		return nothingYet("no request to %s in the ledgers under %s%s%s: a run that fetches from it records them (taxkernelbot run)", opts.Host, from, rangeText(opts.Since, opts.Until), note)
	}
	if opts.JSON {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for _, r := range reqs {
			buf.Reset()
			if err := enc.Encode(r); err != nil {
				return cannotRun("%w", err)
			}
			if _, err := opts.IO.Out.Write(workflow.JSON(buf.Bytes())); err != nil {
				return cannotRun("%w", err)
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME (UTC)\tMETHOD\tURL\tWHY\tSTATUS\tBYTES\tDURATION\tRUN")
	// Every field a ledger line carries may hold what a server said (an
	// error quotes it): shown with its control characters escaped.
	t := terminal.Text
	for _, r := range reqs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Time.UTC().Format(time.RFC3339), t(r.Method), t(r.URL), t(why(r)), t(outcome(r)),
			dash(r.Result, fmt.Sprint(r.Bytes)), dash(r.Result, fmt.Sprintf("%dms", r.DurationMS)), dash(r.RunID != "", t(r.RunID)))
	}
	if err := tw.Flush(); err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(opts.IO.Out, "%d request(s) to %s%s, from the ledgers under %s\n", len(reqs), opts.Host, rangeText(opts.Since, opts.Until), from)
	return nil
}

// ledgerError maps a bad day to a usage error, anything else to "could
// not run".
func ledgerError(err error) error {
	if strings.Contains(err.Error(), "YYYY-MM-DD") {
		return usageError("%w", err)
	}
	return cannotRun("%w", err)
}

func why(r ledger.Request) string {
	switch r.Purpose {
	case ledger.PurposeRobots:
		return "robots.txt"
	case ledger.PurposeRedirect:
		return "redirect hop (" + r.Source + ")"
	case ledger.PurposeDocument:
		return "due check (" + r.Source + ")"
	}
	return r.Purpose
}

func outcome(r ledger.Request) string {
	switch {
	case !r.Result:
		return "no result (run ended while in flight)"
	case r.Error != "" && r.Status == 0:
		return "error: " + r.Error
	case r.Error != "":
		return fmt.Sprintf("%d (%s)", r.Status, r.Error)
	}
	return fmt.Sprint(r.Status)
}

func dash(ok bool, s string) string {
	if !ok {
		return "-"
	}
	return s
}

func rangeText(since, until string) string {
	switch {
	case since != "" && until != "":
		return fmt.Sprintf(" from %s to %s", since, until)
	case since != "":
		return " since " + since
	case until != "":
		return " until " + until
	}
	return ""
}
