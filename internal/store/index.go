package store

// Entry is one distinct set of bytes a source has served.
type Entry struct {
	SHA256      string `json:"sha256"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type,omitempty"`
	FinalURL    string `json:"final_url"`
	FirstSeen   string `json:"first_seen"` // UTC date, YYYY-MM-DD
}

// Index maps source ids to the hashes they have served, oldest first.
// It is safe for concurrent use.
type Index struct {
	// TODO: mu, map[string][]Entry
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	panic("TODO")
}

// LoadIndex reads path (usually <root>/index.json); a missing file is an
// empty index.
func LoadIndex(path string) (*Index, error) {
	panic("TODO")
}

// Add appends e to id's list unless id has already served e.SHA256, and
// reports whether it did. Entries are never removed or modified.
func (ix *Index) Add(id string, e Entry) bool {
	panic("TODO")
}

// Entries returns a copy of id's list.
func (ix *Index) Entries(id string) []Entry {
	panic("TODO")
}

// IDs returns every source id, sorted.
func (ix *Index) IDs() []string {
	panic("TODO")
}

// Latest returns the entry for sum in id's list.
func (ix *Index) Lookup(id, sum string) (Entry, bool) {
	panic("TODO")
}

// Marshal renders the index deterministically: ids sorted, entries in the
// order they were added, two-space indented JSON with a final newline.
func (ix *Index) Marshal() ([]byte, error) {
	panic("TODO")
}

// Save writes the index to path atomically, and only when its bytes differ
// from what is there (a quiet run leaves the file untouched).
func (ix *Index) Save(path string) error {
	panic("TODO")
}
