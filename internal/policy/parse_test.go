package policy

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90s":    90 * time.Second,
		"1h30m":  90 * time.Minute,
		"24h":    24 * time.Hour,
		"7d":     7 * 24 * time.Hour,
		"1d12h":  36 * time.Hour,
		" 500ms": 500 * time.Millisecond,
		"0s":     0,
		"0d":     0,
	} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"":                 "want a number and a unit",
		"5":                "want a number and a unit",
		"-5s":              "negative",
		"+5s":              "signed",
		"1d-5h":            "negative",
		"d":                "days must be a whole number",
		"1.5d":             "days must be a whole number",
		"1h2d":             "days must be a whole number written first",
		"10x":              "want a number and a unit",
		"200000d":          "too long",
		"106751d23h47m17s": "too long",
		"never":            "want a number and a unit",
	} {
		_, err := ParseDuration(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDuration(%q) error = %v, want one containing %q", in, err, want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"50MiB":   50 << 20,
		"512KiB":  512 << 10,
		"1GiB":    1 << 30,
		"1MB":     1000000,
		"2KB":     2000,
		"3GB":     3000000000,
		"1234":    1234,
		"1234B":   1234,
		" 10 MiB": 10 << 20,
		"0":       0,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"":                     "want a whole number",
		"MiB":                  "want a whole number",
		"-1":                   "want a whole number",
		"1.5MiB":               `unknown unit ".5MiB"`,
		"10mb":                 `unknown unit "mb"`,
		"10TiB":                `unknown unit "TiB"`,
		"99999999999999999999": "too large",
		"9999999999GiB":        "too large",
	} {
		_, err := ParseSize(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSize(%q) error = %v, want one containing %q", in, err, want)
		}
	}
}
