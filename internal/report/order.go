package report

import "github.com/taxkernel/taxkernelbot/internal/state"

// CompareStatus orders statuses as every count in the report does: what is
// held, then what is not yet, then what went wrong.
func CompareStatus(a, b state.Status) int { return compareStatus(a, b) }
