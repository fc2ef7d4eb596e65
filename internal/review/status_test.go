package review

import (
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// TestStillFailingIsEveryFailure: a source failing before this run too is
// listed under "Still failing" whatever its failure status, paused
// included, as the report counts it a failure and an issue is opened for
// it.
func TestStillFailingIsEveryFailure(t *testing.T) {
	var es []report.Entry
	for _, st := range []state.Status{state.Failing, state.Gone, state.TooLarge, state.RobotsUnavailable, state.Unreachable, state.Paused, state.Moved} {
		es = append(es, report.Entry{ID: "uk-" + string(st), Jurisdiction: "uk", URL: "https://www.gov.uk/" + string(st), Status: st, Since: "2026-11-02"})
	}
	es = append(es, report.Entry{ID: "uk-blocked", Jurisdiction: "uk", URL: "https://www.gov.uk/b", Status: state.BlockedRobots, Since: "2026-11-02"})
	r := &report.Report{Sources: es}
	changes := report.Diff(r, r)
	body := Body(append(changes, report.Change{ID: "uk-new", Jurisdiction: "uk", New: fresh("uk", "uk-new", sha("1"), 1), Kind: report.KindNewSource}), SummaryOf(r), links(testRunURL), Details{})
	if !strings.Contains(body, "### Still failing (7)") {
		t.Fatalf("want the seven failing sources under Still failing:\n%s", body)
	}
	if !strings.Contains(body, "uk-paused") {
		t.Errorf("the paused source is not listed:\n%s", body)
	}
	if strings.Contains(body, "uk-blocked") {
		t.Errorf("a gap is listed as a failure:\n%s", body)
	}
}
