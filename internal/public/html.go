package public

import (
	"bytes"
	"embed"
	"html/template"
	"slices"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

//go:embed templates/index.html.tmpl
var templates embed.FS

var indexTemplate = template.Must(template.New("index.html.tmpl").Funcs(template.FuncMap{
	"dur":   fmtDuration,
	"delay": fmtDelay,
	"size":  policy.FormatSize,
	"windows": func(h policy.Host) string {
		if len(h.OffPeak) == 0 {
			return "any time"
		}
		var ws []string
		for _, w := range h.OffPeak {
			ws = append(ws, w.Literal)
		}
		return strings.Join(ws, ", ") + " (" + h.Location.String() + ")"
	},
}).ParseFS(templates, "templates/index.html.tmpl"))

type jurisdictionRow struct {
	Name   string
	Counts []int
	Total  int
}

// IndexHTML renders reports/index.html: how to make us stop, the coverage
// summary, the rules and the hosts. A plain static page: no script, one
// inline style sheet, links to the Markdown pages beside it.
func (r Rules) IndexHTML(rep *report.Report) ([]byte, error) {
	var statuses []state.Status
	seen := map[state.Status]bool{}
	for _, e := range rep.Sources {
		if !seen[e.Status] {
			seen[e.Status] = true
			statuses = append(statuses, e.Status)
		}
	}
	slices.SortFunc(statuses, report.CompareStatus)
	es := slices.Clone(rep.Sources)
	slices.SortStableFunc(es, func(a, b report.Entry) int { return strings.Compare(a.Jurisdiction, b.Jurisdiction) })
	var rows []jurisdictionRow
	for _, e := range es {
		if len(rows) == 0 || rows[len(rows)-1].Name != e.Jurisdiction {
			rows = append(rows, jurisdictionRow{Name: e.Jurisdiction, Counts: make([]int, len(statuses))})
		}
		row := &rows[len(rows)-1]
		row.Counts[slices.Index(statuses, e.Status)]++
		row.Total++
	}
	var buf bytes.Buffer
	err := indexTemplate.Execute(&buf, map[string]any{
		"Rules":         r,
		"Overrides":     r.Overrides(),
		"Statuses":      statuses,
		"Jurisdictions": rows,
		"Total":         len(rep.Sources),
		"Hosts":         len(r.Hosts),
	})
	return buf.Bytes(), err
}
