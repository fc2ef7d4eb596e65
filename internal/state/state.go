package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/audit"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Status is a source's coverage status.
type Status string

const (
	Pending           Status = "pending"
	Fresh             Status = "fresh"
	Failing           Status = "failing"
	Gone              Status = "gone"
	BlockedRobots     Status = "blocked-robots"
	RobotsUnavailable Status = "robots-unavailable"
	// Unreachable: the host could not be reached at all (name does not
	// resolve, connection refused or reset, TLS failure).
	Unreachable Status = "unreachable"
	Excluded    Status = "excluded"
	Paused      Status = "paused"
	Moved       Status = "moved"
	TooLarge    Status = "too-large"
)

// Failure says whether a source in status s counts as failing: something
// went wrong that may come right by itself or needs a person. Every status
// but fresh, pending and the gaps is one, paused included (a host that
// refuses us with 403 may want us to stop). The report's new failures, the
// pull request's new and lasting failures and the failure issues all go
// by it.
func (s Status) Failure() bool {
	switch s {
	case Fresh, Pending, "":
		return false
	}
	return !s.Gap()
}

// Gap says whether status s is a deliberate gap in coverage, chosen by the
// site or its owner (robots.txt, an exclusion): never routed around, never
// a failure.
func (s Status) Gap() bool { return s == BlockedRobots || s == Excluded }

// Source is what is known of one source.
type Source struct {
	Status Status `json:"status"`
	// Since is the UTC date (YYYY-MM-DD) of the last status change.
	Since string `json:"since"`
	// LastCheck is when the run that last completed a request for it
	// started, whatever the outcome (the start, so that rechecks do not
	// drift by the length of a run); LastGood is when the last 200 or 304
	// was received.
	LastCheck time.Time `json:"last_check,omitzero"`
	LastGood  time.Time `json:"last_good,omitzero"`

	HTTPStatus  int       `json:"http_status,omitempty"`
	SHA256      store.Sum `json:"sha256,omitempty"`
	Size        int64     `json:"size,omitempty"`
	ContentType string    `json:"content_type,omitempty"`
	FinalURL    string    `json:"final_url,omitempty"`
	Detail      string    `json:"detail,omitempty"`

	// Validators of the bytes named by SHA256; only sent while those bytes
	// are in the store.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`

	// FailedChecks counts the completed checks in a row that did not leave
	// the source fresh (0 once one does): "failing since Since, N checks".
	FailedChecks int `json:"failed_checks,omitempty"`
	// TextChecks are the last MaxTextChecks fetches that brought bytes,
	// oldest first: the raw hash and the hash of the default view's text,
	// from which a source that blinks (new bytes, same text) is told.
	TextChecks []TextCheck `json:"text_checks,omitempty"`
	// Noisy is set once the source starts blinking without a declared
	// view; it carries the view suggested then.
	Noisy *Noisy `json:"noisy,omitempty"`
	// Audit is what the first fetch that brought bytes found, held
	// against what the manifest entry promised; set once, never changed.
	Audit *audit.Audit `json:"first_fetch,omitempty"`
}

// MaxTextChecks is how many fetches TextChecks remembers.
const MaxTextChecks = 4

// TextCheck is one fetch that brought bytes: their SHA-256 and the hash of
// their text under the default view (empty when it has no text).
type TextCheck struct {
	Raw  string `json:"raw"`
	View string `json:"view,omitempty"`
}

// Noisy records when a source started blinking and the view that would
// keep it quiet.
type Noisy struct {
	Since   string   `json:"since"` // UTC date, YYYY-MM-DD
	Drop    []string `json:"drop,omitempty"`
	Ignore  []string `json:"ignore,omitempty"`
	Matched bool     `json:"matched,omitempty"` // the suggestion makes the fetches seen read alike
}

// AddTextCheck appends c to TextChecks, keeping the last MaxTextChecks.
func (s *Source) AddTextCheck(c TextCheck) {
	s.TextChecks = append(slices.Clone(s.TextChecks), c)
	if n := len(s.TextChecks); n > MaxTextChecks {
		s.TextChecks = s.TextChecks[n-MaxTextChecks:]
	}
}

// SetStatus sets s.Status and, when it changes, s.Since to now's UTC date.
func (s *Source) SetStatus(st Status, now time.Time) {
	if s.Status != st || s.Since == "" {
		s.Status = st
		s.Since = now.UTC().Format(time.DateOnly)
	}
}

// Host is the politeness memory of one host (host[:port]).
type Host struct {
	LastDispatch   time.Time `json:"last_dispatch,omitzero"`
	LastCompletion time.Time `json:"last_completion,omitzero"`
	// Failures is the backoff's n: consecutive 429/5xx/timeouts/network errors.
	Failures     int       `json:"failures,omitempty"`
	BackoffUntil time.Time `json:"backoff_until,omitzero"`
	// BackoffFromRetryAfter says BackoffUntil is the server's Retry-After,
	// not the policy's own backoff, so that a later run says which.
	BackoffFromRetryAfter bool `json:"backoff_from_retry_after,omitempty"`
	// Consecutive403 counts 403s in a row; PausedUntil is set when it
	// reaches the policy's pause_after_403.
	Consecutive403 int       `json:"consecutive_403,omitempty"`
	PausedUntil    time.Time `json:"paused_until,omitzero"`
	// RateLimitPolicy is the last RateLimit-Policy header the host sent,
	// as sent: a quota over a window slower than the policy spaces its
	// requests in later runs too. RateLimitUntil is when a RateLimit
	// header with nothing remaining said quota comes back.
	RateLimitPolicy string    `json:"ratelimit_policy,omitempty"`
	RateLimitUntil  time.Time `json:"ratelimit_until,omitzero"`
}

// RobotsOutcome is what a robots.txt fetch meant.
type RobotsOutcome string

const (
	RobotsParsed     RobotsOutcome = "parsed"      // 2xx: rules apply
	RobotsMissing    RobotsOutcome = "missing"     // 4xx except 429: all allowed
	RobotsUnreadable RobotsOutcome = "unavailable" // 429/5xx/network/too many redirects: all disallowed
	RobotsUnreached  RobotsOutcome = "unreachable" // the host could not be reached at all: all disallowed
)

// Robots is the kept copy of one robots.txt. Key: "scheme://host[:port]".
type Robots struct {
	URL        string        `json:"url"`
	FetchedAt  time.Time     `json:"fetched_at"`
	HTTPStatus int           `json:"http_status,omitempty"`
	Outcome    RobotsOutcome `json:"outcome"`
	Detail     string        `json:"detail,omitempty"`
	// Body is kept in robots/<key>.txt beside state.json, not in it.
	Body []byte `json:"-"`
}

// State is the whole memory. Use Load to read one from disk.
type State struct {
	saveMu sync.Mutex // one Save at a time, so an older snapshot never lands last

	mu      sync.Mutex
	sources map[string]Source
	hosts   map[string]Host
	robots  map[string]Robots
}

// New returns an empty State.
func New() *State {
	return &State{sources: map[string]Source{}, hosts: map[string]Host{}, robots: map[string]Robots{}}
}

// Clone returns a copy of s that shares nothing with it: what is put into
// one is not seen in the other. It costs what the state holds, without
// the encoding of Files.
func (s *State) Clone() *State {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &State{sources: make(map[string]Source, len(s.sources)), hosts: maps.Clone(s.hosts), robots: make(map[string]Robots, len(s.robots))}
	for id, src := range s.sources {
		src.TextChecks = slices.Clone(src.TextChecks)
		if src.Noisy != nil {
			n := *src.Noisy
			n.Drop, n.Ignore = slices.Clone(n.Drop), slices.Clone(n.Ignore)
			src.Noisy = &n
		}
		if src.Audit != nil {
			a := *src.Audit
			a.Mismatches = slices.Clone(a.Mismatches)
			src.Audit = &a
		}
		c.sources[id] = src
	}
	for key, r := range s.robots {
		r.Body = bytes.Clone(r.Body)
		c.robots[key] = r
	}
	return c
}

// Source returns the state of source id (Status Pending when never seen).
func (s *State) Source(id string) Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	src, ok := s.sources[id]
	if !ok {
		return Source{Status: Pending}
	}
	return src
}

// PutSource stores the state of source id.
func (s *State) PutSource(id string, src Source) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sources[id] = src
}

// Host returns the memory of host (zero when never seen).
func (s *State) Host(name string) Host {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hosts[name]
}

// PutHost stores the memory of host.
func (s *State) PutHost(name string, h Host) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hosts[name] = h
}

// Robots returns the kept robots.txt for key ("scheme://host[:port]").
func (s *State) Robots(key string) (Robots, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.robots[key]
	r.Body = bytes.Clone(r.Body)
	return r, ok
}

// PutRobots keeps a robots.txt copy.
func (s *State) PutRobots(key string, r Robots) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Body = bytes.Clone(r.Body) // a copy in, a copy out: the caller may reuse its buffer
	s.robots[key] = r
}

// SourceIDs returns the ids with a stored state, sorted.
func (s *State) SourceIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.sources))
}

// HostNames returns the hosts with a stored memory, sorted.
func (s *State) HostNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.hosts))
}

// RobotsKeys returns the keys of the kept robots.txt copies, sorted.
func (s *State) RobotsKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.robots))
}

// file is the shape of state.json. Robots bodies live beside it.
type file struct {
	Sources map[string]Source `json:"sources"`
	Hosts   map[string]Host   `json:"hosts"`
	Robots  map[string]Robots `json:"robots"`
}

// Load reads dir/state.json and dir/robots/. A missing directory or file is
// an empty State, not an error; a corrupt one is an error naming the file
// (a *CorruptError, which matches ErrCorrupt).
func Load(dir string) (*State, error) {
	s, err := Decode(os.DirFS(dir))
	if err != nil {
		if ce, ok := errors.AsType[*CorruptError](err); ok {
			ce.File = filepath.Join(dir, stateFile)
			return nil, fmt.Errorf("state: %w", ce)
		}
		return nil, fmt.Errorf("state: %s: %w", filepath.Join(dir, stateFile), err)
	}
	return s, nil
}

// ErrCorrupt is matched (errors.Is) by every error that says a state file
// does not decode or holds a value no run writes.
var ErrCorrupt = errors.New("state: corrupt state file")

// CorruptError says which file and which field of it are wrong, and why.
type CorruptError struct {
	File  string // "state.json", or its path when read by Load
	Field string // e.g. sources["uk-vat"].sha256; empty when the file does not parse
	Err   error  // what is wrong with it
}

func (e *CorruptError) Error() string {
	what := "corrupt (" + e.Err.Error() + ")"
	if e.Field != "" {
		what = e.Field + ": " + e.Err.Error()
	}
	return e.File + ": " + what + "; it only caches what the ledgers and the store hold: " +
		"move it aside or remove it and the next run starts afresh (daily caps still hold, they are counted from the ledgers)"
}

func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// Decode reads a State from the files Files returns, as fsys holds them
// (state.json and robots/ at its root: a state directory, or a branch of
// the repository that keeps one). A missing state.json is an empty State;
// a corrupt one is an error that says so and what to do.
func Decode(fsys fs.FS) (*State, error) {
	b, err := fs.ReadFile(fsys, stateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil
	}
	if err != nil {
		return nil, err
	}
	var doc file
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, &CorruptError{File: stateFile, Err: err}
	}
	if err := doc.validate(); err != nil {
		return nil, err
	}
	s := New()
	maps.Copy(s.sources, doc.Sources)
	maps.Copy(s.hosts, doc.Hosts)
	for key, r := range doc.Robots {
		body, err := fs.ReadFile(fsys, robotsDir+"/"+RobotsFileName(key))
		switch {
		case err == nil:
			r.Body = body
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("robots copy of %s: %w", key, err)
		}
		s.robots[key] = r
	}
	return s, nil
}

// validate checks what no run writes and later code would trip on: an
// unknown status or robots outcome, a hash that is not 64 lower-case hex
// digits, a date or time outside any run's reach, a negative count.
func (doc *file) validate() error {
	for _, id := range slices.Sorted(maps.Keys(doc.Sources)) {
		src := doc.Sources[id]
		f := func(name string) string { return fmt.Sprintf("sources[%q].%s", id, name) }
		if id == "" {
			return bad(`sources[""]`, "a source without an id")
		}
		if !knownStatus[src.Status] {
			return bad(f("status"), "%q is not a status (one of %s)", src.Status, strings.Join(statusNames(), ", "))
		}
		if src.Since != "" {
			if d, err := time.Parse(time.DateOnly, src.Since); err != nil || !saneTime(d) {
				return bad(f("since"), "%q is not a UTC date YYYY-MM-DD between 2000 and 2199", src.Since)
			}
		}
		if src.SHA256 != "" && !src.SHA256.Valid() {
			return bad(f("sha256"), "%q is not a SHA-256 (64 lower-case hex digits)", src.SHA256)
		}
		if src.Size < 0 {
			return bad(f("size"), "%d is negative", src.Size)
		}
		if err := checkStatus(f("http_status"), src.HTTPStatus); err != nil {
			return err
		}
		if err := checkTimes(f, namedTime{"last_check", src.LastCheck}, namedTime{"last_good", src.LastGood}); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Hosts)) {
		h := doc.Hosts[name]
		f := func(field string) string { return fmt.Sprintf("hosts[%q].%s", name, field) }
		if h.Failures < 0 {
			return bad(f("failures"), "%d is negative", h.Failures)
		}
		if h.Consecutive403 < 0 {
			return bad(f("consecutive_403"), "%d is negative", h.Consecutive403)
		}
		if err := checkTimes(f, namedTime{"last_dispatch", h.LastDispatch}, namedTime{"last_completion", h.LastCompletion},
			namedTime{"backoff_until", h.BackoffUntil}, namedTime{"paused_until", h.PausedUntil}); err != nil {
			return err
		}
	}
	for _, key := range slices.Sorted(maps.Keys(doc.Robots)) {
		r := doc.Robots[key]
		f := func(field string) string { return fmt.Sprintf("robots[%q].%s", key, field) }
		switch r.Outcome {
		case RobotsParsed, RobotsMissing, RobotsUnreadable, RobotsUnreached:
		default:
			return bad(f("outcome"), "%q is not a robots outcome (parsed, missing, unavailable or unreachable)", r.Outcome)
		}
		if err := checkTimes(f, namedTime{"fetched_at", r.FetchedAt}); err != nil {
			return err
		}
		if err := checkStatus(f("http_status"), r.HTTPStatus); err != nil {
			return err
		}
	}
	return nil
}

// bad is the error for field of state.json.
func bad(field string, format string, args ...any) error {
	return &CorruptError{File: stateFile, Field: field, Err: fmt.Errorf(format, args...)}
}

type namedTime struct {
	name string
	t    time.Time
}

// checkTimes refuses, in the order given, a time set outside 2000–2199;
// field names the field in the error.
func checkTimes(field func(string) string, ts ...namedTime) error {
	for _, nt := range ts {
		if !nt.t.IsZero() && !saneTime(nt.t) {
			return bad(field(nt.name), "%s is outside 2000–2199", nt.t.Format(time.RFC3339))
		}
	}
	return nil
}

// checkStatus refuses an HTTP status set outside 100–999.
func checkStatus(field string, code int) error {
	if code != 0 && (code < 100 || code > 999) {
		return bad(field, "%d is not an HTTP status code", code)
	}
	return nil
}

var knownStatus = map[Status]bool{
	Pending: true, Fresh: true, Failing: true, Gone: true, BlockedRobots: true, RobotsUnavailable: true,
	Unreachable: true, Excluded: true, Paused: true, Moved: true, TooLarge: true,
}

func statusNames() []string {
	var names []string
	for st := range knownStatus {
		names = append(names, string(st))
	}
	slices.Sort(names)
	return names
}

// saneTime reports whether t lies where a run's clock can be: from 2000 to
// the end of 2199. Anything else was written by hand or by a broken merge.
func saneTime(t time.Time) bool {
	return t.Year() >= 2000 && t.Year() < 2200
}

// Files returns what Save writes, keyed by slash-separated path relative
// to the state directory: state.json and one robots/ file per kept body.
// Decode reads them back.
func (s *State) Files() (map[string][]byte, error) {
	doc, b, err := s.encode()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{stateFile: b}
	for key, r := range doc.Robots {
		if len(r.Body) > 0 {
			out[robotsDir+"/"+RobotsFileName(key)] = r.Body
		}
	}
	return out, nil
}

func (s *State) encode() (file, []byte, error) {
	doc := s.snapshot()
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return doc, nil, fmt.Errorf("state: encode %s: %w", stateFile, err)
	}
	return doc, append(b, '\n'), nil
}

func (s *State) snapshot() file {
	s.mu.Lock()
	defer s.mu.Unlock()
	return file{Sources: maps.Clone(s.sources), Hosts: maps.Clone(s.hosts), Robots: maps.Clone(s.robots)}
}

// Save writes dir/state.json and the robots copies atomically, in a
// deterministic order (sorted keys, indented JSON).
//
// A file whose bytes would not change is left alone, so a quiet run leaves
// the cache branch untouched. The order makes a crash between two writes
// harmless: new robots bodies go first, so an old state.json meets at worst
// a newer body under an older fetch time (fetched again sooner); bodies
// that are no longer needed go last, so a state.json never meets a missing
// body that its rules depend on.
func (s *State) Save(dir string) error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()

	doc, b, err := s.encode()
	if err != nil {
		return err
	}

	d, err := atomicfile.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	defer d.Close()
	var stale []string
	var bodies []atomicfile.Named
	for _, key := range slices.Sorted(maps.Keys(doc.Robots)) {
		name := robotsDir + "/" + RobotsFileName(key)
		if len(doc.Robots[key].Body) == 0 {
			stale = append(stale, name)
			continue
		}
		bodies = append(bodies, atomicfile.Named{Path: name, Data: doc.Robots[key].Body})
	}
	// At once, a host's body not waiting for another's flush; all are
	// flushed before state.json is written.
	if _, err := d.WriteFilesIfChanged(bodies, 0o644); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if _, err := d.WriteFileIfChanged(stateFile, b, 0o644); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	for _, name := range stale {
		if err := d.Remove(name); err != nil {
			return fmt.Errorf("state: %w", err)
		}
	}
	return nil
}

// FileName is the state's file in its directory; a directory without it
// holds no state yet.
const FileName = "state.json"

const (
	stateFile = FileName
	robotsDir = "robots"
)

// RobotsFileName is the name, under <state>/robots/, of the body kept for
// key "scheme://host[:port]": the scheme, '_', then the authority with each
// ':' written '_' and each byte other than an ASCII letter, digit, '.' or
// '-' written %XX. So "https://www.gov.uk" → "https_www.gov.uk.txt",
// "http://127.0.0.1:8080" → "http_127.0.0.1_8080.txt", "http://[::1]:8080" →
// "http_%5B__1%5D_8080.txt".
//
// The mapping is one to one, so two keys never share a body: the first '_'
// ends the scheme, and a '_' in a host is escaped. A key without "://" is
// escaped whole and so holds no '_' at all. Keys are expected in the
// canonical lower case of url.URL: on a case-insensitive file system
// "https://A.example" and "https://a.example" would meet.
func RobotsFileName(key string) string {
	var b strings.Builder
	scheme, authority, ok := strings.Cut(key, "://")
	if !ok {
		escape(&b, key, false)
	} else {
		escape(&b, scheme, false)
		b.WriteByte('_')
		escape(&b, authority, true)
	}
	b.WriteString(".txt")
	return b.String()
}

func escape(b *strings.Builder, s string, colonAsUnderscore bool) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-':
			b.WriteByte(c)
		case c == ':' && colonAsUnderscore:
			b.WriteByte('_')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}
