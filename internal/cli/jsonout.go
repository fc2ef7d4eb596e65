package cli

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/taxkernel/taxkernelbot/internal/escape/workflow"
	usagepref "github.com/taxkernel/taxkernelbot/internal/usage"
)

// What the commands print with --json: one JSON document on stdout, its
// fields in the order of these structs, documented in each command's
// --help (helpMore) and in docs/commands.md. A field is added, never renamed or
// moved.

// validateReport is what `validate --json` prints.
type validateReport struct {
	Manifests   string               `json:"manifests"` // the directory validated
	Valid       bool                 `json:"valid"`     // no error (warnings allowed)
	Counts      validateCounts       `json:"counts"`
	Diagnostics []validateDiagnostic `json:"diagnostics"` // in file then line order; [] when none
}

type validateCounts struct {
	Manifests int `json:"manifests"` // 0 for manifests with errors
	Sources   int `json:"sources"`
	Hosts     int `json:"hosts"`
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
}

// validateDiagnostic is one problem, as the manifest package finds it.
type validateDiagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`     // 1-based; 0: the whole file
	Column   int    `json:"column"`   // 1-based; 0: unknown
	Severity string `json:"severity"` // "error" or "warning"
	Message  string `json:"message"`  // what is wrong and what to do, whole
	Fix      string `json:"fix"`      // the message's advice on its own; "" when it has none apart
}

// dryRunPlan is what `run --dry-run --json` prints: what a run now would
// request, host by host, and what it would leave and why.
type dryRunPlan struct {
	Requests int        `json:"requests"` // in all, robots.txt included
	Deferred int        `json:"deferred"` // sources
	Excluded int        `json:"excluded"` // sources
	Hosts    []hostPlan `json:"hosts"`    // by host; [] when nothing is due
}

type hostPlan struct {
	Host string `json:"host"`
	// WaitMS is how long the host's requests take under the politeness
	// rules: when its last request would leave, in milliseconds after
	// the start.
	WaitMS   int64            `json:"wait_ms"`
	Requests []plannedRequest `json:"requests"` // in the order they would leave
	Sources  []plannedSource  `json:"sources"`  // the host's sources the plan names
}

type plannedRequest struct {
	AtMS    int64  `json:"at_ms"`            // when it would leave, after the start
	Purpose string `json:"purpose"`          // "robots", "document" or "redirect"
	Source  string `json:"source,omitempty"` // the source id ("" for robots.txt)
	URL     string `json:"url"`
}

type plannedSource struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	// Action is "request", "deferred" (due, left for a later run),
	// "skipped" (not requested: not due, held for good, robots.txt) or
	// "excluded" (the policy's exclude list); Why says why, for all but
	// a request.
	Action string `json:"action"`
	Why    string `json:"why,omitempty"`
	// AtMS is when its request would leave, for a request.
	AtMS *int64 `json:"at_ms,omitempty"`
}

// verifyReport is what `verify --json` prints, for the store or, with
// --dataset, for a dataset.
type verifyReport struct {
	Target   string          `json:"target"` // "snapshots", "dataset" or "attestation"
	Dir      string          `json:"dir"`    // the directory verified
	OK       bool            `json:"ok"`     // no problem found
	Counts   verifyCounts    `json:"counts"`
	Problems []verifyProblem `json:"problems"` // sorted; [] when none
	// Attestation is the statement --attestation checked, when it verified.
	Attestation *attestationResult `json:"attestation,omitempty"`
}

// verifyCounts: what was checked. Sources and blobs are the store's;
// files, documents, responses, texts and change documents a dataset's (0
// for the other target).
type verifyCounts struct {
	Problems  int `json:"problems"`
	Sources   int `json:"sources"`
	Blobs     int `json:"blobs"`
	Files     int `json:"files"`
	Documents int `json:"documents"`
	Responses int `json:"responses"`
	Texts     int `json:"texts"`
	Changes   int `json:"changes"`
}

type verifyProblem struct {
	Path    string `json:"path"` // a file, file:line or a WARC record's offset
	Message string `json:"message"`
}

// robotsAnswer is what `robots --json` prints: the decision on a URL
// from the kept robots.txt copy, and the evidence.
type robotsAnswer struct {
	URL      string `json:"url"`
	Agent    string `json:"agent"`    // the product token matched against User-agent lines
	Decision string `json:"decision"` // "allowed" or "disallowed", as robots.txt says
	Reason   string `json:"reason"`   // why, in words
	Group    string `json:"group,omitempty"`
	// Rule is the Allow or Disallow line that decided; null when none
	// matched (no group applies, no rule matches, or robots.txt is
	// missing or unavailable).
	Rule *robotsRule `json:"rule"`
	// CrawlDelaySeconds is the group's Crawl-delay; 0 when it has none.
	CrawlDelaySeconds float64 `json:"crawl_delay_seconds"`
	// MaxCrawlRate is the group's max-crawl-rate as written ("10/m"); ""
	// when it has none.
	MaxCrawlRate string `json:"max_crawl_rate,omitempty"`
	// Usage is what the copy's Content-Usage and Content-Signal rules say
	// about the use of the URL's content; nil when they say nothing.
	Usage *usagepref.Prefs `json:"usage,omitempty"`
	// Override is the permission of the host's robots_override when it
	// lifts this Disallow; "" otherwise.
	Override string     `json:"override,omitempty"`
	Copy     robotsCopy `json:"copy"`
}

type robotsRule struct {
	Directive string `json:"directive"` // "Allow" or "Disallow"
	Pattern   string `json:"pattern"`
	Line      int    `json:"line"` // in robots.txt, 1-based
}

// robotsCopy is the kept copy decided from.
type robotsCopy struct {
	URL        string `json:"url"`
	Fetched    string `json:"fetched"` // RFC 3339, UTC
	HTTPStatus int    `json:"http_status"`
	Outcome    string `json:"outcome"` // parsed, missing, unavailable or unreachable
	// Current says a run would decide from this copy without fetching
	// robots.txt again; Stale says why not when it is false.
	Current bool   `json:"current"`
	Stale   string `json:"stale,omitempty"`
}

// writeJSON writes v as one indented JSON document, as `cite --json`
// does: HTML characters as they are, made safe for a log (see
// workflow.JSON) without changing its value.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return cannotRun("%w", err)
	}
	if _, err := w.Write(workflow.JSON(buf.Bytes())); err != nil {
		return cannotRun("%w", err)
	}
	return nil
}
