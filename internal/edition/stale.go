package edition

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// taxYear is when a jurisdiction's tax year starts, and how a bare year
// names one.
type taxYearRule struct {
	month time.Month
	day   int
	// yearNamesEnd: a year alone names the tax year that ends in it (New
	// Zealand's "2026 tax year" is 1 April 2025 to 31 March 2026, the
	// ATO's "2026 income year" 1 July 2025 to 30 June 2026); elsewhere
	// the year it starts in.
	yearNamesEnd bool
}

// taxYears are the tax years that do not follow the calendar: the UK's
// starts on 6 April (the old quarter day, kept since 1800), Australia's
// on 1 July, New Zealand's on 1 April. Every other jurisdiction listed
// (Canada, the United States, Germany, Spain, Ireland) taxes by calendar
// year. One table, so that a jurisdiction added with a tax year of its own
// is added here.
var taxYears = map[string]taxYearRule{
	"uk": {month: time.April, day: 6},
	"au": {month: time.July, day: 1, yearNamesEnd: true},
	"nz": {month: time.April, day: 1, yearNamesEnd: true},
}

func ruleOf(jurisdiction string) taxYearRule {
	if r, ok := taxYears[jurisdiction]; ok {
		return r
	}
	return taxYearRule{month: time.January, day: 1}
}

// CurrentTaxYear is the year the jurisdiction's tax year in force at now
// (read in loc, the jurisdiction's time zone) started in.
func CurrentTaxYear(jurisdiction string, now time.Time, loc *time.Location) int {
	if loc == nil {
		loc = time.UTC
	}
	now = now.In(loc)
	r := ruleOf(jurisdiction)
	if now.Before(time.Date(now.Year(), r.month, r.day, 0, 0, 0, 0, loc)) {
		return now.Year() - 1
	}
	return now.Year()
}

// taxYearOf is the year the tax year src's address names started in, 0
// when it names none (a date or a register id names when the document
// was made, not which year it is for).
func taxYearOf(src manifest.Source, marks []Mark) int {
	y := 0
	for _, m := range marks {
		start := m.Year
		switch m.Form {
		case TaxYear, PayrollIssue:
		case Date:
			if m.shape != "month" {
				continue // a day is when it was made (the BMF's 2025-11-12-PAP-2026)
			}
		case Year:
			if ruleOf(src.Jurisdiction).yearNamesEnd {
				start--
			}
		default:
			continue
		}
		y = max(y, start)
	}
	return y
}

// Stale warns of each source whose address names a tax year older than
// its jurisdiction's current one while no later edition of it is listed:
// the held bytes are true, and last year's. Only the newest source of an
// address pattern is told of: the earlier ones are kept for their years.
// An address that changed its pattern (a publisher renamed the page) is
// followed by its id: a source whose id is this one's with a later year
// (us-cms-medicare-part-b-2025 → -2026) is its successor too.
// It reads the manifests only (no network, no held page); now is the
// caller's clock. only, when set, says which sources to tell of (those a
// pull request adds); the others still count as successors.
func Stale(set *manifest.Set, now time.Time, only func(manifest.Source) bool) manifest.Diagnostics {
	locs := map[string]*time.Location{}
	for _, m := range set.Manifests {
		locs[m.Jurisdiction] = m.Location
	}
	byID := map[string]int{} // the newest year of each id pattern
	for _, src := range set.Sources {
		if marks, ok := Subject(src); ok {
			if k, ok := idKey(src.ID); ok {
				byID[k] = max(byID[k], newest(marks))
			}
		}
	}
	var out manifest.Diagnostics
	for _, s := range seriesOf(set) {
		src := s.newest
		held := taxYearOf(*src, s.marks)
		if held == 0 || only != nil && !only(*src) {
			continue
		}
		if k, ok := idKey(src.ID); ok && byID[k] > newest(s.marks) {
			continue
		}
		current := CurrentTaxYear(src.Jurisdiction, now, locs[src.Jurisdiction])
		if held >= current {
			continue
		}
		r := ruleOf(src.Jurisdiction)
		out = append(out, manifest.Diagnostic{
			File: src.File, Line: src.Line, Severity: manifest.Warning,
			Message: fmt.Sprintf("%s: the address names the edition of %d, and %s's tax year %s (from %d %s %d) is in force, with no later edition listed: the held figures are an earlier year's. "+
				"When the next edition is published, list its address as a source of its own (the bot's pull request proposes it once a held page links to it); a source kept for its year only can stay as it is",
				src.ID, held, src.Jurisdiction, r.name(current), r.day, r.month, current),
		})
	}
	slices.SortFunc(out, func(a, b manifest.Diagnostic) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return out
}

// idKey is the pattern of an id that names a year.
func idKey(id string) (string, bool) {
	marks := Marks(id)
	return Key(id, marks), len(marks) > 0
}

// name writes the tax year that starts in start: 2026-27, or 2026 where
// it is the calendar year.
func (r taxYearRule) name(start int) string {
	if r.month == time.January && r.day == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d-%02d", start, (start+1)%100)
}
