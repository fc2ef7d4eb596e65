package policy

import "time"

// ParseDuration accepts Go durations ("90s", "1h30m") plus a "d" unit for
// days ("7d"). Negative values are rejected.
func ParseDuration(s string) (time.Duration, error) {
	panic("TODO")
}

// ParseSize accepts a byte count with an optional unit: B, KB, MB, GB
// (powers of 1000), KiB, MiB, GiB (powers of 1024). "50MiB" = 52428800.
func ParseSize(s string) (int64, error) {
	panic("TODO")
}
