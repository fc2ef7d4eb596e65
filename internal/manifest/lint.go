package manifest

import (
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// MaxFileSize is the largest manifest (or policy.yaml) validate accepts: a
// file that large is generated or pasted by mistake, and no reviewer can
// read its diff.
const MaxFileSize = 1 << 20

// loosenable are the policy keys that can make the bot faster or heavier
// than its built-in values, and so need a reason.
var loosenable = []string{"delay", "daily_cap", "pause_after_403", "timeout", "max_body", "backoff_max"}

// loosening reports each policy value that is faster or heavier than the
// built-in one without a reason under reasons:, and each reason that
// explains nothing. A policy that allows private networks (tests and the
// demo, loopback only) is exempt.
func (x crossCheck) loosening() {
	p, def := x.pol.Policy, policy.Default()
	loose := map[string]string{}
	if p.Delay.Min < def.Delay.Min || p.Delay.Max < def.Delay.Max {
		loose["delay"] = fmt.Sprintf("delay %s is faster than the built-in %s", fmtDelay(p.Delay), fmtDelay(def.Delay))
	}
	if p.DailyCap > def.DailyCap {
		loose["daily_cap"] = fmt.Sprintf("daily_cap %d is higher than the built-in %d", p.DailyCap, def.DailyCap)
	}
	if p.PauseAfter403 > def.PauseAfter403 {
		loose["pause_after_403"] = fmt.Sprintf("pause_after_403 %d is higher than the built-in %d", p.PauseAfter403, def.PauseAfter403)
	}
	if p.Timeout > def.Timeout {
		loose["timeout"] = fmt.Sprintf("timeout %s is longer than the built-in %s", fmtDuration(p.Timeout), fmtDuration(def.Timeout))
	}
	if p.MaxBody > def.MaxBody {
		loose["max_body"] = fmt.Sprintf("max_body %s is larger than the built-in %s", policy.FormatSize(p.MaxBody), policy.FormatSize(def.MaxBody))
	}
	if p.BackoffMax < def.BackoffMax {
		loose["backoff_max"] = fmt.Sprintf("backoff_max %s is shorter than the built-in %s", fmtDuration(p.BackoffMax), fmtDuration(def.BackoffMax))
	}
	if p.AllowPrivateNetworks {
		return
	}
	for _, key := range loosenable {
		msg, ok := loose[key]
		if !ok {
			continue
		}
		if _, ok := x.pol.reasons[key]; ok {
			continue
		}
		x.errorf(x.pol.path, x.pol.keyLines[key], "%s: it makes the bot faster or heavier on every host; keep the built-in value, or add a reason for it, e.g. reasons: {%s: \"owner agreed by email 2026-11-02\"}", msg, key)
	}
	for _, key := range slices.Sorted(maps.Keys(x.pol.reasons)) {
		line := x.pol.reasonLines[key]
		switch {
		case !slices.Contains(loosenable, key):
			x.errorf(x.pol.path, line, "reasons has %q, which is not a key that can loosen the policy; reasons may name %s %s", key, strings.Join(loosenable, ", "), suggest(key, loosenable))
		case loose[key] == "":
			x.warnf(x.pol.path, line, "reasons has %s, which is not loosened (it is at or stricter than the built-in value); remove the reason", key)
		}
	}
}

// reasonsOf reads policy.yaml's reasons: a mapping of key to a reason.
func (f *file) reasonsOf(e entry) (map[string]string, map[string]int) {
	reasons, lines := map[string]string{}, map[string]int{}
	if e.val.Kind != yaml.MappingNode {
		f.errorf(e.val.Line, "reasons must be a mapping of policy key to why it is loosened, e.g. reasons: {daily_cap: \"owner agreed by email 2026-11-02\"}")
		return reasons, lines
	}
	for i := 0; i+1 < len(e.val.Content); i += 2 {
		k, v := e.val.Content[i], e.val.Content[i+1]
		if s, ok := f.str(entry{k, v}); ok {
			reasons[k.Value], lines[k.Value] = s, k.Line
		}
	}
	return reasons, lines
}

var (
	// A date as people write one in a note: 2026-10-01, 1 October 2026,
	// October 1, 2026, 01/10/2026.
	dateLike = regexp.MustCompile(`(?i)\b(\d{4}-\d{2}-\d{2}|\d{1,2}[ .](jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{4}|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}|\d{1,2}/\d{1,2}/\d{4})\b`)
	// How the permission reached us.
	channelLike = regexp.MustCompile(`(?i)\b(e-?mail|mail|letter|phone|telephone|call|ticket|form|meeting|message|issue|pull request|chat|fax|signed|agreement|contract)\b`)
)

// permissionProblem says what a robots_override permission lacks: it must
// name the channel it came by and the date, so that anyone can find it.
func permissionProblem(perm string) string {
	var missing []string
	if !channelLike.MatchString(perm) {
		missing = append(missing, "no channel (email, letter, phone call, ticket, …)")
	}
	if !dateLike.MatchString(perm) {
		missing = append(missing, "no date (YYYY-MM-DD)")
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("permission %q does not say how and when it was given: it names %s; quote the owner's written permission, e.g. \"email from the webmaster, 2026-10-01, ref 4411\"", perm, strings.Join(missing, " and "))
}

// sameURL is the key under which two URLs are one document: the
// normalised URL (scheme and host case and default ports are already
// normalised away) without a trailing slash on its path, and with its
// path and query in one percent-encoding (see oneEncoding).
func sameURL(normalised string) string {
	if !strings.ContainsAny(normalised, "%?") && !strings.HasSuffix(normalised, "/") && allLiteral(normalised) {
		return normalised // nothing to trim or to re-encode
	}
	u, err := url.Parse(normalised)
	if err != nil {
		return normalised
	}
	p := oneEncoding(u.EscapedPath(), pathDelims)
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		p = strings.TrimSuffix(p, "/")
	}
	out := u.Scheme + "://" + u.Host + p
	if q := oneEncoding(u.RawQuery, queryDelims); q != "" || u.ForceQuery {
		out += "?" + q
	}
	return out
}

// The characters that mean something else escaped than as they are:
// in a path, / and ; split it and ? ends it; in a query, & ; = split it
// and + is a space. Every other escape means its character.
const (
	pathDelims  = "/;?"
	queryDelims = "&;=+"
)

// oneEncoding rewrites the percent-encoding of s, a path or a query as it
// is sent, into one form: an escaped character that means the same as
// itself (%27 and ', %5B and [, %2F and / in a query) is written as
// itself, and a byte that cannot be written as itself (a delimiter of
// delims escaped, %, a space, a control or a non-ASCII byte) escaped, in
// upper-case hex.
func oneEncoding(s, delims string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c, escaped := s[i], false
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c, escaped = unhex(s[i+1])<<4|unhex(s[i+2]), true
			i += 2
		}
		if literal(c) && !(escaped && strings.IndexByte(delims, c) >= 0) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// literal reports whether c is written as itself in a key of sameURL:
// printable ASCII but %.
func literal(c byte) bool { return c > ' ' && c < 0x7f && c != '%' }

func allLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		if !literal(s[i]) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// applicationExts are the page names of web application frameworks (JSF,
// Xaver): a form, a calculator or a viewer, which is not the document it
// shows and may change whenever the application does.
var applicationExts = []string{".xhtml", ".jsf", ".faces", ".xav"}

// documentExts are the names of files a viewer loads when its query names
// one.
var documentExts = []string{".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ods", ".odt", ".rtf", ".csv", ".txt", ".xml", ".htm", ".html"}

// applicationPage says what u looks like when it looks like an
// application's page rather than a document ("a .xav page of a web
// application", "a viewer that loads the document its query names: …"),
// or "" when it does not.
func applicationPage(u *url.URL) string {
	var what string
	if ext := strings.ToLower(path.Ext(u.Path)); slices.Contains(applicationExts, ext) {
		what = "a " + ext + " page of a web application"
	}
	if named := namedDocument(u.RawQuery); named != "" {
		if what == "" {
			what = "a viewer"
		}
		what += " that loads the document its query names: " + named
	}
	return what
}

// namedDocument returns the first key=value of a query whose value names
// a file (…/rates.pdf) or selects one (an XPath such as
// //*[@attr_id='x.pdf']), decoded, or "".
func namedDocument(rawQuery string) string {
	for _, kv := range strings.FieldsFunc(rawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		if d, err := url.QueryUnescape(v); err == nil {
			v = d
		}
		lower := strings.ToLower(v)
		if strings.Contains(lower, "//*") || strings.Contains(lower, "[@") || slices.Contains(documentExts, path.Ext(lower)) {
			return k + "=" + v
		}
	}
	return ""
}

// oldNZLegislation is the New Zealand Legislation website's old page
// form, /<type>/<category>/<year>/<0-padded number>/<version>/<page>.html,
// which the publisher moved to classic.legislation.govt.nz and is
// retiring. The current form names the whole document, provisions being
// fragments of its page: /act/public/2007/97/en/latest/.
var oldNZLegislation = regexp.MustCompile(`^/(act|regulation|bill|sop)/([a-z]+)/(\d{4})/0*(\d+)/(latest|\d{4}-\d{2}-\d{2})/[A-Za-z0-9_.-]+\.html?$`)

// retiredForm says why u is in an address form its publisher is retiring
// and what the current address is, or "".
func retiredForm(u *url.URL) string {
	if u.Host != "www.legislation.govt.nz" && u.Host != "legislation.govt.nz" && u.Host != "classic.legislation.govt.nz" {
		return ""
	}
	m := oldNZLegislation.FindStringSubmatch(u.Path)
	if m == nil {
		return ""
	}
	const why = "is the New Zealand Legislation website's old page form, which now lives on classic.legislation.govt.nz and is being retired; the current form names the whole document (a provision is a #fragment of its page, which is never sent)"
	kind, category, year, number, version := m[1], m[2], m[3], m[4], m[5]
	var current string
	switch {
	case kind == "act":
		current = fmt.Sprintf("/act/%s/%s/%s/en/%s/", category, year, number, version)
	case kind == "regulation" && category == "public":
		current = fmt.Sprintf("/secondary-legislation/pco-drafted/%s/%s/en/%s/", year, number, version)
	default:
		return why + ": use the current form, e.g. https://www.legislation.govt.nz/act/public/2007/97/en/latest/"
	}
	return why + ": use the current form: https://www.legislation.govt.nz" + current
}

// neverKinds are the kinds whose documents cannot change at their URL.
var neverKinds = []Kind{Legislation, Gazette}

// recheckNever refuses recheck: never for kinds whose documents change.
func (f *file) recheckNever(s source, line int) {
	if s.Never && s.Kind != "" && !slices.Contains(neverKinds, s.Kind) {
		f.errorf(line, "recheck: never is only for documents that cannot change (kinds legislation, for an Act as enacted, and gazette); a %s changes at its URL: use a duration, e.g. 24h or 168h", s.Kind)
	}
}

// idPrefix warns about an id that does not start with its jurisdiction.
func (f *file) idPrefix(id, jurisdiction string, line int) {
	if jurisdiction != "" && !strings.HasPrefix(id, jurisdiction+"-") {
		f.warnf(line, "source id %q does not start with %q; prefix ids with their jurisdiction, e.g. %s-%s", id, jurisdiction+"-", jurisdiction, id)
	}
}

// weeklyBudget refuses a host with more sources than its daily cap can
// check in a week, after the robots.txt fetches: some would never be
// checked. A recheck: never source is checked once, when first held, not
// every week: it counts only in that it needs room the recurring sources
// leave, however little.
func (x crossCheck) weeklyBudget(ms []parsed, merged map[string]*mergedHost) {
	type use struct {
		n, never int // recurring sources; recheck: never ones
		file     string
		line     int // where the first recurring source beyond the budget is
		capFile  string
		capLine  int
	}
	robotsPerDay := 1
	if ttl := x.pol.RobotsTTL; ttl > 0 && ttl < 24*time.Hour {
		robotsPerDay = int((24*time.Hour + ttl - 1) / ttl)
	}
	capOf := func(host string) int {
		if m := merged[host]; m != nil && m.cap > 0 {
			return min(m.cap, x.pol.DailyCap)
		}
		return x.pol.DailyCap
	}
	budgetOf := func(host string) int { return max(capOf(host)-robotsPerDay, 0) * 7 }
	uses := map[string]*use{}
	var order []string
	for _, m := range ms {
		for _, h := range m.hosts {
			if h.capLine > 0 {
				if uses[h.name] == nil {
					uses[h.name] = &use{}
					order = append(order, h.name)
				}
				if uses[h.name].capFile == "" {
					uses[h.name].capFile, uses[h.name].capLine = m.File, h.capLine
				}
			}
		}
		for _, s := range m.sources {
			if s.Host == "" {
				continue
			}
			u := uses[s.Host]
			if u == nil {
				u = &use{}
				uses[s.Host] = u
				order = append(order, s.Host)
			}
			if s.Never {
				u.never++
				if u.file == "" {
					u.file, u.line = s.File, s.urlLine
				}
				continue
			}
			u.n++
			if u.n == budgetOf(s.Host)+1 {
				u.file, u.line = s.File, s.urlLine
			}
		}
	}
	for _, host := range order {
		u := uses[host]
		c, budget := capOf(host), budgetOf(host)
		if u.n < budget || u.n == budget && u.never == 0 {
			continue
		}
		file, line := u.file, u.line
		if u.capFile != "" {
			file, line = u.capFile, u.capLine
		}
		if u.n <= budget {
			x.errorf(file, line, "host %s has %d recurring sources, which take all that its daily cap of %d can check in a week (%d, after %d request(s) a day to robots.txt): its %d recheck: never source(s) would never be fetched; raise the cap (with a reason) or list fewer sources on this host", host, u.n, c, budget, robotsPerDay, u.never)
			continue
		}
		x.errorf(file, line, "host %s has %d sources, but its daily cap of %d can check at most %d a week (%d request(s) a day go to robots.txt); raise the cap (with a reason) or list fewer sources on this host", host, u.n+u.never, c, budget, robotsPerDay)
	}
}

// Suggest returns `did you mean "x"?` for the word of allowed closest to
// got (case aside), or "" when none is close enough to be a typo.
func Suggest(got string, allowed []string) string { return suggest(got, allowed) }

// suggest returns `did you mean "x"?` for the allowed word closest to
// got, when one is close enough to be a typo.
func suggest(got string, allowed []string) string {
	best, bestD := "", 0
	for _, a := range allowed {
		d := EditDistance(strings.ToLower(got), a)
		if best == "" || d < bestD {
			best, bestD = a, d
		}
	}
	if best == "" || bestD > max(2, len(got)/3) {
		return ""
	}
	return fmt.Sprintf("did you mean %q?", best)
}

// EditDistance is the number of edits (insertion, deletion, substitution,
// or swapping two neighbours, the commonest typo) from a to b: how far a
// mistyped key, command or flag is from the one meant.
func EditDistance(a, b string) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		before, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		rows = [3][]int{prev, cur, before}
	}
	return rows[1][len(b)]
}

// fillColumns sets the Column of each diagnostic about one of files (path
// → contents) to where the YAML entry on its line starts, past any
// indentation and list dashes.
func fillColumns(ds Diagnostics, files map[string][]byte) {
	split := map[string][]string{} // each file split into lines once, however many diagnostics it has
	for i := range ds {
		d := &ds[i]
		data, ok := files[d.File]
		if !ok || d.Line <= 0 || d.Column > 0 {
			continue
		}
		lines, ok := split[d.File]
		if !ok {
			lines = strings.Split(string(data), "\n")
			split[d.File] = lines
		}
		if d.Line > len(lines) {
			continue
		}
		text := lines[d.Line-1]
		col := 0
		for col < len(text) && (text[col] == ' ' || text[col] == '\t' || (text[col] == '-' && col+1 < len(text) && text[col+1] == ' ')) {
			col++
		}
		if col < len(text) {
			d.Column = col + 1
		}
	}
}

// kindForm says why an address's file extension promises a form its kind
// is not published in, "" when it may be: a spreadsheet is no law and no
// gazette (a table of figures is a tax-table), and a rates page is a page
// or a document to read, not an archive.
func kindForm(kind Kind, u *url.URL) string {
	ext := strings.ToLower(path.Ext(u.Path))
	switch {
	case (kind == Legislation || kind == Gazette) && slices.Contains([]string{".xls", ".xlsx", ".ods", ".csv"}, ext):
		return "is a spreadsheet (" + ext + "), which a " + string(kind) + " is not published as: a table of figures is a tax-table"
	case kind == RatesPage && ext == ".zip":
		return "is a ZIP archive, which a rates-page is not published as: list the page or the document itself"
	}
	return ""
}
