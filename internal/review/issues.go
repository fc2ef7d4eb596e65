package review

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
)

// Failure is a source whose last check failed, as the coverage report and
// the ledgers describe it: what its failure issue says.
type Failure struct {
	ID           string
	Jurisdiction string
	Title        string
	URL          string
	Status       string    // the report's status: failing, unreachable, robots-unavailable, too-large, …
	Detail       string    // the report's detail: what went wrong
	HTTPStatus   int       // the status of the last answer, 0 for none
	Since        time.Time // when the source entered this status (the report's since)
	Advice       string    // what to do, as the report says it
	Checks       []string  // the ledger lines of its last checks, oldest first, as text
}

// Fingerprint identifies the failure: an issue is commented on when it
// changes, and only then. It is the status, the URL and the failure's
// kind: times, ledger lines and what a server chose to say (a Retry-After
// that differs at each answer, a status text) are left out, so a quiet
// day with the same failure changes nothing and a server cannot make the
// bot comment, and mention, again and again.
func (f Failure) Fingerprint() string {
	sum := sha256.Sum256([]byte(f.Status + "\x00" + f.kind() + "\x00" + f.URL))
	return hex.EncodeToString(sum[:8])
}

// OldFingerprint is the fingerprint issues were marked with before the
// kind replaced the detail in it: an issue that carries it for the same
// failure is brought up to date without a comment.
func (f Failure) OldFingerprint() string {
	sum := sha256.Sum256([]byte(f.Status + "\x00" + f.Detail + "\x00" + f.URL))
	return hex.EncodeToString(sum[:8])
}

// kind is what failed, without the values a server chooses: "HTTP 503"
// when the server answered, else the detail with its parenthesised parts
// (where the values quoted from an answer or an error go) and digits
// (addresses, ports, sizes) left out: "timeout after #s", "host x could
// not be reached: connection refused".
func (f Failure) kind() string {
	if f.HTTPStatus != 0 {
		return fmt.Sprintf("HTTP %d", f.HTTPStatus)
	}
	return strings.Join(strings.Fields(digits.ReplaceAllString(parenthesised.ReplaceAllString(f.Detail, ""), "#")), " ")
}

var (
	parenthesised = regexp.MustCompile(`\([^()]*\)`)
	digits        = regexp.MustCompile(`[0-9]+`)
)

// IssueTitle is the title of f's issue.
func (f Failure) IssueTitle() string {
	return fmt.Sprintf("TaxKernelBot: %s is %s since %s", f.ID, f.Status, f.Since.UTC().Format(time.DateOnly))
}

// IssueBody is the body of f's issue as of now, but for the hidden marker
// line the client puts first: what fails, since when, the last checks and
// what to do. What a contributor or a server wrote (title, URL, detail,
// the ledger's lines) is inert Markdown: text, a code span, a fenced
// block.
func (f Failure) IssueBody(now time.Time) string {
	var b strings.Builder
	name := markdown.Code(f.ID)
	if f.Title != "" {
		name += " (" + markdown.TextN(f.Title, 200) + ")"
	}
	days := int(now.Sub(f.Since) / (24 * time.Hour))
	fmt.Fprintf(&b, "**%s** in %s has been **%s** since %s (%d day(s) as of %s).\n\n",
		name, markdown.Code(f.Jurisdiction), markdown.Text(f.Status), f.Since.UTC().Format(time.DateOnly), days, now.UTC().Format(time.DateOnly))
	fmt.Fprintf(&b, "- URL: %s\n", markdown.Link(markdown.Clip(f.URL, 200), f.URL))
	if f.Detail != "" {
		fmt.Fprintf(&b, "- Detail: %s\n", markdown.CodeN(f.Detail, 500))
	}
	b.WriteString(f.checks())
	if f.Advice != "" {
		fmt.Fprintf(&b, "\n### What to do\n\n%s\n", f.Advice)
	}
	b.WriteString("\n---\nOpened by TaxKernelBot's publishing step. It comments here when the failure changes and closes this issue when the source recovers; no need to close it by hand.\n")
	return b.String()
}

// ChangedComment is the comment on f's issue when its fingerprint changed.
func (f Failure) ChangedComment(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The failure changed on %s: **%s**", now.UTC().Format(time.DateOnly), markdown.Text(f.Status))
	if f.Detail != "" {
		fmt.Fprintf(&b, ": %s", markdown.CodeN(f.Detail, 500))
	}
	b.WriteString("\n")
	b.WriteString(f.checks())
	return b.String()
}

func (f Failure) checks() string {
	if len(f.Checks) == 0 {
		return ""
	}
	lines := make([]string, len(f.Checks))
	for i, l := range f.Checks {
		lines[i] = markdown.Clip(l, 500)
	}
	return "\n### Last checks (ledger)\n\n" + markdown.Fence("", strings.Join(lines, "\n"))
}

// SummaryIssue is the title and body (but for the marker line) of the one
// issue listing the sources failing for days beyond the bounds on issues,
// as of now.
func SummaryIssue(more []Failure, now time.Time) (title, body string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d more source(s) have been failing for days, as of %s. So as not to open an issue for each, they are listed here; "+
		"each gets an issue of its own as the others are resolved.\n\n", len(more), now.UTC().Format(time.DateOnly))
	b.WriteString("| source | status | since | detail |\n| --- | --- | --- | --- |\n")
	for _, f := range more {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", markdown.CellCode(f.ID), markdown.CellCode(f.Status), f.Since.UTC().Format(time.DateOnly), markdown.CellCode(markdown.Clip(f.Detail, 200)))
	}
	b.WriteString("\n---\nKept up to date by TaxKernelBot's publishing step; closed when no source is left in it.\n")
	return fmt.Sprintf("TaxKernelBot: %d more sources failing for days", len(more)), b.String()
}
