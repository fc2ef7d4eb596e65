package ledger

import (
	"slices"
	"time"
)

// Confirmations returns the times at which a check of source found the
// bytes named sum, oldest first: a 2xx answer carrying them, or a 304
// (not modified) while they were the bytes held. What was held at a 304
// is the document of the last 2xx answer before it in the ledgers, or,
// when the ledgers hold none (they began later, or were pruned),
// heldAt's answer for that time (from the index). Robots requests and
// answers recorded as not the document (a bot challenge, a maintenance
// page) confirm nothing and change nothing held.
func Confirmations(dir, source, sum string, heldAt func(time.Time) string) ([]time.Time, error) {
	var lines []Line
	err := ScanAll(dir, func(l Line) error {
		if l.Event == Result && l.Source == source && l.Purpose != PurposeRobots && l.NotDocument == "" && l.Error == "" {
			lines = append(lines, l)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Files are read host by host: a source that moved hosts has its
	// lines in two files of one day.
	slices.SortStableFunc(lines, func(a, b Line) int { return a.Time.Compare(b.Time) })
	var out []time.Time
	held := ""
	for _, l := range lines {
		switch {
		case l.Status/100 == 2 && l.SHA256 != "":
			held = l.SHA256
			if held == sum {
				out = append(out, l.Time)
			}
		case l.Status == 304:
			h := held
			if h == "" && heldAt != nil {
				h = heldAt(l.Time)
			}
			if h == sum {
				out = append(out, l.Time)
			}
		}
	}
	return out, nil
}
