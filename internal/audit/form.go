package audit

import (
	"bytes"
	"strings"
)

// The forms a body takes, as a reviewer names them.
const (
	formPDF         = "pdf"
	formSpreadsheet = "spreadsheet"
	formCSV         = "csv"
	formXML         = "xml"
	formZip         = "zip"
	formWord        = "word"
	formText        = "text"
	formHTML        = "html"
	formOther       = "other"
)

type form struct{ name, words string }

var (
	magicPDF = []byte("%PDF-")
	magicZip = []byte("PK\x03\x04")
	magicOLE = []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1") // XLS, DOC
)

// formOf tells what body is: by its magic numbers first (servers label
// PDFs and spreadsheets wrongly often enough), then by the Content-Type,
// then by sniffing markup.
func formOf(contentType string, body []byte) form {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	head := bytes.TrimLeft(trimBOM(body[:min(len(body), 1024)]), " \t\r\n")
	switch {
	case bytes.Contains(body[:min(len(body), 1024)], magicPDF) && !sniffHTML(head):
		return form{formPDF, "a PDF"}
	case bytes.HasPrefix(body, magicZip):
		switch {
		case strings.Contains(mt, "spreadsheet") || strings.Contains(mt, "excel"):
			return form{formSpreadsheet, "a spreadsheet"}
		case strings.Contains(mt, "word"):
			return form{formWord, "a word-processor document"}
		}
		return form{formZip, "a ZIP file"}
	case bytes.HasPrefix(body, magicOLE):
		if strings.Contains(mt, "word") {
			return form{formWord, "a word-processor document"}
		}
		return form{formSpreadsheet, "a spreadsheet"}
	}
	switch {
	case (mt == "text/html" || mt == "application/xhtml+xml" || mt == "text/plain" || mt == "") && sniffCSV(head):
		// A table served under a page's type (or none): servers label
		// files by habit, the bytes say what they are.
		return form{formCSV, "a CSV table"}
	case (mt == "text/html" || mt == "application/xhtml+xml") && (len(head) == 0 || head[0] != '<'):
		return form{formText, "plain text (served as " + mt + ")"}
	case mt == "text/html" || mt == "application/xhtml+xml":
		return form{formHTML, "an HTML page"}
	case mt == "application/pdf":
		return form{formPDF, "a PDF"}
	case mt == "text/csv":
		return form{formCSV, "a CSV table"}
	case mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml"):
		if htmlRoot(head) {
			return form{formHTML, "an HTML page"}
		}
		return form{formXML, "an XML document"}
	case strings.Contains(mt, "spreadsheet") || strings.Contains(mt, "excel"):
		return form{formSpreadsheet, "a spreadsheet"}
	case mt == "application/zip":
		return form{formZip, "a ZIP file"}
	case bytes.HasPrefix(head, []byte("<?xml")) && !htmlRoot(head):
		return form{formXML, "an XML document"}
	case sniffHTML(head):
		return form{formHTML, "an HTML page"}
	case mt == "text/plain":
		return form{formText, "plain text"}
	}
	if mt == "" {
		return form{formOther, "a body with no Content-Type"}
	}
	return form{formOther, "a body of type " + mt}
}

// sniffHTML says whether a body's start is an HTML page, as browsers
// sniff it.
func sniffHTML(head []byte) bool {
	lower := bytes.ToLower(head[:min(len(head), 512)])
	for _, tag := range []string{"<!doctype html", "<html", "<head", "<body", "<title"} {
		if bytes.Contains(lower, []byte(tag)) {
			return true
		}
	}
	return false
}

// htmlRoot says whether an XML body is XHTML: an XML document may well
// have a <body> or <title> of its own (Justice Canada's Acts have both).
func htmlRoot(head []byte) bool {
	lower := bytes.ToLower(head[:min(len(head), 512)])
	return bytes.Contains(lower, []byte("<!doctype html")) || bytes.Contains(lower, []byte("<html"))
}

// sniffCSV says whether a body starts as a comma-separated table: two
// lines or more, the first two with as many commas, at least one.
func sniffCSV(head []byte) bool {
	lines := bytes.SplitN(head[:min(len(head), 1024)], []byte("\n"), 3)
	if len(lines) < 2 || bytes.ContainsAny(lines[0], "<>") {
		return false
	}
	n := bytes.Count(lines[0], []byte(","))
	return n > 0 && bytes.Count(lines[1], []byte(",")) == n
}
