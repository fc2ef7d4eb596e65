package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration accepts Go durations ("90s", "1h30m") plus a "d" unit for
// days ("7d"). Negative values are rejected.
//
// Days come first and are whole ("7d", "1d12h"), so a day is always 24h
// and there is one obvious way to write a value.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var days time.Duration
	if n, rest, ok := strings.Cut(s, "d"); ok {
		if !isDigits(n) {
			return 0, fmt.Errorf("duration %q: days must be a whole number written first, e.g. 7d or 1d12h", s)
		}
		d, err := strconv.ParseInt(n, 10, 64)
		if err != nil || d > int64(math.MaxInt64/(24*time.Hour)) {
			return 0, fmt.Errorf("duration %q: too long", s)
		}
		days = time.Duration(d) * 24 * time.Hour
		if rest == "" {
			return days, nil
		}
		s = rest
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want a number and a unit (s, m, h, d), e.g. 90s, 24h, 7d", s)
	}
	if d < 0 || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("duration %q: must not be negative or signed", s)
	}
	if days > math.MaxInt64-d {
		return 0, fmt.Errorf("duration %q: too long", s)
	}
	return days + d, nil
}

// ParseSize accepts a byte count with an optional unit: B, KB, MB, GB
// (powers of 1000), KiB, MiB, GiB (powers of 1024). "50MiB" = 52428800.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	if num == "" {
		return 0, fmt.Errorf("size %q: want a whole number of bytes with an optional unit (B, KB, MB, GB, KiB, MiB, GiB), e.g. 50MiB", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q; use B, KB, MB, GB, KiB, MiB or GiB", s, unit)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return n * mult, nil
}

// Units are case-sensitive: "mb" could mean millibits, "Mb" megabits; only
// the spellings people write for bytes are accepted.
var sizeUnits = map[string]int64{
	"":    1,
	"B":   1,
	"KB":  1000,
	"MB":  1000 * 1000,
	"GB":  1000 * 1000 * 1000,
	"KiB": 1 << 10,
	"MiB": 1 << 20,
	"GiB": 1 << 30,
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
