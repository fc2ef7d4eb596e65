package answer

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// markers finds, in one pass over a head, which of the body rules'
// strings it holds: a search per string would read 64 KiB a hundred and
// more times, where this reads it once, hashing the four bytes at each
// position and comparing only where some marker starts with four bytes
// of that hash.
type markers struct {
	list   [][]byte
	ids    map[string]int
	starts [1 << 16 / 64]uint64 // a bit per hash a marker starts with: 8 KiB, read at every byte
	first  [1 << 16]uint16      // hash → 1 + index into buckets
	bucket [][]int              // ids of the markers whose first four bytes have that hash
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

// hash4 hashes four bytes, ASCII case aside. Setting bit 0x20 of every
// byte folds case (and makes a few punctuation marks collide, which only
// costs a comparison).
func hash4(b []byte) uint16 {
	k := binary.LittleEndian.Uint32(b) | 0x20202020
	return uint16((k * 2654435761) >> 16)
}

// id registers a marker (lower-case, four bytes or more) and names it.
func (m *markers) id(s string) int {
	if len(s) < 4 || s != string(bytes.ToLower([]byte(s))) {
		panic(fmt.Sprintf("answer: marker %q must be lower-case and four bytes or more", s))
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
	h := hash4([]byte(s))
	if m.first[h] == 0 {
		m.bucket = append(m.bucket, nil)
		m.first[h] = uint16(len(m.bucket))
		m.starts[h/64] |= 1 << (h % 64)
	}
	m.bucket[m.first[h]-1] = append(m.bucket[m.first[h]-1], id)
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
	for i := 0; i+4 <= len(b); i++ {
		h := hash4(b[i:])
		if m.starts[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, id := range m.bucket[m.first[h]-1] {
			if !f.has(id) && hasPrefixFold(b[i:], m.list[id]) {
				f.add(id)
			}
		}
	}
	return f
}

// lowerOf lower-cases ASCII letters and leaves every other byte be.
var lowerOf = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// hasPrefixFold reports whether b starts with the lower-case prefix,
// ASCII case aside.
func hasPrefixFold(b, prefix []byte) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i, c := range prefix {
		if lowerOf[b[i]] != c {
			return false
		}
	}
	return true
}
