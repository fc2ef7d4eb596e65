package answer

import (
	"bytes"
	"net/http"
	"strings"
)

// Magic numbers of the document formats the manifests list: bytes that
// settle what a body is whatever its Content-Type says.
var (
	magicPDF = []byte("%PDF-")
	magicZip = [][]byte{[]byte("PK\x03\x04"), []byte("PK\x05\x06")} // XLSX, DOCX, ODS, ZIP
	magicOLE = []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")           // XLS, DOC
)

// pdfWindow is where a PDF's header may sit: readers accept junk before
// it within the first KiB.
const pdfWindow = 1024

func hasPDF(b []byte) bool { return bytes.Contains(capBytes(b, pdfWindow), magicPDF) }

// binaryKind names a body a magic number settles, "" for any other.
func binaryKind(b []byte) string {
	switch {
	case bytes.HasPrefix(b, magicPDF) || hasPDF(b) && !looksHTML(b):
		return "a PDF"
	case bytes.HasPrefix(b, magicZip[0]) || bytes.HasPrefix(b, magicZip[1]):
		return "a ZIP file"
	case bytes.HasPrefix(b, magicOLE):
		return "an Office 97-2003 file"
	}
	return ""
}

// mediaType is a Content-Type without its parameters, lower-cased.
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func isHTMLType(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

// untyped are Content-Types that say nothing of what a body is.
func untyped(mt string) bool {
	return mt == "" || mt == "application/octet-stream" || mt == "text/plain" || mt == "binary/octet-stream"
}

// isMarkup reports whether a body is a page the rules can read: served as
// HTML and starting as markup, or served untyped and sniffed as HTML.
func isMarkup(ct string, head []byte) bool {
	if binaryKind(head) != "" {
		return false
	}
	mt := mediaType(ct)
	switch {
	case isHTMLType(mt):
		return startsMarkup(head)
	case untyped(mt):
		return looksHTML(head)
	}
	return false
}

// startsMarkup reports whether a body served as HTML is markup, not
// an XML document or plain text a server labels HTML by mistake.
func startsMarkup(b []byte) bool {
	b = trimBOM(b)
	b = bytes.TrimLeft(b, " \t\r\n\f")
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	if bytes.HasPrefix(b, []byte("<?xml")) {
		return looksHTML(b)
	}
	return true
}

// looksHTML sniffs HTML as browsers do, and XHTML's <html> after an XML
// declaration, which they sniff as XML.
func looksHTML(b []byte) bool {
	if strings.HasPrefix(http.DetectContentType(b), "text/html") {
		return true
	}
	first := capBytes(trimBOM(b), pdfWindow)
	return bytes.HasPrefix(bytes.TrimLeft(first, " \t\r\n\f"), []byte("<?xml")) && containsFold(first, "<html")
}

func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF")) }

func containsFold(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(s)], []byte(s)) {
			return true
		}
	}
	return false
}

// wrongType finds a body that contradicts what the source has held: a
// page where a file was, or anything but a PDF where a PDF was.
func (c *check) wrongType() (Verdict, bool) {
	held, heldPDF := c.held()
	if held == "" {
		return Verdict{}, false
	}
	got := ""
	switch {
	case c.markup:
		got = "an HTML page"
	case heldPDF && !hasPDF(c.head):
		if len(c.head) == 0 && c.a.Size > 0 {
			return Verdict{}, false // the caller kept none of the body: nothing to go on
		}
		got = c.described()
	default:
		return Verdict{}, false
	}
	return Verdict{Kind: WrongType, Words: got + " where the source held " + held}, true
}

// held is the media type of the held version when it is a file, not a
// page ("" when it is a page, or unknown); and whether it is a PDF.
func (c *check) held() (string, bool) {
	if len(c.prior) > 0 && (looksHTML(c.prior) || isMarkup(c.a.PriorType, c.prior)) {
		return "", false // whatever it was labelled, the held version is a page
	}
	mt := mediaType(c.a.PriorType)
	if isHTMLType(mt) || strings.ContainsAny(mt, " \t\"\\") {
		return "", false
	}
	if mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		// Only the held bytes can tell what an untyped file was.
		switch binaryKind(c.prior) {
		case "a PDF":
			return "application/pdf", true
		case "a ZIP file":
			return "a ZIP file", false
		case "an Office 97-2003 file":
			return "an Office 97-2003 file", false
		}
		return "", false
	}
	return mt, mt == "application/pdf" || hasPDF(c.prior)
}

// described says what a body that is not a PDF is, for Words.
func (c *check) described() string {
	if len(c.head) == 0 {
		return "an empty answer"
	}
	if k := binaryKind(c.head); k != "" {
		return k
	}
	if mt := mediaType(c.a.Header.Get("Content-Type")); mt != "" && !strings.ContainsAny(mt, " \t\"\\") && len(mt) <= 100 {
		return "a body that is not a PDF (" + mt + ")"
	}
	return "a body that is not a PDF"
}
