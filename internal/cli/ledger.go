package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/policy"
)

type ledgerOptions struct {
	paths
	Host         string
	Since, Until string
	JSON         bool
	IO           IO
}

func cmdLedger(ctx context.Context, io IO, args []string) error {
	opts := ledgerOptions{IO: io}
	fs := newFlags("ledger", "HOST [flags]", io)
	opts.register(fs, "state")
	fs.StringVar(&opts.Since, "since", "", "first UTC day to list, `YYYY-MM-DD` (default: the first kept)")
	fs.StringVar(&opts.Until, "until", "", "last UTC day to list, `YYYY-MM-DD` (default: the last kept)")
	fs.BoolVar(&opts.JSON, "json", false, "print one JSON object per request instead of a table")
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
	l, err := ledger.Open(opts.ledgerDir())
	if err != nil {
		return cannotRun("%w", err)
	}
	defer l.Close()
	reqs, err := l.Requests(opts.Host, opts.Since, opts.Until)
	if err != nil {
		if strings.Contains(err.Error(), "YYYY-MM-DD") {
			return usageError("%w", err)
		}
		return cannotRun("%w", err)
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		for _, r := range reqs {
			if err := enc.Encode(r); err != nil {
				return cannotRun("%w", err)
			}
		}
		return nil
	}
	if len(reqs) == 0 {
		fmt.Fprintf(opts.IO.Out, "no request to %s in the ledgers under %s%s\n", opts.Host, opts.ledgerDir(), rangeText(opts.Since, opts.Until))
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME (UTC)\tMETHOD\tURL\tWHY\tSTATUS\tBYTES\tDURATION\tRUN")
	for _, r := range reqs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Time.UTC().Format(time.RFC3339), r.Method, r.URL, why(r), outcome(r),
			dash(r.Result, fmt.Sprint(r.Bytes)), dash(r.Result, fmt.Sprintf("%dms", r.DurationMS)), dash(r.RunID != "", r.RunID))
	}
	if err := tw.Flush(); err != nil {
		return cannotRun("%w", err)
	}
	fmt.Fprintf(opts.IO.Out, "%d request(s) to %s%s\n", len(reqs), opts.Host, rangeText(opts.Since, opts.Until))
	return nil
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
