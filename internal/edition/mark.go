package edition

import (
	"strconv"
	"strings"
)

// Form is a way an address or a title names its edition.
type Form int

const (
	// TaxYear is a year and the next, as tax years are written:
	// 2025-26, 2025-2026, 2025_26, 2025/26, 2025-to-2026, "2025 to 2026"
	// (HMRC's, the ATO's and Revenue's yearly pages).
	TaxYear Form = iota + 1
	// Date is a day or a month, 2025-11-12 (the BMF's dated file names),
	// 2025-01 (CBO's folders): it moves with the edition; a day does not
	// name a tax year.
	Date
	// Year is a year on its own between non-digits: /2026/,
	// Retenciones-2026_, IncomeTax2022.pdf.
	Year
	// PayrollIssue is the CRA's payroll tables issue, month and two-digit
	// year before the language: t4032-on-1-25eng (January 2025).
	PayrollIssue
	// RegisterID is an Australian Federal Register of Legislation
	// identifier of a legislative instrument, F2025L00647: the year it
	// was registered and its number that year. A remade instrument has a
	// new one, so only the title tells its successor (see Find).
	RegisterID
)

func (f Form) String() string {
	switch f {
	case TaxYear:
		return "tax year"
	case Date:
		return "date"
	case Year:
		return "year"
	case PayrollIssue:
		return "payroll tables issue"
	case RegisterID:
		return "register id"
	}
	return "form " + strconv.Itoa(int(f))
}

// Mark is one edition named in a string: where, in which form and shape,
// and the edition it names.
type Mark struct {
	Form       Form
	Start, End int // s[Start:End] is the mark
	// Year is the year the mark names; of a tax year, the year it starts.
	Year int
	// Seq orders marks of one year: a date's month and day (1112), an
	// issue's month, a register id's number; 0 for a year.
	Seq int
	// shape is what, beside the edition, must be the same for two marks
	// to be of one series: a tax year's separator and width, a
	// register id's letter.
	shape string
}

// Later says whether m names a later edition than o (both of one
// series).
func (m Mark) Later(o Mark) bool {
	return m.Year > o.Year || m.Year == o.Year && m.Seq > o.Seq
}

// placeholder is the mark in a series key: its form and shape, no edition.
func (m Mark) placeholder() string {
	return "\x00" + strconv.Itoa(int(m.Form)) + ":" + m.shape + "\x00"
}

// Marks finds the editions s names, left to right, none overlapping. It
// reads s once.
func Marks(s string) []Mark {
	var out []Mark
	for i := 0; i < len(s); {
		if m, ok := markAt(s, i); ok {
			out = append(out, m)
			i = m.End
			continue
		}
		i++
	}
	return out
}

// markAt is the mark starting at s[i], if one does.
func markAt(s string, i int) (Mark, bool) {
	c := s[i]
	switch {
	case c == 'F':
		return registerID(s, i)
	case c == '-':
		return payrollIssue(s, i)
	case isDigit(c) && (i == 0 || !isDigit(s[i-1])):
		y, ok := year(s, i)
		if !ok {
			return Mark{}, false
		}
		if m, ok := date(s, i, y); ok {
			return m, true
		}
		if m, ok := taxYear(s, i, y); ok {
			return m, true
		}
		if m, ok := month(s, i, y); ok {
			return m, true
		}
		end := i + 4
		// A year glued to a capital letter is part of an identifier
		// (the Federal Register's C2004A05138), not an edition.
		if end < len(s) && (isDigit(s[end]) || isUpper(s[end])) || i > 0 && isUpper(s[i-1]) && end < len(s) && isAlnum(s[end]) {
			return Mark{}, false
		}
		return Mark{Form: Year, Start: i, End: end, Year: y}, true
	}
	return Mark{}, false
}

// year reads a year of 1990 to 2099 at s[i:i+4].
func year(s string, i int) (int, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	n, ok := digits(s[i : i+4])
	if !ok || n < 1990 || n > 2099 {
		return 0, false
	}
	return n, true
}

// date reads YYYY-MM-DD at s[i], y its year.
func date(s string, i, y int) (Mark, bool) {
	end := i + 10
	if end > len(s) || s[i+4] != '-' || s[i+7] != '-' || end < len(s) && isDigit(s[end]) {
		return Mark{}, false
	}
	month, ok1 := digits(s[i+5 : i+7])
	day, ok2 := digits(s[i+8 : i+10])
	if !ok1 || !ok2 || month < 1 || month > 12 || day < 1 || day > 31 {
		return Mark{}, false
	}
	return Mark{Form: Date, Start: i, End: end, Year: y, Seq: month*100 + day}, true
}

// month reads YYYY-MM at s[i], y its year (CBO's 2025-01 folders): read
// after taxYear, so that 2011-12 is the tax year.
func month(s string, i, y int) (Mark, bool) {
	end := i + 7
	if end > len(s) || s[i+4] != '-' || end < len(s) && isDigit(s[end]) {
		return Mark{}, false
	}
	m, ok := digits(s[i+5 : end])
	if !ok || m < 1 || m > 12 {
		return Mark{}, false
	}
	return Mark{Form: Date, Start: i, End: end, Year: y, Seq: m * 100, shape: "month"}, true
}

// taxYearSeparators are those between a tax year's two years, longest
// first.
var taxYearSeparators = []string{"-to-", " to ", "_to_", "-", "_", "/", "–", " – ", " - "}

// taxYear reads YYYY-YY or YYYY-YYYY (any separator of
// taxYearSeparators) at s[i], y its first year: the second must be the
// next year, or it is a span of another kind (a plan's 2019-23).
func taxYear(s string, i, y int) (Mark, bool) {
	rest := s[i+4:]
	for _, sep := range taxYearSeparators {
		if !strings.HasPrefix(rest, sep) {
			continue
		}
		j := i + 4 + len(sep)
		for _, width := range []int{4, 2} {
			end := j + width
			if end > len(s) || end < len(s) && isDigit(s[end]) {
				continue
			}
			n, ok := digits(s[j:end])
			if !ok {
				continue
			}
			next := y + 1
			if width == 2 {
				next %= 100
			}
			if n == next {
				return Mark{Form: TaxYear, Start: i, End: end, Year: y, shape: sep + strconv.Itoa(width)}, true
			}
		}
		return Mark{}, false
	}
	return Mark{}, false
}

// payrollIssue reads -M-YYeng or -M-YYfra at s[i] (the CRA's T4032
// file names): the mark is M-YY, its year 20YY.
func payrollIssue(s string, i int) (Mark, bool) {
	j := i + 1
	k := j
	for k < len(s) && k-j < 2 && isDigit(s[k]) {
		k++
	}
	if k == j || k+3 > len(s) || s[k] != '-' {
		return Mark{}, false
	}
	yy, ok := digits(s[k+1 : k+3])
	if !ok || !(strings.HasPrefix(s[k+3:], "eng") || strings.HasPrefix(s[k+3:], "fra")) {
		return Mark{}, false
	}
	month, _ := digits(s[j:k])
	if month < 1 || month > 12 {
		return Mark{}, false
	}
	return Mark{Form: PayrollIssue, Start: j, End: k + 3, Year: 2000 + yy, Seq: month}, true
}

// registerID reads F2025L00647 at s[i].
func registerID(s string, i int) (Mark, bool) {
	end := i + 11
	if end > len(s) || i > 0 && isAlnum(s[i-1]) || end < len(s) && isAlnum(s[end]) {
		return Mark{}, false
	}
	y, ok := year(s, i+1)
	if !ok || s[i+5] != 'L' {
		return Mark{}, false
	}
	n, ok := digits(s[i+6 : end])
	if !ok {
		return Mark{}, false
	}
	return Mark{Form: RegisterID, Start: i, End: end, Year: y, Seq: n, shape: "L"}, true
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool { return isDigit(c) || isUpper(c) || 'a' <= c && c <= 'z' }

// Key is s with each of its marks replaced by a placeholder of its form
// and shape: two strings of one series (one address pattern, one title
// across the years) have the same key.
func Key(s string, marks []Mark) string {
	var b strings.Builder
	at := 0
	for _, m := range marks {
		b.WriteString(s[at:m.Start])
		b.WriteString(m.placeholder())
		at = m.End
	}
	b.WriteString(s[at:])
	return b.String()
}

// compare says how the edition of marks b stands to that of marks a, of
// one series (the same key): later when no mark goes back and at least
// one moves on.
func later(b, a []Mark) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	moved := false
	for i := range a {
		if a[i].Later(b[i]) {
			return false
		}
		if b[i].Later(a[i]) {
			moved = true
		}
	}
	return moved
}

// newest is the latest year the marks name, 0 for none.
func newest(marks []Mark) int {
	y := 0
	for _, m := range marks {
		y = max(y, m.Year)
	}
	return y
}

// Shift is s with each tax year and year it names moved on by years
// (2025 to 2026 → 2026 to 2027), as a title or an id reads for the next
// edition; dates, issues and register ids are left as they are, since
// their next value cannot be told from the year.
func Shift(s string, years int) string {
	marks := Marks(s)
	var b strings.Builder
	at := 0
	for _, m := range marks {
		b.WriteString(s[at:m.Start])
		switch m.Form {
		case TaxYear:
			sep, width := m.shape[:len(m.shape)-1], m.shape[len(m.shape)-1:]
			second := strconv.Itoa(m.Year + years + 1)
			if width == "2" {
				second = second[2:]
			}
			b.WriteString(strconv.Itoa(m.Year+years) + sep + second)
		case Year:
			b.WriteString(strconv.Itoa(m.Year + years))
		default:
			b.WriteString(s[m.Start:m.End])
		}
		at = m.End
	}
	b.WriteString(s[at:])
	return b.String()
}
