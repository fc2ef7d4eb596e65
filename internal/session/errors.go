package session

import (
	"errors"
	"fmt"
)

// The kinds of error Run returns, for errors.Is: a caller maps them to its
// exit codes. The kind never changes the message: it is the wrapped error's.
var (
	// ErrUsage: an option is wrong (an --only that names nothing, a signing
	// key that does not parse); nothing was done.
	ErrUsage = errors.New("bad run option")
	// ErrCannot: the run could not start or could not save what it did
	// (the state locked by another run, an unwritable store); pipeline's
	// ErrFatal is one too.
	ErrCannot = errors.New("could not run")
	// ErrInterrupted: ctx ended the run; what it did is saved.
	ErrInterrupted = errors.New("interrupted")
	// ErrFailures: the run completed and recorded failing sources; what
	// failed is in the report.
	ErrFailures = errors.New("the run completed with failures recorded (see the report)")
)

// kindError is err under kind: its message is err's alone.
type kindError struct{ kind, err error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

func usageError(format string, args ...any) error {
	return &kindError{ErrUsage, fmt.Errorf(format, args...)}
}

func cannotRun(format string, args ...any) error {
	return &kindError{ErrCannot, fmt.Errorf(format, args...)}
}
