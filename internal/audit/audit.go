package audit

import (
	"bytes"
	"io"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Audit is what a source's first fetch found.
type Audit struct {
	Date string `json:"date"` // UTC day of the first fetch, YYYY-MM-DD
	// Form is what the bytes are, in words ("a PDF", "an HTML page"),
	// told by their magic numbers first, then by their Content-Type.
	Form string `json:"form"`
	Size int64  `json:"size"`
	// FinalURL is where the bytes came from when it is not the listed
	// address (after redirects).
	FinalURL string `json:"final_url,omitempty"`
	// Title is the document's own title: an HTML page's <title>, a PDF's
	// Title, an XML document's title element; "" when it names none.
	Title string `json:"title,omitempty"`
	// Mismatches says, one sentence each, where the bytes disagree with
	// what the manifest entry promised; none when they agree.
	Mismatches []string `json:"mismatches,omitempty"`
}

// Fetch is a first fetch, with what the manifest entry said of it.
type Fetch struct {
	URL      string // the listed address
	FinalURL string // where the bytes came from
	Kind     string // the entry's kind: rates-page, tax-table, …
	Title    string // the entry's title
	// ContentType is the answer's Content-Type; Body the document's
	// bytes, Size bytes of them (a held blob's file, say): an audit reads
	// them in place, a few bounded windows at a time, so that audits of
	// many hosts at once hold little memory whatever the documents' size.
	ContentType string
	Body        io.ReaderAt
	Size        int64
	Date        time.Time
}

// MaxRead is as much of a body as Of reads: enough for an HTML page's
// tables in all but the longest pages, and a bound on what one audit
// costs. A PDF's document information is looked for in its first and
// last pdfWindow bytes, where writers put it.
const MaxRead = 4 << 20

// pdfWindow is how much of each end of a PDF is searched for its title.
const pdfWindow = 64 << 10

// Of audits a first fetch.
func Of(f Fetch) *Audit {
	if f.Body == nil {
		f.Body = bytes.NewReader(nil)
	}
	head := window(f.Body, 0, min(f.Size, 1024))
	form := formOf(f.ContentType, head)
	a := &Audit{Date: f.Date.UTC().Format(time.DateOnly), Form: form.words, Size: f.Size}
	if f.FinalURL != "" && f.FinalURL != f.URL {
		a.FinalURL = f.FinalURL
	}
	var page pageFacts
	within := func() io.Reader { return io.NewSectionReader(f.Body, 0, min(f.Size, MaxRead)) }
	switch form.name {
	case formHTML:
		page = readPage(within())
		a.Title = page.title
	case formPDF:
		if a.Title = pdfTitle(window(f.Body, max(0, f.Size-pdfWindow), f.Size)); a.Title == "" {
			a.Title = pdfTitle(window(f.Body, 0, min(f.Size, pdfWindow)))
		}
	case formXML:
		a.Title = xmlTitle(within())
	}
	if p, ext := promisedBy(f.URL); p != nil && p.name != form.name {
		a.Mismatches = append(a.Mismatches, "the address ends in "+ext+", which promises "+p.words+", but the server sent "+form.words+landing(form))
	}
	// A page where the address promised a file says all there is to say.
	if tableKind(f.Kind) && form.name == formHTML && page.tables == 0 && len(a.Mismatches) == 0 {
		what := "a " + strings.ReplaceAll(f.Kind, "-", " ") + " was listed, but the page holds no table"
		if page.docLinks >= indexLinks {
			what += " and links " + strconv.Itoa(page.docLinks) + " documents (PDFs, spreadsheets): an index; list the table itself"
		} else {
			what += ": a landing page? List the table itself"
		}
		a.Mismatches = append(a.Mismatches, what)
	}
	if a.Title != "" {
		listed := years(f.Title)
		if len(listed) == 0 {
			listed = years(f.URL)
		}
		own := years(a.Title)
		if len(listed) > 0 && len(own) > 0 && !overlap(listed, own) {
			a.Mismatches = append(a.Mismatches, "the document calls itself “"+a.Title+"”, a year ("+join(own)+") the manifest does not name ("+join(listed)+"): another edition?")
		}
	}
	return a
}

// indexLinks is how many links to documents make a page without a
// table an index rather than a landing page.
const indexLinks = 3

// tableKind says whether a kind promises a table of figures.
func tableKind(kind string) bool { return kind == "tax-table" || kind == "withholding-schedule" }

func landing(f form) string {
	if f.name == formHTML {
		return ": a landing page, not the document? List the document's own address"
	}
	return ""
}

// promisedBy is the form an address's file extension promises, nil for
// one that promises none (a page, or no extension).
func promisedBy(raw string) (*form, string) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, ""
	}
	ext := strings.ToLower(path.Ext(u.Path))
	switch ext {
	case ".pdf":
		return &form{formPDF, "a PDF"}, ext
	case ".xls", ".xlsx", ".ods":
		return &form{formSpreadsheet, "a spreadsheet"}, ext
	case ".csv":
		return &form{formCSV, "a CSV table"}, ext
	case ".xml":
		return &form{formXML, "an XML document"}, ext
	case ".zip":
		return &form{formZip, "a ZIP file"}, ext
	case ".doc", ".docx", ".rtf", ".odt":
		return &form{formWord, "a word-processor document"}, ext
	case ".txt":
		return &form{formText, "plain text"}, ext
	}
	return nil, ext
}

var yearRE = regexp.MustCompile(`(?:^|[^0-9])((?:19|20)[0-9]{2})(?:[-–/](?:(?:19|20)?([0-9]{2})))?(?:[^0-9]|$)`)

// years are the years a text names, a range such as 2025-26 naming both.
func years(s string) []int {
	var out []int
	for _, m := range yearRE.FindAllStringSubmatch(s, -1) {
		y, _ := strconv.Atoi(m[1])
		out = append(out, y)
		if m[2] != "" {
			if z, _ := strconv.Atoi(m[2]); z == (y+1)%100 {
				out = append(out, y+1)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func overlap(a, b []int) bool {
	for _, y := range a {
		if slices.Contains(b, y) {
			return true
		}
	}
	return false
}

func join(ys []int) string {
	s := make([]string, len(ys))
	for i, y := range ys {
		s[i] = strconv.Itoa(y)
	}
	return strings.Join(s, ", ")
}

// clean collapses a title's white space and bounds it.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxTitle {
		s = string(r[:maxTitle]) + "…"
	}
	return s
}

const maxTitle = 200

// window reads the bytes of r from off to end (what it can of them).
func window(r io.ReaderAt, off, end int64) []byte {
	if end <= off {
		return nil
	}
	b := make([]byte, end-off)
	n, _ := r.ReadAt(b, off)
	return b[:n]
}

func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF")) }
