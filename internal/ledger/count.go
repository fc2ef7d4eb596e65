package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Usage is what one day's ledger of one host shows: its dispatch lines, in
// all and per run id ("" for lines without one). The per-run figures are
// what lease accounting subtracts from a run's reservation.
type Usage struct {
	Total int
	ByRun map[string]int
}

func (u *Usage) add(run string) {
	u.Total++
	if u.ByRun == nil {
		u.ByRun = map[string]int{}
	}
	u.ByRun[run]++
}

// Count counts the dispatch lines of host in data, the content of one
// ledger file (<day>/FileName(host)) wherever it is kept: a local ledger
// directory or a cache branch tip. It is the one count of a day's
// dispatches: the cap, the leases and the pages all use it.
//
// Only whole lines count: a torn last line was never acknowledged. Blank
// lines are skipped (Merge keeps the branch's copy verbatim, so they can
// reach a local file). Lines of other hosts sharing the file name are
// skipped. A whole line that does not decode is an error naming its number:
// a count built on it would not be trustworthy.
func Count(data []byte, host string) (Usage, error) {
	return count(data, host, func(n int, err error) error {
		return fmt.Errorf("ledger of %s, line %d: %w", host, n, err)
	})
}

// CountFile is Count over the file at path; a missing file has no lines.
// Its errors name the file and line.
func CountFile(path, host string) (Usage, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Usage{}, nil
	}
	if err != nil {
		return Usage{}, fmt.Errorf("ledger: %w", err)
	}
	return count(data, host, func(n int, err error) error { return corruptLine(path, n, err) })
}

// count is Count with bad making the error of whole line n.
func count(data []byte, host string, bad func(n int, err error) error) (Usage, error) {
	var u Usage
	for n := 1; ; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return u, nil
		}
		line := data[:i]
		data = data[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		// Only the fields a count needs: this is the cap's hot path.
		var v struct {
			Event string `json:"event"`
			Host  string `json:"host"`
			RunID string `json:"run"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			return Usage{}, bad(n, err)
		}
		if v.Event == Dispatch && v.Host == host {
			u.add(v.RunID)
		}
	}
}

// corruptLine is the error of line n of the ledger file at path that does
// not decode.
func corruptLine(path string, n int, err error) error {
	return fmt.Errorf("%s:%d: corrupt ledger line (%w): Append never writes one, so the file was edited or merged by hand; restore it from the cache branch", path, n, err)
}

// CountDaysFS returns the number of dispatch lines of host per UTC day on
// the days from since to until (both included, "YYYY-MM-DD") in fsys, which
// holds the day directories at its root, as the cache branch keeps them
// under ledgers/. Days without a dispatch are left out.
func CountDaysFS(fsys fs.FS, host, since, until string) (map[string]int, error) {
	days, err := daysIn(fsys)
	if err != nil {
		return nil, err
	}
	return countDays(days, since, until, func(day string) (int, error) {
		data, err := fs.ReadFile(fsys, Path(day, host))
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("ledger: %w", err)
		}
		u, err := Count(data, host)
		return u.Total, err
	})
}

// CountDispatches is CountDaysFS over this ledger's directory.
func (l *Ledger) CountDispatches(host, since, until string) (map[string]int, error) {
	days, err := Days(l.dir)
	if err != nil {
		return nil, err
	}
	return countDays(days, since, until, func(day string) (int, error) { return l.Dispatches(day, host) })
}

// countDays counts with n each of days within [since, until].
func countDays(days []string, since, until string, n func(day string) (int, error)) (map[string]int, error) {
	out := map[string]int{}
	for _, day := range days {
		if day < since || day > until {
			continue
		}
		c, err := n(day)
		if err != nil {
			return nil, err
		}
		if c > 0 {
			out[day] = c
		}
	}
	return out, nil
}
