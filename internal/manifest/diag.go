package manifest

import (
	"fmt"
	"io"
	"strconv"

	"github.com/taxkernel/taxkernelbot/internal/escape/workflow"
)

// Severity of a Diagnostic.
type Severity int

const (
	Error Severity = iota
	Warning
)

// Diagnostic is one problem found in a manifest.
type Diagnostic struct {
	File string
	Line int // 1-based; 0 when the problem is the whole file
	// Column is where the YAML entry on Line starts (1-based), 0 when
	// unknown.
	Column   int
	Severity Severity
	Message  string // says what is wrong and what to do
}

// String renders "file:line: message" (warnings: "file:line: warning: message").
func (d Diagnostic) String() string {
	prefix := ""
	if d.Severity == Warning {
		prefix = "warning: "
	}
	return fmt.Sprintf("%s:%d: %s%s", d.File, d.Line, prefix, d.Message)
}

// Position renders "file:line:column", "file:line" when the column is
// unknown, or "file" for a problem of the whole file.
func (d Diagnostic) Position() string {
	switch {
	case d.Line <= 0:
		return d.File
	case d.Column <= 0:
		return fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	return fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Column)
}

// Annotation renders the GitHub Actions workflow command for d:
// "::error file=F,line=L,col=C::message" or "::warning ...", the file
// name (a contributor's) and the message escaped, so that neither adds a
// property or a line.
func (d Diagnostic) Annotation() string {
	return workflow.Command(d.annotation())
}

// Annotate writes d's annotation on a line of its own to w (through
// workflow.Emit, which a workflow.Writer lets pass).
func (d Diagnostic) Annotate(w io.Writer) error {
	name, props, msg := d.annotation()
	return workflow.Emit(w, name, props, msg)
}

func (d Diagnostic) annotation() (string, []workflow.Prop, string) {
	kind := "error"
	if d.Severity == Warning {
		kind = "warning"
	}
	props := []workflow.Prop{{Key: "file", Value: d.File}, {Key: "line", Value: strconv.Itoa(d.Line)}}
	if d.Column > 0 {
		props = append(props, workflow.Prop{Key: "col", Value: strconv.Itoa(d.Column)})
	}
	return kind, props, d.Message
}

// Diagnostics is a list of problems, in file then line order.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}
