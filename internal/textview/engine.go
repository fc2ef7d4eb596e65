package textview

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// PDFToTextEnv names the environment variable that chooses the PDF
// engine: unset or empty, pdftotext is looked up on PATH; "off", the
// built-in extractor is used; anything else is the path of pdftotext.
const PDFToTextEnv = "TAXKERNELBOT_PDFTOTEXT"

// pdfTool is the pdftotext found for this process, or why there is none.
type pdfTool struct {
	path    string // empty when there is none
	version string // e.g. "22.12.0"
	why     string // when path is empty: why the built-in extractor is used
}

var (
	toolMu    sync.Mutex
	toolCache = map[string]pdfTool{}
)

var popplerVersion = regexp.MustCompile(`pdftotext version ([0-9][0-9A-Za-z.\-]*)`)

// pdftotext returns the pdftotext this process uses, asking it its
// version once per setting of PDFToTextEnv.
func pdftotext() pdfTool {
	setting := os.Getenv(PDFToTextEnv)
	toolMu.Lock()
	defer toolMu.Unlock()
	if t, ok := toolCache[setting]; ok {
		return t
	}
	t := findPdftotext(setting)
	toolCache[setting] = t
	return t
}

func findPdftotext(setting string) pdfTool {
	if strings.EqualFold(setting, "off") {
		return pdfTool{why: PDFToTextEnv + "=off"}
	}
	path := setting
	if path == "" {
		p, err := exec.LookPath("pdftotext")
		if err != nil {
			return pdfTool{why: "pdftotext not found on PATH (install poppler-utils)"}
		}
		path = p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "-v")
	cmd.Env = parserEnv()
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	m := popplerVersion.FindSubmatch(out.Bytes())
	if m == nil {
		return pdfTool{why: fmt.Sprintf("%s does not say it is poppler's pdftotext (%v): %.80q", path, err, out.String())}
	}
	return pdfTool{path: path, version: string(m[1])}
}

// Engine names what derives the text of documents of kind k in this
// process: the pdftotext version for PDFs, else this package's Version. It
// is kept with each derived text (the .engine file), so a text derived by
// another engine is derived again rather than compared with this one's.
func Engine(k Kind) string {
	if k == KindPDF {
		if t := pdftotext(); t.path != "" {
			return "pdftotext " + t.version + " -layout"
		} else {
			return "built-in (ledongthuc/pdf), because " + t.why
		}
	}
	return "textview " + Version
}

// stamp is the one line of a .engine file: the kind, then its Engine.
func stamp(k Kind) string { return string(k) + ": " + Engine(k) }

// current reports whether s (a .engine file's line) names the engine this
// process would use for its kind.
func current(s string) bool {
	k, _, ok := strings.Cut(s, ": ")
	return ok && s == stamp(Kind(k))
}
