package lease

import (
	"fmt"
	"hash/fnv"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{1, 1}, true},
		{"2/4", Shard{2, 4}, true},
		{"4/4", Shard{4, 4}, true},
		{"12/16", Shard{12, 16}, true},
		{"0/4", Shard{}, false},
		{"5/4", Shard{}, false},
		{"1/0", Shard{}, false},
		{"0/0", Shard{}, false},
		{"x", Shard{}, false},
		{"x/4", Shard{}, false},
		{"1/x", Shard{}, false},
		{"", Shard{}, false},
		{"/", Shard{}, false},
		{"2", Shard{}, false},
		{"-1/4", Shard{}, false},
		{"+1/4", Shard{}, false},
		{"01/4", Shard{}, false},
		{" 1/4", Shard{}, false},
		{"1/4/2", Shard{}, false},
		{"1/99999999999999999999", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("ParseShard(%q).String() = %q", tc.in, got.String())
		}
	}
}

func TestShardName(t *testing.T) {
	if got := (Shard{2, 4}).Name(); got != "2-of-4" {
		t.Errorf("Name = %q", got)
	}
	if got := All.Name(); got != "1-of-1" {
		t.Errorf("All.Name = %q", got)
	}
	if got := Path(Shard{2, 4}.Name()); got != "leases/2-of-4.json" {
		t.Errorf("Path = %q", got)
	}
}

// TestShardsPartition: the shards of one N together own every host exactly
// once.
func TestShardsPartition(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7} {
		counts := make([]int, n)
		for i := range 1000 {
			host := fmt.Sprintf("host-%d.example.gov:%d", i, 8000+i%7)
			owners := 0
			for k := 1; k <= n; k++ {
				if (Shard{k, n}).Owns(host) {
					owners++
					counts[k-1]++
				}
			}
			if owners != 1 {
				t.Fatalf("N=%d: %s owned by %d shards", n, host, owners)
			}
		}
		for k, c := range counts {
			if n > 1 && c < 1000/n/2 {
				t.Errorf("N=%d: shard %d owns only %d of 1000 hosts", n, k+1, c)
			}
		}
	}
}

// TestOwnsGolden pins the mapping: it is part of the cache branch's format
// and must never change between versions.
func TestOwnsGolden(t *testing.T) {
	for _, tc := range []struct {
		host string
		sum  uint64
		of4  int // the K of N=4 that owns host
	}{
		{"www.gov.uk", 0x7f8bbfaee76ba1b4, 1},
		{"www.legislation.gov.uk", 0x3624e7925216a0cd, 2},
		{"127.0.0.1:8080", 0x1cf0caae52b457cc, 1},
		{"[::1]:8080", 0x6b1c3d563eb3b59e, 3},
		{"www.irs.gov", 0x0db353476304a3e4, 1},
	} {
		h := fnv.New64a()
		h.Write([]byte(tc.host))
		if got := h.Sum64(); got != tc.sum {
			t.Errorf("FNV-1a 64 of %q = %#x, want %#x", tc.host, got, tc.sum)
		}
		for k := 1; k <= 4; k++ {
			if got, want := (Shard{k, 4}).Owns(tc.host), k == tc.of4; got != want {
				t.Errorf("Shard %d/4 owns %q = %v, want %v", k, tc.host, got, want)
			}
		}
		if !All.Owns(tc.host) {
			t.Errorf("1/1 does not own %q", tc.host)
		}
	}
}

func TestInvalidShardOwnsNothing(t *testing.T) {
	for _, s := range []Shard{{}, {0, 4}, {5, 4}, {1, 0}, {-1, 2}} {
		if s.Valid() || s.Owns("www.gov.uk") {
			t.Errorf("%v: Valid=%v Owns=%v", s, s.Valid(), s.Owns("www.gov.uk"))
		}
	}
}
