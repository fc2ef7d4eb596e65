package cli

import (
	"os"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// policyPage is reports/POLICY.md for set.
func policyPage(set *manifest.Set) public.File {
	return public.File{Name: "POLICY.md", Data: public.RulesOf(set).PolicyMarkdown()}
}

// writePublicPages regenerates the public pages under reportsDir from the
// local ledgers, each only when it changed, so they change in the bot's
// pull request exactly when what they show does.
func writePublicPages(reportsDir, ledgerDir string, set *manifest.Set, st *state.State, rep *report.Report, now time.Time) error {
	count := public.CountFunc(func(string, string, string) (map[string]int, error) { return nil, nil })
	if _, err := os.Stat(ledgerDir); err == nil { // no ledgers yet: no requests, and nothing to create
		l, err := ledger.Open(ledgerDir)
		if err != nil {
			return err
		}
		defer l.Close()
		count = l.CountDispatches
	}
	files, err := public.Pages(set, st, rep, count, now)
	if err != nil {
		return err
	}
	_, err = public.Write(reportsDir, files...)
	return err
}
