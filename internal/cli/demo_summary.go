package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// plainReport writes the coverage report for a terminal: the totals, the
// counts per jurisdiction, what is missing and why, and a line per
// source, as plain aligned text. coverage.md is the same report for
// GitHub, in Markdown, whose escapes (http\://…) a terminal would show
// as they are. What a manifest or a server wrote is shown with its
// control characters escaped.
func plainReport(w io.Writer, rep *report.Report, markdownPath string) error {
	t := terminal.Text
	sum := rep.Summary()
	totals := make([]int, len(sum.Statuses))
	for _, j := range sum.Jurisdictions {
		for i, n := range j.Counts {
			totals[i] += n
		}
	}
	var parts []string
	for i, s := range sum.Statuses {
		parts = append(parts, fmt.Sprintf("%d %s", totals[i], s))
	}
	fmt.Fprintf(w, "Coverage: %d sources: %s.\n\n", len(rep.Sources), strings.Join(parts, ", "))

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"jurisdiction"}
	for _, s := range sum.Statuses {
		head = append(head, string(s))
	}
	fmt.Fprintln(tw, strings.Join(append(head, "total"), "\t"))
	for _, j := range sum.Jurisdictions {
		cells := []string{t(j.Name)}
		for _, n := range j.Counts {
			cells = append(cells, fmt.Sprint(n))
		}
		fmt.Fprintln(tw, strings.Join(append(cells, fmt.Sprint(j.Total)), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	sources := slices.Clone(rep.Sources)
	slices.SortStableFunc(sources, func(a, b report.Entry) int {
		return strings.Compare(a.Jurisdiction+"\x00"+a.ID, b.Jurisdiction+"\x00"+b.ID)
	})
	var gaps, moved []report.Entry
	for _, e := range sources {
		if e.Status != state.Fresh && e.Status != state.Pending {
			gaps = append(gaps, e)
		}
		if e.FinalURL != "" && e.FinalURL != e.URL {
			moved = append(moved, e)
		}
	}
	if len(gaps) > 0 {
		fmt.Fprintln(w, "\nGaps and failures:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, e := range gaps {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", t(string(e.Status)), t(e.ID), t(e.URL), t(e.Detail))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(moved) > 0 {
		fmt.Fprintln(w, "\nMoved or redirected:")
		for _, e := range moved {
			fmt.Fprintf(w, "  %s: redirected from %s; update the manifest to %s\n", t(e.ID), t(e.URL), t(e.FinalURL))
		}
	}
	fmt.Fprintln(w, "\nSources:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  id\tkind\tstatus\tsince\tsha256\tsize\ttitle")
	for _, e := range sources {
		sha, size := "-", "-"
		if e.SHA256 != "" {
			sha, size = t(e.SHA256[:min(12, len(e.SHA256))]), fmt.Sprint(e.Size)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", t(e.ID), t(e.Kind), t(string(e.Status)), dash(e.Since != "", t(e.Since)), sha, size, t(e.Title))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nThe same report for GitHub, in Markdown: %s\n", markdownPath)
	return nil
}
