package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/taxkernel/taxkernelbot/internal/atomicfile"
	"github.com/taxkernel/taxkernelbot/internal/usage"
)

// Entry is one distinct set of bytes a source has served.
type Entry struct {
	SHA256      Sum    `json:"sha256"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type,omitempty"`
	FinalURL    string `json:"final_url"`
	FirstSeen   string `json:"first_seen"` // UTC date, YYYY-MM-DD
	// SWHID is the bytes' Software Heritage identifier (SWHIDOf), so
	// that the archive can be cross-checked against Software Heritage and
	// any git object store; empty in entries from before it was kept.
	SWHID string `json:"swhid,omitempty"`
	// Returned lists the UTC dates on which the source served these bytes
	// again after serving others (a document put back to an earlier
	// version), oldest first.
	Returned []string `json:"returned,omitempty"`

	// What an archive needs to replay the response that first served these
	// bytes (a WARC response record). Kept for entries added from the
	// introduction of these fields on; older entries have them empty.
	Status  int               `json:"status,omitempty"`  // HTTP status code
	Fetched string            `json:"fetched,omitempty"` // RFC 3339 UTC time of the response
	Header  map[string]string `json:"header,omitempty"`  // the ReplayHeaders that were present

	// Sent, for bytes that came under a Content-Encoding, is the answer as
	// the server sent it, kept as a blob of its own: SHA256 names the
	// document with the coding undone, so that another compression of it
	// is not another version, while an archive of the exchange replays
	// what was sent. Nil for bytes sent as they are.
	Sent *Sent `json:"sent,omitempty"`

	// NotDocument, when set, says in words why these bytes are not the
	// document although a source served them (a bot challenge, a
	// maintenance page, a page-not-found page): they are kept as evidence
	// of what was answered, and never cited. History leaves them out.
	NotDocument string `json:"not_document,omitempty"`

	// Usage is what the publisher said about the use of these bytes when
	// they were first captured: the Content-Usage header of the response
	// and the Content-Usage and Content-Signal rules of the robots.txt copy
	// in force at that fetch. Nil when nothing was said (and for entries
	// from before it was kept).
	Usage *usage.Prefs `json:"usage,omitempty"`

	// Held says where the entry's blobs are kept when the repository
	// keeps its bytes in stores rather than in its history: each store
	// that holds them all, by name, with the public URL its bytes can be
	// downloaded from when the store has one. Nil when the bytes are in
	// the repository's snapshots/ (and for entries from before).
	Held []Holding `json:"held,omitempty"`
}

// Holding is a store that holds an entry's blobs.
type Holding struct {
	Store string `json:"store"`
	// URL serves the document's bytes to anyone, when the store has
	// public URLs (a GitHub release asset's download link).
	URL string `json:"url,omitempty"`
}

// Sent is an answer's bytes as the server sent them, under a
// Content-Encoding.
type Sent struct {
	SHA256   Sum    `json:"sha256"`
	Size     int64  `json:"size"`
	Encoding string `json:"encoding"` // the Content-Encoding, as sent
}

// Blobs are the blobs e names: its bytes, and the bytes as sent when it
// has them. Each must be held wherever the entry is.
func (e Entry) Blobs() []Sum {
	if e.Sent == nil {
		return []Sum{e.SHA256}
	}
	return []Sum{e.SHA256, e.Sent.SHA256}
}

// own gives e copies of what it shares with the caller's entry, so that
// what the index holds never changes under it.
func (e Entry) own() Entry {
	e.Header = maps.Clone(e.Header)
	e.Returned = slices.Clone(e.Returned)
	if e.Sent != nil {
		sent := *e.Sent
		e.Sent = &sent
	}
	e.Usage = e.Usage.Clone()
	e.Held = slices.Clone(e.Held)
	return e
}

// ReplayHeaders are the response headers kept in the index: those that
// describe the representation and its validity, which a replay of the
// archived response needs. Hop-by-hop and per-connection headers
// (Connection, Transfer-Encoding, Keep-Alive), cookies and server software
// banners are not kept.
var ReplayHeaders = []string{
	"Cache-Control", "Content-Disposition", "Content-Encoding", "Content-Language",
	"Content-Length", "Content-Location", "Content-Type", "Date", "ETag", "Expires",
	"Last-Modified", "Link",
}

// KeepHeaders returns the ReplayHeaders present in h, with the values of a
// repeated header joined by ", " (nil when there are none).
func KeepHeaders(h http.Header) map[string]string {
	var kept map[string]string
	for _, name := range ReplayHeaders {
		vals := h.Values(name)
		if len(vals) == 0 {
			continue
		}
		if kept == nil {
			kept = map[string]string{}
		}
		kept[name] = strings.Join(vals, ", ")
	}
	return kept
}

// Index maps source ids to the hashes they have served, oldest first.
// It is safe for concurrent use.
type Index struct {
	mu      sync.Mutex
	sources map[string][]Entry

	// saveMu orders whole Saves, so that a Save that snapshotted the index
	// earlier cannot overwrite the file written by a later one.
	saveMu sync.Mutex
}

// indexFile is the on-disk shape: {"sources": {"<id>": [entries...]}}.
type indexFile struct {
	Sources map[string][]Entry `json:"sources"`
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{sources: make(map[string][]Entry)}
}

// LoadIndex reads path (usually <root>/index.json); a missing file is an
// empty index. A file that is not exactly the shape Marshal writes (bad
// JSON, unknown keys, trailing data) is an error: saving over it would lose
// history, so the caller must stop and the file be restored from git.
func LoadIndex(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewIndex(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: read index: %w", err)
	}
	ix, err := ParseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("store: index %s is corrupt (%w); restore it from git (git checkout -- %s)", path, err, path)
	}
	return ix, nil
}

// ParseIndex reads an index rendered by Marshal (from a branch, say).
// Unknown keys are refused: saving over them would lose data.
func ParseIndex(data []byte) (*Index, error) {
	var f indexFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("data after the top-level object")
		}
	}
	if err != nil {
		return nil, err
	}
	ix := NewIndex()
	for id, es := range f.Sources {
		ix.sources[id] = es
	}
	return ix, nil
}

// Add records that id served e's bytes on e.FirstSeen, after serving the
// bytes hashed prior (empty for none known), and reports whether the index
// changed. Bytes id never served before are appended as a new entry. Bytes
// it served before, but not just before (prior differs), are a return: the
// date is added to that entry's Returned. The caller's prior, not the
// index's own last entry, decides, since an index may lag behind what was
// served (a bot branch not yet merged). Entries are never removed, and
// what an entry says of the response that first served its bytes never
// changes.
func (ix *Index) Add(id string, e Entry, prior Sum) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	es := ix.sources[id]
	i := slices.IndexFunc(es, func(old Entry) bool { return old.SHA256 == e.SHA256 })
	switch {
	case i < 0:
		ix.sources[id] = append(es, e.own())
		return true
	case es[i].NotDocument != "" && e.NotDocument == "":
		// A reviewer accepted as the document bytes first kept as
		// evidence: from now on they are a version like any other.
		es[i].NotDocument = ""
		return true
	case prior == "" || prior == e.SHA256 || slices.Contains(es[i].Returned, e.FirstSeen):
		return false
	}
	// Clipped, so that the append never writes into an array a copy
	// handed out by Entries shares.
	es[i].Returned = append(slices.Clip(es[i].Returned), e.FirstSeen)
	return true
}

// Unite adds to ix what from records and ix does not: entries for bytes ix
// has no entry for, and return dates. The result does not depend on the
// order in which indexes are united.
func (ix *Index) Unite(from *Index) {
	for _, id := range from.IDs() {
		for _, e := range from.Entries(id) {
			ix.unite(id, e)
		}
	}
}

func (ix *Index) unite(id string, e Entry) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	es := ix.sources[id]
	i := slices.IndexFunc(es, func(old Entry) bool { return old.SHA256 == e.SHA256 })
	if i < 0 {
		ix.sources[id] = append(es, e.own())
		return
	}
	dates := append(slices.Clone(es[i].Returned), e.Returned...)
	slices.Sort(dates)
	es[i].Returned = slices.Compact(dates)
	es[i].Held = unitedHoldings(es[i].Held, e.Held)
}

// unitedHoldings is a and b together, one holding per store (the first
// URL said for it), sorted by store: the same whatever the order.
func unitedHoldings(a, b []Holding) []Holding {
	if len(b) == 0 {
		return a
	}
	out := slices.Concat(a, b)
	slices.SortStableFunc(out, func(x, y Holding) int {
		if c := strings.Compare(x.Store, y.Store); c != 0 {
			return c
		}
		return strings.Compare(y.URL, x.URL) // a URL said before none
	})
	return slices.CompactFunc(out, func(x, y Holding) bool { return x.Store == y.Store })
}

// SetHeld records that the stores of held hold sum's bytes, on every
// entry whose blobs include sum as its document (a source that served the
// same bytes included). It says whether anything changed.
func (ix *Index) SetHeld(sum Sum, held []Holding) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	changed := false
	for _, es := range ix.sources {
		for i := range es {
			if es[i].SHA256 != sum {
				continue
			}
			u := unitedHoldings(slices.Clone(es[i].Held), held)
			if !slices.Equal(u, es[i].Held) {
				es[i].Held = u
				changed = true
			}
		}
	}
	return changed
}

// Change is one point in a source's history: from Date on, the source
// served the bytes of Entry.
type Change struct {
	Date  string // UTC date, YYYY-MM-DD
	Entry Entry
}

// History returns id's changes, oldest first: the date each entry's bytes
// were first served, and each return to them. Entries kept as evidence of
// an answer that was not the document are no change of the document, and
// are left out.
func (ix *Index) History(id string) []Change {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var es []Entry
	for _, e := range ix.sources[id] {
		if e.NotDocument == "" {
			es = append(es, e)
		}
	}
	return history(es)
}

// Current is the entry of the bytes source id serves now, as far as the
// index knows: the last of its History (a return to earlier bytes makes
// them current again). False when id has served no document.
func (ix *Index) Current(id string) (Entry, bool) {
	h := ix.History(id)
	if len(h) == 0 {
		return Entry{}, false
	}
	return h[len(h)-1].Entry, true
}

// history orders es's changes by date. On the same date a first sight
// comes before a return, which can only follow other bytes.
func history(es []Entry) []Change {
	type change struct {
		Change
		ret int // 0 for a first sight, 1 for a return
	}
	var cs []change
	for _, e := range es {
		cs = append(cs, change{Change{e.FirstSeen, e}, 0})
		for _, d := range e.Returned {
			cs = append(cs, change{Change{d, e}, 1})
		}
	}
	slices.SortStableFunc(cs, func(a, b change) int {
		if c := strings.Compare(a.Date, b.Date); c != 0 {
			return c
		}
		return a.ret - b.ret
	})
	out := make([]Change, len(cs))
	for i, c := range cs {
		out[i] = c.Change
	}
	return out
}

// Entries returns a copy of id's list, oldest first (nil for an unknown id).
func (ix *Index) Entries(id string) []Entry {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return slices.Clone(ix.sources[id])
}

// Usage returns what was said about the use of sum's bytes when id first
// served them (nil when nothing, or when id never served them), in the
// form report.Report.AddUsage takes.
func (ix *Index) Usage(id, sum string) *usage.Prefs {
	if e, ok := ix.Lookup(id, Sum(sum)); ok {
		return e.Usage
	}
	return nil
}

// IDs returns every source id, sorted.
func (ix *Index) IDs() []string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ids := make([]string, 0, len(ix.sources))
	for id := range ix.sources {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Lookup returns the entry for sum in id's list.
func (ix *Index) Lookup(id string, sum Sum) (Entry, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, e := range ix.sources[id] {
		if e.SHA256 == sum {
			return e, true
		}
	}
	return Entry{}, false
}

// Marshal renders the index deterministically: ids sorted, entries in the
// order they were added, two-space indented JSON with a final newline.
// URLs are written as they are (no \u0026 for &), so the diff reads plainly.
func (ix *Index) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(indexFile{Sources: ix.snapshot()}); err != nil {
		return nil, fmt.Errorf("store: marshal index: %w", err)
	}
	return buf.Bytes(), nil
}

func (ix *Index) snapshot() map[string][]Entry {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	f := make(map[string][]Entry, len(ix.sources))
	for id, es := range ix.sources {
		f[id] = slices.Clone(es)
	}
	return f
}

// Save writes the index to path atomically, and only when its bytes differ
// from what is there (a quiet run leaves the file untouched).
func (ix *Index) Save(path string) error {
	ix.saveMu.Lock()
	defer ix.saveMu.Unlock()
	data, err := ix.Marshal()
	if err != nil {
		return err
	}
	d, err := atomicfile.OpenDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("store: save index: %w", err)
	}
	defer d.Close()
	if _, err := d.WriteFileIfChanged(filepath.Base(path), data, 0o644); err != nil {
		return fmt.Errorf("store: save index: %w", err)
	}
	return nil
}

// Beyond returns what ix records that base does not: each entry for bytes
// base has no entry for, or with a return date base lacks. base.Unite of
// the result gives base.Unite(ix); an index wholly in base gives an empty
// one.
func (ix *Index) Beyond(base *Index) *Index {
	out := NewIndex()
	for _, id := range ix.IDs() {
		for _, e := range ix.Entries(id) {
			if old, ok := base.Lookup(id, e.SHA256); ok && !slices.ContainsFunc(e.Returned, func(d string) bool { return !slices.Contains(old.Returned, d) }) {
				continue
			}
			out.unite(id, e)
		}
	}
	return out
}

// Len is the number of entries.
func (ix *Index) Len() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	n := 0
	for _, es := range ix.sources {
		n += len(es)
	}
	return n
}
