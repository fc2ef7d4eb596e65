package public

import (
	"bytes"
	"embed"
	"html/template"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/agentcard"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/report"
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

// IndexHTML renders reports/index.html: how to make us stop, the coverage
// summary, the rules and the hosts. A plain static page: no script, one
// inline style sheet, links to the Markdown pages beside it.
func (r Rules) IndexHTML(rep *report.Report) ([]byte, error) {
	sum := rep.Summary()
	var buf bytes.Buffer
	err := indexTemplate.Execute(&buf, map[string]any{
		"Rules":         r,
		"Overrides":     r.Overrides(),
		"Statuses":      sum.Statuses,
		"Jurisdictions": sum.Jurisdictions,
		"Total":         len(rep.Sources),
		"Hosts":         len(r.Hosts),
		"CardDraft":     agentcard.Draft,
	})
	return buf.Bytes(), err
}
