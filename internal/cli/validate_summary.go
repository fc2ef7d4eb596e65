package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// overridesSummary is the Markdown the validate step adds to the GitHub
// Actions step summary: every robots_override with its permission, so a
// reviewer sees each exception to robots.txt, not only new ones.
func overridesSummary(set *manifest.Set) string {
	var hosts []string
	for name, h := range set.Hosts {
		if h.Override != nil {
			hosts = append(hosts, name)
		}
	}
	slices.Sort(hosts)
	var b strings.Builder
	b.WriteString("### robots.txt overrides\n\n")
	if len(hosts) == 0 {
		b.WriteString("None: every robots.txt Disallow is obeyed.\n")
		return b.String()
	}
	b.WriteString("| host | permission | delay |\n| --- | --- | --- |\n")
	for _, name := range hosts {
		h := set.Hosts[name]
		// The permission is a contributor's text: inert in the cell.
		fmt.Fprintf(&b, "| %s | %s | %s–%s |\n", markdown.CellCode(name), markdown.Text(h.Override.Permission), h.Delay.Min, h.Delay.Max)
	}
	return b.String()
}

// writeStepSummary appends the overrides to $GITHUB_STEP_SUMMARY when the
// command runs in GitHub Actions; elsewhere it does nothing.
func writeStepSummary(set *manifest.Set, io IO) error {
	return appendStepSummary(io, overridesSummary(set))
}

// appendStepSummary appends text to $GITHUB_STEP_SUMMARY when the command
// runs in GitHub Actions; elsewhere it does nothing.
func appendStepSummary(io IO, text string) error {
	if io.Getenv == nil || io.Getenv("GITHUB_STEP_SUMMARY") == "" {
		return nil
	}
	path := io.Getenv("GITHUB_STEP_SUMMARY")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open the step summary %s: %w", path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("write the step summary %s: %w", path, err)
	}
	return f.Close()
}
