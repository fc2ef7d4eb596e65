package policy

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the DST tests must not depend on the machine's zoneinfo

	"github.com/google/go-cmp/cmp"
)

func days(ds ...time.Weekday) [7]bool {
	var out [7]bool
	for _, d := range ds {
		out[d] = true
	}
	return out
}

func TestParseWindow(t *testing.T) {
	h := time.Hour
	tests := []struct {
		in   string
		want Window
	}{
		{"Mon-Fri 20:00-07:00", Window{Days: days(1, 2, 3, 4, 5), Start: 20 * h, End: 7 * h, Literal: "Mon-Fri 20:00-07:00"}},
		{"Sat-Sun", Window{Days: days(6, 0), AllDay: true, Literal: "Sat-Sun"}},
		{"Sat", Window{Days: days(6), AllDay: true, Literal: "Sat"}},
		{"Fri-Mon", Window{Days: days(5, 6, 0, 1), AllDay: true, Literal: "Fri-Mon"}},
		{"Mon-Sun", Window{Days: days(0, 1, 2, 3, 4, 5, 6), AllDay: true, Literal: "Mon-Sun"}},
		{"Wed-Wed 00:00-23:59", Window{Days: days(3), Start: 0, End: 23*h + 59*time.Minute, Literal: "Wed-Wed 00:00-23:59"}},
		{"  tue   09:30-10:15 ", Window{Days: days(2), Start: 9*h + 30*time.Minute, End: 10*h + 15*time.Minute, Literal: "tue   09:30-10:15"}},
		{"SUN 22:00-00:00", Window{Days: days(0), Start: 22 * h, End: 0, Literal: "SUN 22:00-00:00"}},
	}
	for _, tt := range tests {
		got, err := ParseWindow(tt.in)
		if err != nil {
			t.Errorf("ParseWindow(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseWindow(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseWindowErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "want DAYS",
		"Mon 20:00-07:00 x":    "want DAYS",
		"Monday":               `unknown day "Monday"`,
		"Mon-Fry":              `unknown day "Fry"`,
		"Mon-":                 `unknown day ""`,
		"Mon 20:00":            "want HH:MM-HH:MM",
		"Mon 24:00-07:00":      `time "24:00"`,
		"Mon 20:00-24:00":      `time "24:00"`,
		"Mon 00:00-00:00":      "start and end are the same",
		"Mon 7:00-08:00":       `time "7:00"`,
		"Mon +7:00-08:00":      `time "+7:00"`,
		"Mon 07:60-08:00":      `time "07:60"`,
		"Mon 07-08":            `time "07"`,
		"Mon 20:00-07:00-9:00": `time "07:00-9:00"`,
	} {
		_, err := ParseWindow(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseWindow(%q) error = %v, want one containing %q", in, err, want)
		}
	}
}

func TestWindowContains(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, london)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.In(london)
	}
	tests := []struct {
		window string
		t      time.Time
		want   bool
	}{
		// 2026-01-09 is a Friday.
		{"Fri 20:00-07:00", at("2026-01-09 19:59"), false},
		{"Fri 20:00-07:00", at("2026-01-09 20:00"), true},
		{"Fri 20:00-07:00", at("2026-01-09 23:59"), true},
		{"Fri 20:00-07:00", at("2026-01-10 00:00"), true}, // Saturday morning belongs to Friday
		{"Fri 20:00-07:00", at("2026-01-10 06:59"), true},
		{"Fri 20:00-07:00", at("2026-01-10 07:00"), false},
		{"Fri 20:00-07:00", at("2026-01-10 20:00"), false}, // Saturday evening is not Friday
		{"Fri 20:00-07:00", at("2026-01-09 06:00"), false}, // Friday morning belongs to Thursday
		{"Mon-Fri 09:00-17:00", at("2026-01-09 09:00"), true},
		{"Mon-Fri 09:00-17:00", at("2026-01-09 17:00"), false},
		{"Mon-Fri 09:00-17:00", at("2026-01-10 10:00"), false},
		{"Fri-Mon", at("2026-01-11 12:00"), true}, // Sunday, inside a wrapping range
		{"Fri-Mon", at("2026-01-12 23:59"), true},
		{"Fri-Mon", at("2026-01-13 00:00"), false},
		{"Sun 22:00-00:00", at("2026-01-11 23:30"), true},
		{"Sun 22:00-00:00", at("2026-01-12 00:00"), false},
		{"Sat-Sun", at("2026-01-12 00:00"), false},
		// Sun 2026-03-29: London springs forward at 01:00 GMT to 02:00 BST.
		// A window keeps its wall-clock hours: 06:30 BST is 05:30 UTC.
		{"Sat 20:00-07:00", utc("2026-03-29T05:30:00Z"), true},  // 06:30 BST
		{"Sat 20:00-07:00", utc("2026-03-29T06:30:00Z"), false}, // 07:30 BST, though 06:30 UTC
		{"Sat 20:00-07:00", utc("2026-03-29T00:59:00Z"), true},  // 00:59 GMT
		{"Sun 01:00-02:00", utc("2026-03-29T00:59:00Z"), false}, // 00:59 GMT
		{"Sun 01:00-02:00", utc("2026-03-29T01:00:00Z"), false}, // 02:00 BST: 01:xx never happens
		// Sun 2026-10-25: London falls back at 02:00 BST to 01:00 GMT; 01:30 happens twice.
		{"Sun 01:00-02:00", utc("2026-10-25T00:30:00Z"), true}, // 01:30 BST
		{"Sun 01:00-02:00", utc("2026-10-25T01:30:00Z"), true}, // 01:30 GMT
		{"Sun 01:00-02:00", utc("2026-10-25T02:00:00Z"), false},
		{"Sat 20:00-07:00", utc("2026-10-25T06:59:00Z"), true},  // 06:59 GMT
		{"Sat 20:00-07:00", utc("2026-10-25T07:00:00Z"), false}, // 07:00 GMT
	}
	for _, tt := range tests {
		w := mustWindow(t, tt.window)
		if got := w.Contains(tt.t); got != tt.want {
			t.Errorf("%q.Contains(%s) = %v, want %v", tt.window, tt.t.Format("Mon 2006-01-02 15:04 MST"), got, tt.want)
		}
	}
}
