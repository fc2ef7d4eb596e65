package ledger

import "time"

// Event names.
const (
	Dispatch = "dispatch"
	Result   = "result"
)

// Purpose of a dispatch.
const (
	PurposeRobots   = "robots"
	PurposeDocument = "document"
	PurposeRedirect = "redirect"
)

// Line is one ledger record. Dispatch lines carry Time, Host, URL, Purpose,
// Source; result lines add Status, Bytes, SHA256, DurationMS, Error.
type Line struct {
	Event      string    `json:"event"`
	Time       time.Time `json:"time"`
	Host       string    `json:"host"`
	URL        string    `json:"url"`
	Purpose    string    `json:"purpose,omitempty"`
	Source     string    `json:"source,omitempty"`
	RunID      string    `json:"run,omitempty"`
	Status     int       `json:"status,omitempty"`
	Bytes      int64     `json:"bytes,omitempty"`
	SHA256     string    `json:"sha256,omitempty"`
	DurationMS int64     `json:"duration_ms,omitempty"`
	Error      string    `json:"error,omitempty"`
}

// Ledger appends to and reads the ledger files under one directory.
// It is safe for concurrent use.
type Ledger struct {
	dir string
	// TODO: open files cache, mutex
}

// Open returns the ledger rooted at dir (usually <state>/ledgers), creating it.
func Open(dir string) (*Ledger, error) {
	panic("TODO")
}

// Append writes l to the file of l.Host for l.Time's UTC day with a single
// write, then fsyncs. When it returns nil the line survives a crash.
func (l *Ledger) Append(line Line) error {
	panic("TODO")
}

// Dispatches counts the dispatch lines of host on day (UTC, "YYYY-MM-DD").
func (l *Ledger) Dispatches(day, host string) (int, error) {
	panic("TODO")
}

// Read returns every whole line of host on day, in file order. A torn last
// line is ignored (and repaired on the next Append).
func (l *Ledger) Read(day, host string) ([]Line, error) {
	panic("TODO")
}

// Close closes any open files.
func (l *Ledger) Close() error {
	panic("TODO")
}

// FileName is the file name used for host: "host:port" becomes
// "host_port.jsonl"; IPv6 brackets and colons are replaced so the name is
// portable.
func FileName(host string) string {
	panic("TODO")
}
