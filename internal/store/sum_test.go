package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// A Sum that is not 64 lower-case hex digits is never sliced past its end
// nor turned into a path outside the store.
func TestSumOnInvalidValues(t *testing.T) {
	good := sumOf([]byte("x"))
	if !good.Valid() || good.Short() != good.String()[:12] || good.Path() != "sha256/"+good.String()[:2]+"/"+good.String() {
		t.Errorf("good sum %s: Valid %v, Short %q, Path %q", good, good.Valid(), good.Short(), good.Path())
	}
	for _, bad := range []Sum{"", "a", "ab", Sum(strings.ToUpper(good.String())), good[:63], good + "0", "../../etc/passwd"} {
		if bad.Valid() {
			t.Errorf("%q.Valid() = true", bad)
		}
		if bad.Path() != "sha256/invalid" {
			t.Errorf("%q.Path() = %q, want sha256/invalid", bad, bad.Path())
		}
		if s := bad.Short(); len(s) > 20 || !strings.HasPrefix(string(bad), s) {
			t.Errorf("%q.Short() = %q", bad, s)
		}
	}
}

// sumOf is the Sum of b: what a blob of those bytes is named.
func sumOf(b []byte) Sum {
	s := sha256.Sum256(b)
	return Sum(hex.EncodeToString(s[:]))
}
