package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemoSaysItIsSpedUpAndCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs real millisecond delays")
	}
	root := t.TempDir()
	var out bytes.Buffer
	if err := runDemo(ctx, demoOptions{tempRoot: root, IO: IO{Out: &out, Err: &out}}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"sped-up test policy",
		"loopback",
		"| delay between dispatches | 20ms–40ms | 3s–5s |",
		"| daily cap per host | 50 | 200 |",
		"| longest backoff | 2s | 30m |",
		"| timeout | 5s | 1m |",
		"Removed the demo's temporary folder",
		// Run 2: a real change reaches the preview with its text diff; the
		// blinking page does not.
		"demo-forms http://",
		"unchanged text (new bytes, same text",
		"coverage.json after run 2: changed only for demo-budget-rates (changed)",
		"publish --preview",
		"Title: TaxKernelBot: 1 document changed",
		"-Basic rate | up to £37,700 | 20%",
		"+Basic rate | up to £37,500 | 20%",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("the demo left %v behind in its temporary folder's parent", left)
	}

	out.Reset()
	if err := runDemo(ctx, demoOptions{tempRoot: root, Keep: true, IO: IO{Out: &out, Err: &out}}); err != nil {
		t.Fatalf("demo --keep: %v", err)
	}
	kept, _ := filepath.Glob(filepath.Join(root, "taxkernelbot-demo-*"))
	if len(kept) != 1 || !strings.Contains(out.String(), "kept in "+kept[0]) {
		t.Errorf("demo --keep: kept %v; output:\n%s", kept, out.String())
	}
	if _, err := os.Stat(filepath.Join(kept[0], "reports", "POLICY.md")); err != nil {
		t.Errorf("the kept folder lacks the rules page: %v", err)
	}
}

// What the demo shows a person first is its test policy, and its
// summary is plain text for a terminal, not Markdown with its escapes.
func TestDemoOutputReadsAsPlainText(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs real millisecond delays")
	}
	var out bytes.Buffer
	if err := runDemo(ctx, demoOptions{Dir: t.TempDir(), IO: IO{Out: &out, Err: &out}}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	t.Run("FirstLineExplainsTheTestPolicy", func(t *testing.T) {
		first, _, _ := strings.Cut(got, "\n")
		if !strings.Contains(first, "sped-up test policy") {
			t.Errorf("the first line is %q, want the test policy explained", first)
		}
		if strings.Contains(got, "serve it at") {
			t.Errorf("the demo tells its user to deploy a key directory:\n%s", got)
		}
	})
	t.Run("SummaryIsPlainText", func(t *testing.T) {
		_, summary, ok := strings.Cut(got, "coverage.json after run 2:")
		summary, _, ok2 := strings.Cut(summary, "What the servers saw")
		if !ok || !ok2 {
			t.Fatalf("no summary between run 2 and what the servers saw:\n%s", got)
		}
		for _, md := range []string{`\:`, `\.`, "](", "| --- |", "`demo-", "### ", "**"} {
			if strings.Contains(summary, md) {
				t.Errorf("the summary shows Markdown %q:\n%s", md, summary)
			}
		}
		for _, want := range []string{
			"13 sources: 6 fresh, 1 failing, 1 gone, 1 blocked-robots, 1 robots-unavailable, 3 paused.",
			"robots.txt disallows http://127.0.0.1:",
			"update the manifest to http://127.0.0.1:",
			"demo-budget-rates",
		} {
			if !strings.Contains(summary, want) {
				t.Errorf("the summary lacks %q:\n%s", want, summary)
			}
		}
	})
}
