package state

import (
	"sync"
	"time"
)

// Status is a source's coverage status (SPEC §6).
type Status string

const (
	Pending           Status = "pending"
	Fresh             Status = "fresh"
	Failing           Status = "failing"
	Gone              Status = "gone"
	BlockedRobots     Status = "blocked-robots"
	RobotsUnavailable Status = "robots-unavailable"
	Excluded          Status = "excluded"
	Paused            Status = "paused"
	Moved             Status = "moved"
	TooLarge          Status = "too-large"
)

// Source is what is known of one source.
type Source struct {
	Status Status `json:"status"`
	// Since is the UTC date (YYYY-MM-DD) of the last status change.
	Since string `json:"since"`
	// LastCheck is when a request for it was last completed, whatever the
	// outcome; LastGood when the last 200 or 304 was.
	LastCheck time.Time `json:"last_check,omitzero"`
	LastGood  time.Time `json:"last_good,omitzero"`

	HTTPStatus  int    `json:"http_status,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
	Size        int64  `json:"size,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	FinalURL    string `json:"final_url,omitempty"`
	Detail      string `json:"detail,omitempty"`

	// Validators of the bytes named by SHA256; only sent while those bytes
	// are in the store.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
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
	// Failures is n of SPEC §3.7: consecutive 429/5xx/timeouts/network errors.
	Failures     int       `json:"failures,omitempty"`
	BackoffUntil time.Time `json:"backoff_until,omitzero"`
	// Consecutive403 counts 403s in a row; PausedUntil is set when it
	// reaches the policy's pause_after_403.
	Consecutive403 int       `json:"consecutive_403,omitempty"`
	PausedUntil    time.Time `json:"paused_until,omitzero"`
}

// RobotsOutcome is what a robots.txt fetch meant.
type RobotsOutcome string

const (
	RobotsParsed     RobotsOutcome = "parsed"      // 2xx: rules apply
	RobotsMissing    RobotsOutcome = "missing"     // 4xx except 429: all allowed
	RobotsUnreadable RobotsOutcome = "unavailable" // 429/5xx/network/too many redirects: all disallowed
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
	mu      sync.Mutex
	sources map[string]Source
	hosts   map[string]Host
	robots  map[string]Robots
}

// New returns an empty State.
func New() *State {
	return &State{sources: map[string]Source{}, hosts: map[string]Host{}, robots: map[string]Robots{}}
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
	return r, ok
}

// PutRobots keeps a robots.txt copy.
func (s *State) PutRobots(key string, r Robots) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.robots[key] = r
}

// SourceIDs returns the ids with a stored state, sorted.
func (s *State) SourceIDs() []string {
	panic("TODO")
}

// HostNames returns the hosts with a stored memory, sorted.
func (s *State) HostNames() []string {
	panic("TODO")
}

// Load reads dir/state.json and dir/robots/. A missing directory or file is
// an empty State, not an error; a corrupt one is an error naming the file.
func Load(dir string) (*State, error) {
	panic("TODO")
}

// Save writes dir/state.json and the robots copies atomically, in a
// deterministic order (sorted keys, indented JSON).
func (s *State) Save(dir string) error {
	panic("TODO")
}
