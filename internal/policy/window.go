package policy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

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
	w := Window{Literal: strings.TrimSpace(s)}
	fields := strings.Fields(s)
	if len(fields) == 0 || len(fields) > 2 {
		return Window{}, fmt.Errorf("off-peak window %q: want DAYS [HH:MM-HH:MM], e.g. \"Mon-Fri 20:00-07:00\" or \"Sat-Sun\"", s)
	}
	first, last, isRange := strings.Cut(fields[0], "-")
	from, err := parseDay(first)
	if err != nil {
		return Window{}, fmt.Errorf("off-peak window %q: %w", s, err)
	}
	to := from
	if isRange {
		if to, err = parseDay(last); err != nil {
			return Window{}, fmt.Errorf("off-peak window %q: %w", s, err)
		}
	}
	// Walk forward from the first day, so that "Fri-Mon" wraps over Sunday.
	for d := from; ; d = (d + 1) % 7 {
		w.Days[d] = true
		if d == to {
			break
		}
	}
	if len(fields) == 1 {
		w.AllDay = true
		return w, nil
	}
	start, end, ok := strings.Cut(fields[1], "-")
	if !ok {
		return Window{}, fmt.Errorf("off-peak window %q: time span %q: want HH:MM-HH:MM, e.g. 20:00-07:00", s, fields[1])
	}
	if w.Start, err = parseClock(start); err != nil {
		return Window{}, fmt.Errorf("off-peak window %q: %w", s, err)
	}
	if w.End, err = parseClock(end); err != nil {
		return Window{}, fmt.Errorf("off-peak window %q: %w", s, err)
	}
	if w.Start == w.End {
		return Window{}, fmt.Errorf("off-peak window %q: start and end are the same time; leave the time out for the whole day", s)
	}
	return w, nil
}

var dayNames = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

func parseDay(s string) (time.Weekday, error) {
	for i, name := range dayNames {
		if strings.EqualFold(s, name) {
			return time.Weekday(i), nil
		}
	}
	return 0, fmt.Errorf("unknown day %q: use Mon Tue Wed Thu Fri Sat Sun", s)
}

// parseClock reads "HH:MM", 00:00 to 23:59, as the time since midnight.
func parseClock(s string) (time.Duration, error) {
	hh, mm, ok := strings.Cut(s, ":")
	h, errH := strconv.Atoi(hh)
	m, errM := strconv.Atoi(mm)
	if !ok || !twoDigits(hh) || !twoDigits(mm) || errH != nil || errM != nil || h > 23 || m > 59 {
		return 0, fmt.Errorf("time %q: want HH:MM between 00:00 and 23:59", s)
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute, nil
}

// Contains reports whether local time t is inside the window.
//
// It reads the wall clock of t, not the time elapsed since midnight, so a
// window keeps its written hours across daylight-saving changes. The part
// of a window after midnight belongs to the previous day, so that day's
// membership decides the early hours.
func (w Window) Contains(t time.Time) bool {
	h, m, sec := t.Clock()
	now := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(sec)*time.Second + time.Duration(t.Nanosecond())
	today := t.Weekday()
	yesterday := (today + 6) % 7
	switch {
	case w.AllDay:
		return w.Days[today]
	case w.Start < w.End:
		return w.Days[today] && now >= w.Start && now < w.End
	default:
		return (w.Days[today] && now >= w.Start) || (w.Days[yesterday] && now < w.End)
	}
}

func twoDigits(s string) bool {
	return len(s) == 2 && isDigits(s)
}
