package cli

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

// examples are shown by each command's --help.
var examples = map[string][]string{
	"run": {
		"taxkernelbot run                      # fetch every due source",
		"taxkernelbot run --only uk            # one jurisdiction",
		"taxkernelbot run --only uk-vat-rates --dry-run",
		"taxkernelbot run --dry-run --json      # the plan, for a script",
		"taxkernelbot run --max-duration 20m",
	},
	"validate": {
		"taxkernelbot validate",
		"taxkernelbot validate --json                # the problems, for a script or an editor",
		"taxkernelbot validate --manifests manifests --state .taxkernelbot/state",
		"taxkernelbot validate --base origin/main   # what a pull request adds, and when it is first fetched",
		"taxkernelbot validate --base origin/main --cache-branch origin/fetch-cache   # robots.txt as the bot keeps it",
	},
	"report": {"taxkernelbot report", "taxkernelbot report --check                 # CI: exit 1, naming each file, when reports/ are not what report writes for the manifests they were rendered for", "taxkernelbot report --check --changed-since origin/main   # a pull request: every file it changed under reports/ too", "taxkernelbot report --state .taxkernelbot/state --reports reports"},
	"cite":   {"taxkernelbot cite uk-income-tax-rates", "taxkernelbot cite uk-income-tax-rates --json", "taxkernelbot cite uk-income-tax-rates --at 2026-06-30", "taxkernelbot cite uk-ita-2007 --attest uk-ita-2007.jws   # signed: served from D1 to D2"},
	"verify": {"taxkernelbot verify", "taxkernelbot verify --json", "taxkernelbot verify --snapshots snapshots", "taxkernelbot verify --dataset taxkernelbot-dataset-2026-11   # a release, offline", "taxkernelbot verify --attestation uk-ita-2007.jws --directory http-message-signatures-directory"},
	"dataset": {
		"taxkernelbot dataset -o dist/2026-11 --month 2026-11",
		"taxkernelbot dataset -o dist/last-month            # the month before this one (UTC)",
		"taxkernelbot dataset -o dist/q4 --from 2026-10-01 --to 2026-12-31",
	},
	"blob": {"taxkernelbot blob 5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e -o rates.pdf   # from snapshots/, the release assets or a bucket, verified"},
	"migrate": {"taxkernelbot migrate             # in GitHub Actions: main's blobs to the release assets, 300 a run",
		"taxkernelbot migrate --max 50    # a bucket under stores: in policy.yaml, its keys in the environment"},
	"robots": {"taxkernelbot robots https://www.gov.uk/income-tax-rates", "taxkernelbot robots https://www.gov.uk/income-tax-rates --json"},
	"demo":   {"taxkernelbot demo", "taxkernelbot demo --keep"},
	"ci":     {"taxkernelbot ci                       # in GitHub Actions, as fetch.yml runs it"},
	"publish": {
		"taxkernelbot publish --preview        # the pull request's title and body, locally",
	},
	"policy":  {"taxkernelbot policy", "taxkernelbot policy --manifests manifests --reports reports"},
	"ledger":  {"taxkernelbot ledger www.gov.uk", "taxkernelbot ledger www.gov.uk --since 2026-11-01 --until 2026-11-30", "taxkernelbot ledger https://www.gov.uk/ --json", "taxkernelbot ledger www.gov.uk --from-branch   # the ledgers of origin/fetch-cache in this clone"},
	"version": {"taxkernelbot version"},
	"refs": {
		"taxkernelbot refs ../policyengine-uk                 # every reference, matched to the archive",
		"taxkernelbot refs ../policyengine-us --exclude policyengine_us/parameters/gov/states --json",
		"taxkernelbot refs ../openfisca-aotearoa --suggest --top 20 --jurisdiction nz   # manifest entries to review",
		"taxkernelbot refs ../policyengine-uk --issue   # in GitHub Actions: the one issue of cited documents that changed",
	},
	"warc": {
		"taxkernelbot warc -o archive.warc.gz",
		"taxkernelbot warc --since 2026-11-01 --only uk -o uk-november.warc.gz",
	},
	"keys": {
		"taxkernelbot keys generate > key.pem          # then store it as the secret TAXKERNELBOT_SIGNING_KEY",
		"TAXKERNELBOT_SIGNING_KEY=\"$(cat key.pem)\" taxkernelbot keys directory -o reports/.well-known/http-message-signatures-directory",
		"taxkernelbot keys card --directory reports/.well-known/http-message-signatures-directory   # the agent card beside it",
	},
}

// helpMore is said in a command's --help after its examples: what its
// --json prints, field by field.
var helpMore = map[string]string{
	"validate": `--json prints one object, its fields in this order:
  manifests     the directory validated
  valid         true when there is no error (warnings allowed)
  counts        {manifests, sources, hosts, errors, warnings}
  diagnostics   [{file, line, column, severity ("error" or "warning"), message, fix}];
                line and column 1-based, 0 when unknown; fix is the message's advice, "" when it has none apart
`,
	"run": `--dry-run --json prints one object, its fields in this order:
  requests, deferred, excluded   how many in all
  hosts         [{host, wait_ms, requests, sources}], the hosts with something due (all of --only's)
    wait_ms     when the host's last request would leave, in milliseconds after the start
    requests    [{at_ms, purpose ("robots", "document" or "redirect"), source, url}], in the order they would leave
    sources     [{id, url, action, why, at_ms}]: action "request" (at at_ms), "deferred", "skipped" or "excluded", and why
`,
	"verify": `--json prints one object, its fields in this order:
  target        "snapshots", "dataset" or "attestation"
  dir           the directory verified
  ok            true when no problem was found
  counts        {problems, sources, blobs, files, documents, responses, texts, changes}: sources and blobs for the store,
                the others for a dataset (0 for the other target)
  problems      [{path, message}], sorted
  attestation   with --attestation, when it verified: {key (the signing key's kid), statement}: the in-toto
                Statement {_type, subject [{name, digest}], predicateType, predicate {url, final_url, claim,
                from, until, checks, size, content_type, source, title, frbr, issued}}; target "attestation"
`,
	"robots": `--json prints one object, its fields in this order:
  url, agent    the URL decided and the product token matched against User-agent lines
  decision      "allowed" or "disallowed", as robots.txt says
  reason        why, in words; group: the user-agent group that applied ("*" or the agent's)
  rule          {directive ("Allow" or "Disallow"), pattern, line}: the line that decided; null when none matched
  crawl_delay_seconds   the group's Crawl-delay, 0 when none
  max_crawl_rate        the group's max-crawl-rate as written ("10/m"), when it has one
  usage         what the copy's Content-Usage and Content-Signal rules say of the URL, when they say anything:
                content_usage, content_signal and statements ({field, from, path, value, invalid}), as cite
                --json gives them
  override      the host's robots_override permission when it lifts this Disallow
  copy          {url, fetched (RFC 3339, UTC), http_status, outcome, current, stale}: the kept copy decided from;
                current false when a run would fetch robots.txt again first, and stale says why
`,
	"cite": `--json prints one object, its fields in this order:
  source, jurisdiction, jurisdiction_name, title, url, final_url, retrieved, first_seen, sha256, size,
  content_type, blob, text, text_reason, text_missing, at, held_until (the last five only when set)
  first_confirmed, last_confirmed, confirmations   the UTC dates of the first and last checks in the ledgers that
                found these bytes (the same bytes, or a 304) while they were held, and how many did; absent when none
  frbr          the bytes in FRBR's levels, when the manifest knows the work or the edition:
                {work: {scheme, id}, expression: {edition ("current", "as-enacted" or "point-in-time"), date,
                from_url (read from the URL)}, manifestation: {media_type}, item: {sha256}}
  usage         only when the publisher said something about the use of the bytes: content_usage and
                content_signal, each key's most restrictive value; statements, each with field, from, path,
                value and invalid, as written
`,
	"refs": `--json prints one object, its fields in this order:
  dir           the directory read
  references, urls, files   how many references, distinct cited URLs and files citing
  matched       [{kind, references, urls}], by kind of match, best first: exact, normalised, same-provision,
                edition, inside, within (these six: the archive holds the text), sibling, host, none, no-url, not-url
  top           [{url, title, files, references, match, held}]: the documents cited by most files (--top)
  top_held      how many of top are held
  references_list  [{file, line, parameter, level, from, title, href, date_key, match, held}]:
    level       parameter, node, value or inherited (from: the file:line that declares it)
    match       {kind, source, url, how}: the manifest source matched and why
    held        for the six held kinds: {status ("held", or "listed" before a run fetches it), sha256, retrieved,
                ref_date, ref_date_from ("url", "date-key" or "git"), on_ref_date (the sha256 held that day),
                first_retrieved (when nothing was held yet that day; before_first_retrieved is then true),
                changed_after ("yes", "no" or "unknown"), changed_on, change_from, change_from_date and change_to
                (the two sides of that change), provision (the provision of a held whole text the URL cites:
                "s. 19"), provision_change ("amended", "added" or "repealed") and provision_address (its page),
                changed_by ("provision": told by the provisions the change documents list; "document": by any
                change, its change document listing none), note (what is known of the bytes cited, in words)}
                A change the archive saw after its first copy is a change after every older reference: "yes",
                though what it cited may differ from both sides; "unknown" is left where nothing changed since
                the first copy, or the reference has no date.
  problems      [{file, line, message}]: files that could not be read
  watch         {watched (a held document and a date), changed, unchanged, waiting (older than the first copy,
                no change seen since), since [{date, documents, references}] (by the day first held), no_date,
                listed (not fetched yet), not_held}
--suggest --json prints {dir, suggestions: [{id, url, kind, title, files, references, cited, official, why}]}.
`,
	"ledger": `--json prints one JSON object per request, a line each (the ledger's own fields).
`,
}

func cmdVersion(_ context.Context, io IO, args []string) error {
	fs := newFlags("version", "[flags]", io)
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(io.Out, versionText())
	return nil
}

// versionText is "taxkernelbot VERSION (commit C[, modified], built TIME) GO".
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "taxkernelbot (no build information: built without module support)"
	}
	version := info.Main.Version
	if version == "" || version == "(devel)" {
		version = "devel"
	}
	var details []string
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		c := "commit " + rev
		if settings["vcs.modified"] == "true" {
			c += ", modified"
		}
		details = append(details, c)
	}
	if t := settings["vcs.time"]; t != "" {
		details = append(details, "committed "+t)
	}
	out := "taxkernelbot " + version
	if len(details) > 0 {
		out += " (" + strings.Join(details, ", ") + ")"
	}
	return out + " " + info.GoVersion
}
