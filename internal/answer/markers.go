package answer

import (
	"bytes"
	"fmt"
)

// markers finds, in one pass over a head, which of the body rules'
// strings it holds: a search per string would read 64 KiB a hundred and
// more times, where this reads it once, looking up each position's first
// two bytes.
type markers struct {
	list  [][]byte
	ids   map[string]int
	first [1 << 16]uint16 // first two bytes → 1 + index into pairs; 0 none start so
	pairs [][]int         // ids of the markers that start with those bytes
}

// found is the set of markers a head holds.
type found [4]uint64

const maxMarkers = len(found{}) * 64

func (f *found) add(id int)      { f[id/64] |= 1 << (id % 64) }
func (f *found) has(id int) bool { return f[id/64]&(1<<(id%64)) != 0 }

func (f *found) any(ids []int) bool {
	for _, id := range ids {
		if f.has(id) {
			return true
		}
	}
	return false
}

func (f *found) all(ids []int) bool {
	for _, id := range ids {
		if !f.has(id) {
			return false
		}
	}
	return true
}

// id registers a marker (lower-case, at least two bytes) and names it.
func (m *markers) id(s string) int {
	if len(s) < 2 || s != string(bytes.ToLower([]byte(s))) {
		panic(fmt.Sprintf("answer: marker %q must be lower-case and two bytes or more", s))
	}
	if id, ok := m.ids[s]; ok {
		return id
	}
	if m.ids == nil {
		m.ids = map[string]int{}
	}
	id := len(m.list)
	if id >= maxMarkers {
		panic("answer: too many markers")
	}
	m.list = append(m.list, []byte(s))
	m.ids[s] = id
	k := uint16(s[0])<<8 | uint16(s[1])
	if m.first[k] == 0 {
		m.pairs = append(m.pairs, nil)
		m.first[k] = uint16(len(m.pairs))
	}
	m.pairs[m.first[k]-1] = append(m.pairs[m.first[k]-1], id)
	return id
}

func (m *markers) register(ss []string) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = m.id(s)
	}
	return out
}

// find reports the markers b holds, ASCII case aside.
func (m *markers) find(b []byte) found {
	var f found
	for i := 0; i+1 < len(b); i++ {
		p := m.first[uint16(lower(b[i]))<<8|uint16(lower(b[i+1]))]
		if p == 0 {
			continue
		}
		for _, id := range m.pairs[p-1] {
			if !f.has(id) && hasPrefixFold(b[i:], m.list[id]) {
				f.add(id)
			}
		}
	}
	return f
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether b starts with the lower-case prefix,
// ASCII case aside.
func hasPrefixFold(b, prefix []byte) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i, c := range prefix {
		if lower(b[i]) != c {
			return false
		}
	}
	return true
}
