package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// Request is one request as the ledger tells it: its dispatch line joined
// with its result line. A request whose result line is missing (the run
// was killed while it was in flight) has Result false.
type Request struct {
	Time       time.Time `json:"time"`
	Method     string    `json:"method"`
	URL        string    `json:"url"`
	Purpose    string    `json:"purpose"`
	Source     string    `json:"source,omitempty"`
	RunID      string    `json:"run,omitempty"`
	Result     bool      `json:"result"`
	Status     int       `json:"status,omitempty"`
	Bytes      int64     `json:"bytes,omitempty"`
	SHA256     string    `json:"sha256,omitempty"`
	DurationMS int64     `json:"duration_ms,omitempty"`
	Error      string    `json:"error,omitempty"`
}

// Requests returns every request made to host on the UTC days from since
// to until ("YYYY-MM-DD", both included; empty means no bound), oldest
// first. Each result line is joined with the earliest dispatch line of the
// same URL, purpose and run that has none yet: one request at a time per
// host makes that the request it answers.
func (l *Ledger) Requests(host, since, until string) ([]Request, error) {
	if err := checkRange(since, until); err != nil {
		return nil, err
	}
	days, err := Days(l.dir)
	if err != nil {
		return nil, err
	}
	return joinRequests(days, since, until, func(day string) ([]Line, error) { return l.Read(day, host) })
}

// RequestsFS is Requests over ledgers kept elsewhere: fsys holds the day
// directories at its root, as the cache branch keeps them under ledgers/.
// A torn last line is ignored, as Read ignores it.
func RequestsFS(fsys fs.FS, host, since, until string) ([]Request, error) {
	if err := checkRange(since, until); err != nil {
		return nil, err
	}
	days, err := daysIn(fsys)
	if err != nil {
		return nil, err
	}
	return joinRequests(days, since, until, func(day string) ([]Line, error) {
		data, err := fs.ReadFile(fsys, Path(day, host))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		return Parse(data, host)
	})
}

func checkRange(since, until string) error {
	for _, d := range []string{since, until} {
		if d == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			return fmt.Errorf("ledger: day %q is not YYYY-MM-DD", d)
		}
	}
	return nil
}

// joinRequests joins the dispatch and result lines that read returns for
// each of days within [since, until].
func joinRequests(days []string, since, until string, read func(day string) ([]Line, error)) ([]Request, error) {
	var out []Request
	open := map[string][]int{} // url, purpose, run → indexes in out awaiting a result
	for _, day := range days {
		if (since != "" && day < since) || (until != "" && day > until) {
			continue
		}
		lines, err := read(day)
		if err != nil {
			return nil, err
		}
		for _, line := range lines {
			key := line.URL + "\x00" + line.Purpose + "\x00" + line.RunID
			switch line.Event {
			case Dispatch:
				open[key] = append(open[key], len(out))
				out = append(out, Request{
					Time: line.Time, Method: "GET", URL: line.URL, Purpose: line.Purpose,
					Source: line.Source, RunID: line.RunID,
				})
			case Result:
				waiting := open[key]
				if len(waiting) == 0 {
					continue // its dispatch is on a day outside the range
				}
				r := &out[waiting[0]]
				open[key] = waiting[1:]
				r.Result = true
				r.Status, r.Bytes, r.SHA256 = line.Status, line.Bytes, line.SHA256
				r.DurationMS, r.Error = line.DurationMS, line.Error
			}
		}
	}
	return out, nil
}
