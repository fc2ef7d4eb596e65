package cycle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
)

// summarize appends the cycle's figures and notes to the step summary,
// where the workflow run's page shows them.
func (c *Cycle) summarize(out Outcome) {
	if c.o.StepSummary == "" {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## TaxKernelBot, shard %s\n\n", c.o.Shard)
	fmt.Fprintf(&b, "- %d request(s) to %d host(s), out of %d reserved under lease %s\n", out.Requests, out.Hosts, out.Reserved, markdown.Code(c.o.RunID))
	switch {
	case out.PR != "":
		fmt.Fprintf(&b, "- pull request: %s\n", out.PR)
	case c.o.NoPublish || c.o.DryRun:
		b.WriteString("- publishing was off for this run\n")
	default:
		b.WriteString("- no pull request opened or updated: nothing new to propose\n")
	}
	c.mu.Lock()
	for _, n := range c.notes {
		// A note may quote halt.json's reason, which anyone who can
		// push to the cache branch wrote: inert text on one line.
		fmt.Fprintf(&b, "- **%s**\n", markdown.Text(n))
	}
	c.mu.Unlock()
	if md, err := os.ReadFile(filepath.Join(c.o.Reports, "coverage.md")); err == nil {
		// The first lines of the report: its one-line total and summary table.
		head := strings.SplitN(string(md), "\n## Gaps", 2)[0]
		b.WriteString("\n" + strings.TrimPrefix(head, "# Coverage\n") + "\n")
	}
	f, err := os.OpenFile(c.o.StepSummary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(b.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		c.logf("step summary: %v", err)
	}
}
