package changedoc

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// figure is a number as a line writes it.
type figure struct {
	text       string // as written: sign, currency, digits, unit
	value      string // the number as a plain decimal ("-1234.5"), "" when its digits are no number (2.1.3)
	unit       string // "%", "‰", a currency sign or code as written, or ""
	start, end int    // byte offsets of text in the line
	// decimal is the decimal mark the figure shows without a doubt, 0
	// when it shows none (1,000 and 1.000 could be either).
	decimal byte
}

// groupSep reports whether r groups thousands where a page puts it
// between digits: the comma and point (also decimal marks), and the
// spaces and apostrophes that only group.
func groupSep(r rune) bool {
	switch r {
	case ',', '.', ' ', '\u00a0', '\u202f', '\u2009', '\'', '’':
		return true
	}
	return false
}

func spaceLike(r rune) bool { return r != ',' && r != '.' }

// prefixes are the currency signs written before an amount, longest
// first; codes are ISO 4217 codes a page writes before or after one.
var (
	prefixes = []string{"US$", "AU$", "CA$", "NZ$", "A$", "C$", "£", "€", "$", "¥", "₹"}
	suffixes = []string{"€", "£", "$"}
	codes    = map[string]bool{"EUR": true, "GBP": true, "USD": true, "CAD": true, "AUD": true, "NZD": true, "CHF": true, "JPY": true, "SEK": true, "NOK": true, "DKK": true, "PLN": true, "CZK": true, "HUF": true, "INR": true}
	// percentWords follow a number as a per cent sign would.
	percentWords = []string{"per cent", "percent", "pour cent", "por ciento", "por cien", "prozent", "procent", "per cento"}
)

// scan lists the figures of line, reading an ambiguous single comma or
// point before three digits (1,000 / 1.000) as the decimal mark dec when
// dec is ',' or '.', else as thousands grouping.
func scan(line string, dec byte) []figure {
	// As many as the runs of digits, at most: a line of hundreds of
	// thousands of figures is held in one array, not grown into one.
	runs := 0
	for i := 0; i < len(line); i++ {
		if c := line[i]; c >= '0' && c <= '9' && (i == 0 || line[i-1] < '0' || line[i-1] > '9') {
			runs++
		}
	}
	if runs == 0 {
		return nil
	}
	out := make([]figure, 0, runs)
	eachFigure(line, dec, func(f figure) bool {
		out = append(out, f)
		return true
	})
	return out
}

// eachFigure gives the figures of line, as scan reads them, to yield
// until it returns false: a reader that needs only the first few of a
// long line's figures neither reads nor keeps the others.
func eachFigure(line string, dec byte, yield func(figure) bool) {
	floor := 0 // where the last figure, with its unit, ended
	for i := 0; i < len(line); {
		c := line[i]
		if c < '0' || c > '9' {
			i++
			continue
		}
		// A digit after a letter is part of a word or a code (S4,
		// C2004A05138), not a figure.
		if r, _ := utf8.DecodeLastRuneInString(line[:i]); i > 0 && (unicode.IsLetter(r) || r == '_') {
			_, i = number(line, i, i, dec) // v2.1 is no figure, nor its 1
			continue
		}
		f, end := number(line, floor, i, dec)
		if !yield(f) {
			return
		}
		i, floor = max(end, f.end), f.end
	}
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// number reads the figure whose first digit is at i, its currency and
// sign at floor or after, and returns it and the offset after its digits
// (its unit, if any, ends at f.end).
func number(line string, floor, i int, dec byte) (figure, int) {
	// The groups of digits and the one-rune separators between them, on
	// the stack for a figure of up to eight groups (most have one or
	// two): a text's figures are read by the ten thousand.
	var groupsOnStack [8]string
	var sepsOnStack [8]rune
	groups, seps := groupsOnStack[:0], sepsOnStack[:0]
	j := skipDigits(line, i)
	groups = append(groups, line[i:j])
	for j < len(line) {
		r, size := utf8.DecodeRuneInString(line[j:])
		if !groupSep(r) || j+size >= len(line) || line[j+size] < '0' || line[j+size] > '9' {
			break
		}
		k := skipDigits(line, j+size)
		seps = append(seps, r)
		groups = append(groups, line[j+size:k])
		j = k
	}
	keep, intPart, frac, decimal, ok := parseGroups(groups, seps, dec, false)
	end := endOf(groups[:keep], seps, i)
	if unitAfter(line, end) == "%" {
		// A percentage is rarely a thousand: 1,375% is read again (the
		// same digits: only an ambiguous mark reads otherwise).
		_, intPart, frac, decimal, ok = parseGroups(groups, seps, dec, true)
	}
	f := figure{start: i, end: end, decimal: decimal}
	if ok {
		f.value = canonical(intPart, frac)
	}
	// A unit after: a per cent sign or words, a currency sign or code.
	if u, n := suffix(line[end:]); n > 0 {
		f.unit, f.end = u, end+n
	}
	// A currency before, and a sign before that.
	start := i
	if f.unit == "" || f.unit == "%" || f.unit == "‰" {
		if u, n := prefix(line[floor:i]); n > 0 {
			if f.unit == "" {
				f.unit = u
			}
			start = i - n
		}
	}
	if r, size := utf8.DecodeLastRuneInString(line[floor:start]); (r == '-' || r == '−') && leftBoundary(line[:start-size]) {
		start -= size
		if f.value != "" {
			f.value = "-" + f.value
		}
	}
	f.start = start
	f.text = line[f.start:f.end]
	return f, end
}

// endOf is where the digits of groups end, read from i.
func endOf(groups []string, seps []rune, i int) int {
	for k, g := range groups {
		if k > 0 {
			i += utf8.RuneLen(seps[k-1])
		}
		i += len(g)
	}
	return i
}

// unitAfter is the unit right after offset i of line, "" for none.
func unitAfter(line string, i int) string {
	u, _ := suffix(line[i:])
	return u
}

// leftBoundary reports whether s ends where a sign may begin a figure:
// at the start, or after a space or an opening bracket or a cell's bar.
func leftBoundary(s string) bool {
	if s == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r) || r == '(' || r == '[' || r == '|' || r == ':'
}

// mayShowNoMark reports whether line may hold a figure with a comma or
// point that shows no decimal mark (the figures ambiguous looks for), by
// the digits around each comma and point only. parseGroups leaves the
// mark untold only for one comma or point before exactly three digits
// (1,000), or two of them in one figure (1,000,000; 2.1.3): a line
// with neither ("12.5 per cent", "Section 3.") holds no such figure and
// is not read figure by figure.
func mayShowNoMark(line string) bool {
	digit := func(i int) bool { return i < len(line) && line[i] >= '0' && line[i] <= '9' }
	for i := 1; i+1 < len(line); i++ {
		if c := line[i]; (c != ',' && c != '.') || !digit(i-1) || !digit(i+1) {
			continue
		}
		j := skipDigits(line, i+1)
		if j-(i+1) == 3 || j+1 < len(line) && (line[j] == ',' || line[j] == '.') && digit(j+1) {
			return true
		}
	}
	return false
}

// parseGroups decides which groups of digits form one number and how:
// the number is groups[:keep]; intPart and frac its integer digits and
// decimals; decimal the mark it shows beyond doubt (0 if none); ok false
// when the digits are no number (a section 2.1.3, a date 01.04.2026).
func parseGroups(groups []string, seps []rune, dec byte, percent bool) (keep int, intPart, frac string, decimal byte, ok bool) {
	// Spaces and apostrophes group thousands only: the first group has
	// one to three digits, each after a space exactly three; a comma or
	// point after them is the decimal mark.
	keep = len(groups)
	var space rune
	for k, s := range seps {
		if !spaceLike(s) {
			if space != 0 {
				// 1 000,50: the decimal mark, and the number's end.
				ip := strings.Join(groups[:k+1], "")
				return k + 2, ip, groups[k+1], byte(s), true
			}
			continue
		}
		if space == 0 && k > 0 || space != 0 && s != space || len(groups[0]) > 3 || len(groups[k+1]) != 3 {
			keep = k + 1
			break
		}
		space = s
	}
	groups, seps = groups[:keep], seps[:keep-1]
	if space != 0 {
		return keep, strings.Join(groups, ""), "", 0, true
	}
	if len(seps) == 0 {
		return keep, groups[0], "", 0, true
	}
	// Commas and points only.
	last := seps[len(seps)-1]
	allSame := true
	for _, s := range seps {
		if s != last {
			allSame = false
		}
	}
	grouped := func(gs []string) bool { // 1–3 digits, then threes
		if len(gs[0]) > 3 || len(gs[0]) == 0 {
			return false
		}
		for _, g := range gs[1:] {
			if len(g) != 3 {
				return false
			}
		}
		return true
	}
	other := func(s rune) byte {
		if s == ',' {
			return '.'
		}
		return ','
	}
	switch {
	case allSame && len(seps) > 1:
		// 1,000,000 or 1.000.000: grouping, which says the decimal mark
		// is the other; 2.1.3 or 01.04.2026: no number.
		if !grouped(groups) {
			return keep, "", "", 0, false
		}
		return keep, strings.Join(groups, ""), "", other(last), true
	case allSame:
		x, y := groups[0], groups[1]
		if len(y) != 3 || len(x) > 3 || x[0] == '0' {
			// 12.5, 0,125, 1234.567: a decimal mark beyond doubt.
			return keep, x, y, byte(last), true
		}
		// 1,000 or 1.000: either. A percentage is rarely a thousand.
		if percent || dec == byte(last) {
			return keep, x, y, 0, true
		}
		return keep, x + y, "", 0, true
	}
	// Both: the last separator is the decimal mark if it is used once,
	// after thousands grouped by the other (1,234.56 or 1.234,56).
	for _, s := range seps[:len(seps)-1] {
		if s == last {
			return keep, "", "", 0, false
		}
	}
	if !grouped(groups[:len(groups)-1]) {
		return keep, "", "", 0, false
	}
	return keep, strings.Join(groups[:len(groups)-1], ""), groups[len(groups)-1], byte(last), true
}

// canonical writes a number as a plain decimal: no grouping, a point
// before the decimals, no leading zeros but one.
func canonical(intPart, frac string) string {
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	if frac == "" {
		return intPart
	}
	return intPart + "." + frac
}

// suffix reads a unit at the start of s, after at most one space: a per
// cent sign or words, a currency sign or an ISO 4217 code. It returns the
// unit ("%" for per cent words) and the bytes it takes, 0 for none.
func suffix(s string) (string, int) {
	if s == "" || !unitStart[s[0]] {
		return "", 0 // most figures end before a quote, a bracket, a word
	}
	rest, sp := s, 0
	if r, size := utf8.DecodeRuneInString(s); r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009' {
		rest, sp = s[size:], size
	}
	switch {
	case strings.HasPrefix(rest, "%"):
		return "%", sp + 1
	case strings.HasPrefix(rest, "‰"):
		return "‰", sp + len("‰")
	}
	for _, w := range percentWords {
		if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) && wordEnd(rest[len(w):]) {
			return "%", sp + len(w)
		}
	}
	for _, c := range suffixes {
		if strings.HasPrefix(rest, c) && wordEnd(rest[len(c):]) {
			return c, sp + len(c)
		}
	}
	if len(rest) >= 3 && codes[rest[:3]] && wordEnd(rest[3:]) {
		return rest[:3], sp + 3
	}
	return "", 0
}

// unitStart are the bytes a unit suffix reads may start with: a space
// (one may come before the unit), %, the first byte of ‰, €, £ and the
// spaces above ASCII, $, and the letters of per cent words and codes.
var unitStart = func() (set [256]bool) {
	for _, c := range []byte(" %$\xc2\xe2") {
		set[c] = true
	}
	for c := byte('A'); c <= 'Z'; c++ {
		set[c], set[c+'a'-'A'] = true, true
	}
	return set
}()

// prefix reads a currency at the end of s, before at most one space: a
// sign (£, €, $, US$…) or an ISO 4217 code. It returns the currency as
// written and the bytes it takes, 0 for none.
func prefix(s string) (string, int) {
	rest, sp := s, 0
	if r, size := utf8.DecodeLastRuneInString(s); r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009' {
		rest, sp = s[:len(s)-size], size
	}
	for _, c := range prefixes {
		if strings.HasSuffix(rest, c) && wordStart(rest[:len(rest)-len(c)]) {
			return c, sp + len(c)
		}
	}
	if len(rest) >= 3 && codes[rest[len(rest)-3:]] && wordStart(rest[:len(rest)-3]) {
		return rest[len(rest)-3:], sp + 3
	}
	return "", 0
}

// wordEnd reports whether s starts where a word may end.
func wordEnd(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s == "" || !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// wordStart reports whether s ends where a word may start.
func wordStart(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s == "" || !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// decimalMark is the decimal mark the texts show beyond doubt (12,5 or
// 1.000.000 for a comma; 12.5 or 1,000,000 for a point), the more often
// shown of the two among the first maxVotes figures that show one (within
// the first maxRead figures), 0 if neither.
func decimalMark(texts ...string) byte {
	var comma, point, read int
	for _, t := range texts {
		for line := range strings.Lines(t) {
			if comma+point >= maxVotes || read >= maxRead {
				break
			}
			if !strings.ContainsAny(line, ",.") {
				continue
			}
			eachFigure(line, 0, func(f figure) bool {
				read++
				switch f.decimal {
				case ',':
					comma++
				case '.':
					point++
				}
				return comma+point < maxVotes && read < maxRead
			})
		}
	}
	switch {
	case comma > point:
		return ','
	case point > comma:
		return '.'
	}
	return 0
}

// maxVotes bounds the figures decimalMark counts: a document keeps to one
// convention, which its first figures show as well as all of them.
// maxRead bounds the figures it reads for them, so that a text of
// figures that show none (ids, years, 1,000) is not read whole.
const (
	maxVotes = 200
	maxRead  = 20_000
)
