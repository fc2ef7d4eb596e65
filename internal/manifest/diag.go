package manifest

import "fmt"

// Severity of a Diagnostic.
type Severity int

const (
	Error Severity = iota
	Warning
)

// Diagnostic is one problem found in a manifest.
type Diagnostic struct {
	File     string
	Line     int // 1-based; 0 when the problem is the whole file
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

// Annotation renders the GitHub Actions workflow command for d:
// "::error file=F,line=L::message" or "::warning ...".
func (d Diagnostic) Annotation() string {
	kind := "error"
	if d.Severity == Warning {
		kind = "warning"
	}
	return fmt.Sprintf("::%s file=%s,line=%d::%s", kind, d.File, d.Line, d.Message)
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
