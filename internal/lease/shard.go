package lease

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is shard K of N (1 ≤ K ≤ N): the part of the hosts one runner of a
// matrix fetches, under one lease.
type Shard struct{ K, N int }

// All is the single shard of an unsharded run.
var All = Shard{K: 1, N: 1}

// ParseShard parses "K/N" (decimal, 1 ≤ K ≤ N, no signs, spaces or leading
// zeros).
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want K/N, e.g. 2/4", s)
	}
	k, err1 := positive(ks)
	n, err2 := positive(ns)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want K/N with K and N whole numbers from 1, e.g. 2/4", s)
	}
	if k > n {
		return Shard{}, fmt.Errorf("shard %q: K must be at most N", s)
	}
	return Shard{K: k, N: n}, nil
}

func positive(s string) (int, error) {
	if s == "" || s[0] < '1' || s[0] > '9' || len(s) > 9 {
		return 0, fmt.Errorf("not a positive number: %q", s)
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a positive number: %q", s)
		}
	}
	return strconv.Atoi(s)
}

// Valid reports whether 1 ≤ K ≤ N.
func (s Shard) Valid() bool { return 1 <= s.K && s.K <= s.N }

// Owns reports whether host belongs to s: FNV-1a 64 (hash/fnv New64a) of
// the host string, modulo N, equals K−1. This mapping is part of the cache
// branch's format: it must never change between versions, or two runs of
// different versions could both own a host. An invalid shard owns nothing.
func (s Shard) Owns(host string) bool {
	if !s.Valid() {
		return false
	}
	h := fnv.New64a()
	h.Write([]byte(host))
	return h.Sum64()%uint64(s.N) == uint64(s.K-1)
}

// Name is the shard's lease file stem, e.g. "2-of-4".
func (s Shard) Name() string { return fmt.Sprintf("%d-of-%d", s.K, s.N) }

// String is the "K/N" form ParseShard reads.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }
