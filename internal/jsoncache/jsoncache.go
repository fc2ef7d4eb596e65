// Package jsoncache writes a large map of JSON values byte for byte as
// encoding/json's indented output would, but encodes again only the
// values that changed since they were last encoded. A run's state and
// index hold a thousand sources of which a few change at the end; with
// the others encoded while the run still waits, saving costs little.
package jsoncache

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Map keeps the encodings of one map's values. Its owner calls Forget,
// under the owner's own lock, whenever a value changes, and takes Stamp
// under the same lock when it copies the map to encode it, so that an
// encoding made from a copy older than a change is never reused.
type Map[V any] struct {
	depth      int  // how deep the map sits in its document (1: a top-level field)
	escapeHTML bool // as json.Marshal (true) or an Encoder with SetEscapeHTML(false)

	mu    sync.Mutex
	stamp uint64
	last  map[string]uint64 // the stamp of each key's last change
	frags map[string]frag
}

type frag struct {
	at uint64 // the stamp of the copy it was encoded from
	b  []byte
}

// New returns a Map for a map that sits depth levels deep in a document
// indented with two spaces.
func New[V any](depth int, escapeHTML bool) *Map[V] {
	return &Map[V]{depth: depth, escapeHTML: escapeHTML, last: map[string]uint64{}, frags: map[string]frag{}}
}

// Forget says key's value changed.
func (m *Map[V]) Forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stamp++
	m.last[key] = m.stamp
	delete(m.frags, key)
}

// Stamp is the moment of a copy: take it with the copy, under the owner's
// lock.
func (m *Map[V]) Stamp() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stamp
}

// Fill encodes the values of src (a copy taken at stamp at) that have no
// current encoding kept.
func (m *Map[V]) Fill(src map[string]V, at uint64) error {
	_, err := m.encodings(src, at)
	return err
}

// Append appends src (a copy taken at stamp at) as encoding/json writes it
// at the map's depth with two-space indentation: keys sorted, a nil map as
// null.
func (m *Map[V]) Append(dst []byte, src map[string]V, at uint64) ([]byte, error) {
	if src == nil {
		return append(dst, "null"...), nil
	}
	if len(src) == 0 {
		return append(dst, "{}"...), nil
	}
	fs, err := m.encodings(src, at)
	if err != nil {
		return nil, err
	}
	inner := strings.Repeat("  ", m.depth+1)
	dst = append(dst, '{')
	for i, key := range slices.Sorted(maps.Keys(src)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '\n')
		dst = append(dst, inner...)
		k, err := m.encode(key, "")
		if err != nil {
			return nil, err
		}
		dst = append(dst, k...)
		dst = append(dst, ": "...)
		dst = append(dst, fs[key]...)
	}
	dst = append(dst, '\n')
	dst = append(dst, strings.Repeat("  ", m.depth)...)
	return append(dst, '}'), nil
}

// encodings returns the encoding of each value of src, encoding what is
// missing outside the lock and keeping it.
func (m *Map[V]) encodings(src map[string]V, at uint64) (map[string][]byte, error) {
	out := make(map[string][]byte, len(src))
	var todo []string
	m.mu.Lock()
	for key := range src {
		if f, ok := m.frags[key]; ok && f.at >= m.last[key] {
			out[key] = f.b
		} else {
			todo = append(todo, key)
		}
	}
	m.mu.Unlock()
	prefix := strings.Repeat("  ", m.depth+1)
	made := make([]frag, len(todo))
	for i, key := range todo {
		b, err := m.encode(src[key], prefix)
		if err != nil {
			return nil, err
		}
		made[i] = frag{at: at, b: b}
		out[key] = b
	}
	m.mu.Lock()
	for i, key := range todo {
		// Kept only when no change came after the copy: an older
		// encoding is never taken for the current one.
		if old, ok := m.frags[key]; at >= m.last[key] && (!ok || old.at < at) {
			m.frags[key] = made[i]
		}
	}
	m.mu.Unlock()
	return out, nil
}

func (m *Map[V]) encode(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(m.escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	compact := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var out bytes.Buffer
	if err := json.Indent(&out, compact, prefix, "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
