package policy

import "time"

// Window is one off-peak window: a set of weekdays and, optionally, a time
// span in local time. A span that ends before it starts runs past midnight
// and belongs to the day it starts on ("Fri 20:00-07:00" covers Friday
// 20:00 to Saturday 07:00).
type Window struct {
	Days    [7]bool // indexed by time.Weekday
	AllDay  bool
	Start   time.Duration // since local midnight
	End     time.Duration // since local midnight; End <= Start means past midnight
	Literal string        // as written, for messages
}

// ParseWindow parses "DAYS [HH:MM-HH:MM]" where DAYS is a day ("Mon") or a
// range ("Mon-Fri", wrapping allowed: "Sat-Sun", "Fri-Mon"). Day names are
// Mon Tue Wed Thu Fri Sat Sun, case-insensitive. A missing time means the
// whole day; "00:00-00:00" and "24:00" are not accepted.
func ParseWindow(s string) (Window, error) {
	panic("TODO")
}

// Contains reports whether local time t is inside the window.
func (w Window) Contains(t time.Time) bool {
	panic("TODO")
}
