package dataset

import (
	"fmt"
	"time"
)

// Period is a span of whole UTC days, From and To included.
type Period struct {
	From, To time.Time // midnight UTC
}

// Month is the period of a calendar month, "YYYY-MM".
func Month(s string) (Period, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil {
		return Period{}, fmt.Errorf("month %q: want YYYY-MM, e.g. 2026-11", s)
	}
	return Period{From: t, To: t.AddDate(0, 1, -1)}, nil
}

// Between is the period from one UTC date to another, both "YYYY-MM-DD".
func Between(from, to string) (Period, error) {
	f, err := time.Parse(time.DateOnly, from)
	if err != nil {
		return Period{}, fmt.Errorf("from %q: want a UTC date, YYYY-MM-DD", from)
	}
	t, err := time.Parse(time.DateOnly, to)
	if err != nil {
		return Period{}, fmt.Errorf("to %q: want a UTC date, YYYY-MM-DD", to)
	}
	if t.Before(f) {
		return Period{}, fmt.Errorf("to %s is before from %s", to, from)
	}
	return Period{From: f, To: t}, nil
}

// PreviousMonth is the calendar month before the one now falls in (UTC).
func PreviousMonth(now time.Time) Period {
	now = now.UTC()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return Period{From: first.AddDate(0, -1, 0), To: first.AddDate(0, 0, -1)}
}

// Name is "YYYY-MM" for a calendar month, else "YYYY-MM-DD_YYYY-MM-DD".
func (p Period) Name() string {
	if p.From.Day() == 1 && p.To.Equal(p.From.AddDate(0, 1, -1)) {
		return p.From.Format("2006-01")
	}
	return p.From.Format(time.DateOnly) + "_" + p.To.Format(time.DateOnly)
}

// String is "YYYY-MM-DD to YYYY-MM-DD".
func (p Period) String() string {
	return p.From.Format(time.DateOnly) + " to " + p.To.Format(time.DateOnly)
}

// End is the first instant after the period.
func (p Period) End() time.Time { return p.To.AddDate(0, 0, 1) }

func (p Period) from() string { return p.From.Format(time.DateOnly) }
func (p Period) to() string   { return p.To.Format(time.DateOnly) }

// WarcName is the name of the dataset's WARC file.
func (p Period) WarcName() string { return "taxkernelbot-" + p.Name() + ".warc.gz" }

// WaczName is the name of the dataset's WACZ package: its WARC, indexed
// for replay.
func (p Period) WaczName() string { return "taxkernelbot-" + p.Name() + ".wacz" }
