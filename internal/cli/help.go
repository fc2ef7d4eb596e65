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
		"taxkernelbot run --max-duration 20m",
	},
	"validate": {
		"taxkernelbot validate",
		"taxkernelbot validate --manifests manifests --state .taxkernelbot/state",
		"taxkernelbot validate --base origin/main   # what a pull request adds, and when it is first fetched",
		"taxkernelbot validate --base origin/main --cache-branch origin/fetch-cache   # robots.txt as the bot keeps it",
	},
	"report": {"taxkernelbot report", "taxkernelbot report --state .taxkernelbot/state --reports reports"},
	"cite":   {"taxkernelbot cite uk-income-tax-rates", "taxkernelbot cite uk-income-tax-rates --json", "taxkernelbot cite uk-income-tax-rates --at 2026-06-30"},
	"verify": {"taxkernelbot verify", "taxkernelbot verify --snapshots snapshots", "taxkernelbot verify --dataset taxkernelbot-dataset-2026-11   # a release, offline"},
	"dataset": {
		"taxkernelbot dataset -o dist/2026-11 --month 2026-11",
		"taxkernelbot dataset -o dist/last-month            # the month before this one (UTC)",
		"taxkernelbot dataset -o dist/q4 --from 2026-10-01 --to 2026-12-31",
	},
	"robots": {"taxkernelbot robots https://www.gov.uk/income-tax-rates"},
	"demo":   {"taxkernelbot demo", "taxkernelbot demo --keep"},
	"ci":     {"taxkernelbot ci                       # in GitHub Actions, as fetch.yml runs it"},
	"publish": {
		"taxkernelbot publish --preview        # the pull request's title and body, locally",
	},
	"policy":  {"taxkernelbot policy", "taxkernelbot policy --manifests manifests --reports reports"},
	"ledger":  {"taxkernelbot ledger www.gov.uk", "taxkernelbot ledger www.gov.uk --since 2026-11-01 --until 2026-11-30", "taxkernelbot ledger https://www.gov.uk/ --json", "taxkernelbot ledger www.gov.uk --from-branch   # the ledgers of origin/fetch-cache in this clone"},
	"version": {"taxkernelbot version"},
	"warc": {
		"taxkernelbot warc -o archive.warc.gz",
		"taxkernelbot warc --since 2026-11-01 --only uk -o uk-november.warc.gz",
	},
	"keys": {
		"taxkernelbot keys generate > key.pem          # then store it as the secret TAXKERNELBOT_SIGNING_KEY",
		"TAXKERNELBOT_SIGNING_KEY=\"$(cat key.pem)\" taxkernelbot keys directory -o reports/.well-known/http-message-signatures-directory",
	},
}

// helpMore is said in a command's --help after its examples: what its
// --json prints, field by field.
var helpMore = map[string]string{}

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
