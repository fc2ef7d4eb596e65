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
	// sorted is the last Append's keys in order, never changed once
	// kept: a save at the end of a run has the same keys as the one
	// before, and checking that costs a tenth of sorting them again.
	sorted []string
}

type frag struct {
	at  uint64 // the stamp of the copy it was encoded from
	key []byte // the key, encoded: kept too, as a save writes every key
	b   []byte
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
	_, err := m.encodings(src, slices.Collect(maps.Keys(src)), at)
	return err
}

// Append appends src (a copy taken at stamp at) as encoding/json writes it
// at the map's depth with two-space indentation (keys sorted, a nil map as
// null), then the rest of the document, tail.
func (m *Map[V]) Append(dst []byte, src map[string]V, at uint64, tail ...[]byte) ([]byte, error) {
	if src == nil {
		return appendAll(append(dst, "null"...), tail), nil
	}
	if len(src) == 0 {
		return appendAll(append(dst, "{}"...), tail), nil
	}
	fs, err := m.encodings(src, m.sortedKeys(src), at)
	if err != nil {
		return nil, err
	}
	inner := strings.Repeat("  ", m.depth+1)
	// Grown once to the final size: a thousand appends would otherwise
	// copy the document over and over as it doubles.
	n := len("{\n") + 2*m.depth + len("}")
	for _, f := range fs {
		n += len(",\n") + len(inner) + len(f.key) + len(": ") + len(f.b)
	}
	for _, t := range tail {
		n += len(t)
	}
	dst = slices.Grow(dst, n)
	dst = append(dst, '{')
	for i, f := range fs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '\n')
		dst = append(dst, inner...)
		dst = append(dst, f.key...)
		dst = append(dst, ": "...)
		dst = append(dst, f.b...)
	}
	dst = append(dst, '\n')
	dst = append(dst, strings.Repeat("  ", m.depth)...)
	return appendAll(append(dst, '}'), tail), nil
}

func appendAll(dst []byte, tail [][]byte) []byte {
	for _, t := range tail {
		dst = append(dst, t...)
	}
	return dst
}

// sortedKeys returns src's keys, sorted.
func (m *Map[V]) sortedKeys(src map[string]V) []string {
	m.mu.Lock()
	keys := m.sorted
	m.mu.Unlock()
	// As many distinct keys, each in src: the same set.
	same := len(keys) == len(src)
	for _, k := range keys {
		if !same {
			break
		}
		_, same = src[k]
	}
	if same {
		return keys
	}
	keys = slices.Sorted(maps.Keys(src))
	m.mu.Lock()
	m.sorted = keys
	m.mu.Unlock()
	return keys
}

// encodings returns the encodings of keys and their values in src, in
// keys' order, encoding what is missing outside the lock and keeping it.
func (m *Map[V]) encodings(src map[string]V, keys []string, at uint64) ([]frag, error) {
	out := make([]frag, len(keys))
	var todo []int
	m.mu.Lock()
	for i, key := range keys {
		if f, ok := m.frags[key]; ok && f.at >= m.last[key] {
			out[i] = f
		} else {
			todo = append(todo, i)
		}
	}
	m.mu.Unlock()
	prefix := strings.Repeat("  ", m.depth+1)
	for _, i := range todo {
		key := keys[i]
		k, err := m.encode(key, "")
		if err != nil {
			return nil, err
		}
		b, err := m.encode(src[key], prefix)
		if err != nil {
			return nil, err
		}
		out[i] = frag{at: at, key: k, b: b}
	}
	m.mu.Lock()
	for _, i := range todo {
		// Kept only when no change came after the copy: an older
		// encoding is never taken for the current one.
		key := keys[i]
		if old, ok := m.frags[key]; at >= m.last[key] && (!ok || old.at < at) {
			m.frags[key] = out[i]
		}
	}
	m.mu.Unlock()
	return out, nil
}

func (m *Map[V]) encode(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(m.escapeHTML)
	// The Encoder indents its compact output as json.Indent would.
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
