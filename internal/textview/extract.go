package textview

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Version names the extractors' output. It is part of every stored text's
// path, so a change in what Extract produces for the same bytes (a new rule
// for tables, a new library version) must bump it: texts of an older version
// are then derived anew instead of being compared with different output.
// The engine outside this module (pdftotext, whose version a machine
// decides) is kept with each text instead (Engine), with the same effect.
const Version = "v3"

// Kind is the family of a document, as far as text goes.
type Kind string

const (
	KindHTML Kind = "html"
	KindPDF  Kind = "pdf"
	KindCSV  Kind = "csv"
	KindTSV  Kind = "tsv"
	KindText Kind = "text"
	KindXLSX Kind = "xlsx"
	// KindLaw is legislation in a structured form its publisher serves
	// (Justice Canada's XML, legislation.gov.uk's CLML, USLM, eCFR, New
	// Zealand's and gesetze-im-internet.de's XML): its text is the law's
	// (package law).
	KindLaw Kind = "law"
	// KindNone is a document with no text extractor (images, Word files,
	// archives): its Result says so in Reason.
	KindNone Kind = "none"
)

// Limits bound the work done on one document. Zero fields take the
// defaults of DefaultLimits.
type Limits struct {
	// MaxInput is the largest document read at all; larger ones get a
	// Reason and no text.
	MaxInput int64
	// MaxText is the most text kept; past it the text is cut at a line
	// boundary, Truncated is set and Reason says where.
	MaxText int
	// MaxPages is the most PDF pages read.
	MaxPages int
	// Timeout bounds the time spent on one document, on top of any
	// deadline of the caller's context.
	Timeout time.Duration
	// MaxMemory bounds the memory of the process that extracts one
	// document (its data segment, where it can be bounded; see setLimits).
	MaxMemory int64
	// MaxCPU bounds the CPU time of that process.
	MaxCPU time.Duration
}

// DefaultLimits are generous for tax-office documents (a 50 MiB body is the
// fetcher's own default ceiling) and small enough for a CI runner: with
// the run's own memory, an extraction at its memory bound stays under
// 512 MiB.
var DefaultLimits = Limits{
	MaxInput:  64 << 20,
	MaxText:   16 << 20,
	MaxPages:  5000,
	Timeout:   60 * time.Second,
	MaxMemory: 320 << 20,
	MaxCPU:    60 * time.Second,
}

func (l Limits) withDefaults() Limits {
	if l.MaxInput <= 0 {
		l.MaxInput = DefaultLimits.MaxInput
	}
	if l.MaxText <= 0 {
		l.MaxText = DefaultLimits.MaxText
	}
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultLimits.MaxPages
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultLimits.Timeout
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultLimits.MaxMemory
	}
	if l.MaxCPU <= 0 {
		l.MaxCPU = DefaultLimits.MaxCPU
	}
	return l
}

// Result is the text of one document.
type Result struct {
	Kind Kind
	// Text is the document's lines, each ending in "\n". Empty when the
	// document could not be read (Reason says why) or holds no text.
	Text string
	// Reason says why there is no text, or why it is incomplete; empty
	// when the whole document was read.
	Reason string
	// Truncated is set when Text stops early (MaxText, MaxPages or the
	// deadline was reached part way): what is there is right, but not all.
	Truncated bool
	// Engine names what derived the text (see Engine).
	Engine string
}

// OK reports whether the document's whole text was read.
func (r Result) OK() bool { return r.Reason == "" }

// Extract returns the plain text of raw under the default view: what a
// reader sees, without scripts, styles, comments, hidden elements and
// <meta>. contentType is the Content-Type the server sent; when it is
// missing or generic the bytes are sniffed. Extract never panics and never
// fails: a document that cannot be read comes back with a Reason.
func Extract(ctx context.Context, raw []byte, contentType string, lim Limits) Result {
	return extract(ctx, Doc{Raw: raw, ContentType: contentType}, nil, lim)
}

// ExtractDoc is Extract of a Doc, which may be read through its Open: the
// bytes then stream to the extracting process and are never all in this
// one.
func ExtractDoc(ctx context.Context, d Doc, lim Limits) Result {
	return extract(ctx, d, nil, lim)
}

// inProcessMax is the largest HTML or plain text extracted in this
// process: the work on an uncompressed text is bounded by its size, and a
// child costs more than such a page. PDFs and XLSX workbooks, whose
// compressed streams can inflate a thousandfold, always go to a child.
const inProcessMax = 1 << 20

// childSlot holds the one extraction running in a child.
var childSlot = make(chan struct{}, 1)

// sniffSize is how much of a document kindOf needs.
const sniffSize = 64 << 10

// outcome is how one extraction ended, before it is said as a Result.
type outcome struct {
	text  string
	size  int
	err   error
	panic any
}

var (
	errMemory = errors.New("memory bound")
	errCPU    = errors.New("CPU time bound")
)

// extract is Extract with the elements that drop matches removed first
// (HTML only).
// extractions counts the documents this process has extracted text
// from (Extractions).
var extractions atomic.Int64

// Extractions is how many documents this process has extracted text
// from, for the tests and benchmarks that bound the work of a run (a
// change extracts the new bytes once; the held bytes' text is kept).
func Extractions() int64 { return extractions.Load() }

func extract(ctx context.Context, d Doc, v *View, lim Limits) (res Result) {
	extractions.Add(1)
	lim = lim.withDefaults()
	head := d.Raw
	var body io.Reader = bytes.NewReader(d.Raw)
	if d.Raw == nil && d.Open != nil {
		rc, err := d.Open()
		if err != nil {
			res.Reason = fmt.Sprintf("cannot read the held bytes (%v); no text is derived", err)
			return res
		}
		defer rc.Close()
		head = make([]byte, sniffSize)
		n, err := io.ReadFull(rc, head)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			res.Reason = fmt.Sprintf("cannot read the held bytes (%v); no text is derived", err)
			return res
		}
		head = head[:n]
		body = io.MultiReader(bytes.NewReader(head), rc)
	}
	kind, detail := kindOf(head, d.ContentType)
	res.Kind = kind
	res.Engine = Engine(kind)
	if kind == KindNone {
		res.Reason = detail
		return res
	}
	if size := d.size(); size > lim.MaxInput {
		res.Reason = fmt.Sprintf("%d bytes is over the %d-byte limit for text extraction; the bytes are held, but no text is derived", size, lim.MaxInput)
		return res
	}
	// A run already stopping derives nothing: without this check the
	// select below could pick a finished extraction or the stop at random.
	if err := context.Cause(ctx); err != nil {
		res.Reason = fmt.Sprintf("text extraction stopped before it began (%v); no text is derived", err)
		return res
	}
	// A zipped law, like a workbook, can inflate a thousandfold.
	zipped := kind == KindLaw && bytes.HasPrefix(head, []byte("PK\x03\x04"))
	child := kind == KindPDF && pdftotext().path != "" || isolate && self() != "" && (kind == KindPDF || kind == KindXLSX || zipped || d.size() > inProcessMax)
	if child {
		// One extracting child at a time, whatever the number of hosts
		// fetching: the run's memory is its own plus one child's bound.
		select {
		case childSlot <- struct{}{}:
			defer func() { <-childSlot }()
		case <-ctx.Done():
			res.Reason = fmt.Sprintf("text extraction stopped before it began (%v); no text is derived", context.Cause(ctx))
			return res
		}
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()

	var o outcome
	var drop []string
	if v != nil {
		drop = v.spec.Drop
	}
	switch {
	case kind == KindPDF && pdftotext().path != "":
		o = runPdftotext(ctx, pdftotext().path, body, lim)
	case child:
		// A plain text's text is about its bytes: held in one buffer
		// of that size, not grown into it (a text of 20 MB grown line by
		// line was copied five times over).
		expect := 0
		if kind == KindText {
			expect = int(min(d.size(), int64(lim.MaxText)))
		}
		o = runGoChild(ctx, childRequest{Mode: "go", Kind: kind, ContentType: d.ContentType, Drop: drop, Limits: lim}, body, lim, expect)
	default:
		raw := d.Raw
		if raw == nil {
			b, err := io.ReadAll(io.LimitReader(body, lim.MaxInput+1))
			if err != nil {
				res.Reason = fmt.Sprintf("cannot read the held bytes (%v); no text is derived", err)
				return res
			}
			raw = b
		}
		o = extractHere(ctx, kind, raw, d.ContentType, v, lim)
	}
	if ctx.Err() != nil && o.err == nil && o.panic == nil && o.text == "" {
		o.err = ctx.Err()
	}
	if o.panic != nil {
		res.Reason = fmt.Sprintf("the %s extractor failed on these bytes (%s); no text is derived: the document may be damaged", kind, shortPanic(o.panic))
		return res
	}
	res.Text = o.text
	switch err := o.err; {
	case err == nil:
	case errors.Is(err, errTextLimit):
		res.Truncated = true
		res.Reason = fmt.Sprintf("text cut after %d bytes (the limit per document)", o.size)
	case errors.Is(err, errPageLimit):
		res.Truncated = true
		res.Reason = fmt.Sprintf("text of the first %d pages only (the limit per document)", lim.MaxPages)
	case errors.Is(err, errNoText):
		res.Text = ""
		res.Reason = err.Error()
	case errors.Is(err, errMemory):
		res.Text = ""
		res.Reason = fmt.Sprintf("text extraction needed more than its memory bound (%d MiB per document) and was ended; the bytes are held, but no text is derived", lim.MaxMemory>>20)
	case errors.Is(err, errCPU):
		res.Text = ""
		res.Reason = fmt.Sprintf("text extraction used more than its CPU time bound (%s per document) and was ended; the bytes are held, but no text is derived", lim.MaxCPU)
	case ctx.Err() != nil && o.text == "":
		res.Reason = fmt.Sprintf("text extraction did not finish in time (%v, the limit is %s per document); no text is derived", context.Cause(ctx), lim.Timeout)
	case ctx.Err() != nil:
		res.Truncated = res.Text != ""
		res.Reason = fmt.Sprintf("text extraction stopped (%v, the limit is %s per document); the text is incomplete", context.Cause(ctx), lim.Timeout)
	default:
		res.Text = ""
		res.Reason = fmt.Sprintf("cannot read the %s: %v", kind, err)
	}
	return res
}

// shortPanic is the start of a library's panic value as text: some quote
// the damaged bytes they stopped at, whole.
func shortPanic(p any) string {
	s := strings.ToValidUTF8(fmt.Sprint(p), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + " …"
	}
	return s
}

// extractHere extracts in this process, on a goroutine of its own that is
// abandoned (left to end by itself) when the deadline passes: the
// libraries do not take a context and may loop on damaged input. Only
// where no child can be started.
func extractHere(ctx context.Context, kind Kind, raw []byte, contentType string, v *View, lim Limits) outcome {
	done := make(chan outcome, 1)
	run := extractors[kind]
	go func() {
		out := &lines{max: lim.MaxText}
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{panic: p}
			}
		}()
		err := run(ctx, raw, contentType, v, lim, out)
		done <- outcome{text: out.String(), size: out.size, err: err}
	}()
	select {
	case o := <-done:
		return o
	case <-ctx.Done():
		return outcome{err: context.DeadlineExceeded}
	}
}

// runGoChild extracts in a child process (see childEnv); expect is the
// text's size when it is known beforehand, else 0.
func runGoChild(ctx context.Context, req childRequest, in io.Reader, lim Limits, expect int) outcome {
	js, err := json.Marshal(req)
	if err != nil {
		return outcome{err: err}
	}
	out := &lines{max: lim.MaxText}
	out.buf.Grow(expect)
	r := runChild(ctx, func(ctx context.Context) *exec.Cmd {
		c := exec.CommandContext(ctx, self())
		c.Env = append(parserEnv(), childEnv+"="+string(js))
		return c
	}, in, lim.MaxText, out.add)
	o := outcome{text: out.String(), size: out.size}
	switch {
	case r.startErr != nil:
		// No child to be had (no process left, say): the text is missing
		// and says why; this process never extracts unbounded.
		return outcome{err: fmt.Errorf("start the extracting process: %w", r.startErr)}
	case r.inputErr != nil:
		return outcome{err: fmt.Errorf("read the held bytes: %w", r.inputErr)}
	case r.stopped != nil:
		o.err = r.stopped
	case ctx.Err() != nil:
		o.err = ctx.Err()
	case r.status != nil && r.exit != nil && r.exit.Success():
		switch r.status.Code {
		case "":
		case "text":
			o.err = errTextLimit
		case "page":
			o.err = errPageLimit
		case "none":
			o.err = fmt.Errorf("%w: %s", errNoText, strings.TrimPrefix(r.status.Err, errNoText.Error()+": "))
		case "panic":
			return outcome{panic: r.status.Err}
		case "memory":
			o = outcome{err: errMemory}
		default:
			o.err = errors.New(r.status.Err)
		}
	case overMemory(r.stderr):
		o.err = errMemory
	case r.exit != nil && (overCPU(r.exit) || strings.Contains(r.stderr, "SIGXCPU")):
		o.err = errCPU
	case r.exit != nil && nearMemory(r.exit, lim.MaxMemory):
		o.err = errMemory
	default:
		return outcome{panic: fmt.Sprintf("%s: %s", r.exit, why(r.stderr))}
	}
	return o
}

// extractors write the text of one kind of document into out.
var extractors = map[Kind]func(ctx context.Context, raw []byte, contentType string, v *View, lim Limits, out *lines) error{
	KindHTML: func(ctx context.Context, raw []byte, ct string, v *View, _ Limits, out *lines) error {
		return extractHTML(ctx, raw, ct, v, out)
	},
	KindPDF: func(ctx context.Context, raw []byte, _ string, _ *View, lim Limits, out *lines) error {
		return extractPDF(ctx, raw, lim.MaxPages, out)
	},
	KindXLSX: func(ctx context.Context, raw []byte, _ string, _ *View, lim Limits, out *lines) error {
		return extractXLSX(ctx, raw, lim, out)
	},
	KindLaw: func(ctx context.Context, raw []byte, _ string, _ *View, lim Limits, out *lines) error {
		return extractLaw(ctx, raw, lim.withDefaults(), out)
	},
	KindCSV:  plain,
	KindTSV:  plain,
	KindText: plain,
}

func plain(ctx context.Context, raw []byte, ct string, _ *View, _ Limits, out *lines) error {
	return extractPlain(ctx, raw, ct, out)
}

var (
	errTextLimit = errors.New("text limit reached")
	errPageLimit = errors.New("page limit reached")
	errNoText    = errors.New("no text")
)

// lines collects extracted lines up to max bytes.
type lines struct {
	buf  strings.Builder
	size int
	max  int
	full bool
}

// add appends one line (without its "\n"); it fails with errTextLimit once
// the limit would be passed, keeping the lines before.
func (l *lines) add(s string) error {
	if l.full {
		return errTextLimit
	}
	if l.size+len(s)+1 > l.max {
		l.full = true
		return errTextLimit
	}
	l.buf.WriteString(s)
	l.buf.WriteByte('\n')
	l.size += len(s) + 1
	return nil
}

func (l *lines) String() string { return l.buf.String() }

// reset drops the lines, for a second reading of the same document.
func (l *lines) reset() {
	l.buf.Reset()
	l.size, l.full = 0, false
}

// kindOf tells the document's kind from its Content-Type, sniffing the
// bytes when the type is missing or generic. For KindNone, the string says
// why there is no text.
func kindOf(raw []byte, contentType string) (Kind, string) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || contentType == "" {
		mt = ""
	}
	switch mt {
	case "text/html", "application/xhtml+xml":
		return KindHTML, ""
	case "application/pdf", "application/x-pdf":
		return KindPDF, ""
	case "text/csv":
		return KindCSV, ""
	case "text/tab-separated-values":
		return KindTSV, ""
	case "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":
		return KindXLSX, ""
	case "application/zip", "application/x-zip-compressed":
		if zippedLaw(raw) {
			return KindLaw, ""
		}
	case "application/xml", "text/xml":
		if isLaw(raw) {
			return KindLaw, ""
		}
		return KindText, ""
	case "text/plain", "application/json":
		if isLaw(raw) {
			return KindLaw, ""
		}
		return KindText, ""
	case "", "application/octet-stream", "binary/octet-stream", "application/download", "application/force-download":
		return sniff(raw, contentType)
	}
	if strings.HasPrefix(mt, "text/") {
		return KindText, ""
	}
	return KindNone, fmt.Sprintf("no text extractor for %s; only HTML, PDF, CSV/TSV, plain text, XLSX and legislation's XML have a text view (the bytes are held as they are)", mt)
}

// sniff tells the kind of bytes served without a useful Content-Type.
func sniff(raw []byte, contentType string) (Kind, string) {
	head := raw[:min(len(raw), 1024)]
	switch {
	case bytes.Contains(head, []byte("%PDF-")):
		return KindPDF, ""
	case bytes.HasPrefix(raw, []byte("PK\x03\x04")) && bytes.Contains(raw[:min(len(raw), 64<<10)], []byte("xl/")):
		return KindXLSX, ""
	case zippedLaw(raw):
		return KindLaw, ""
	}
	if isLaw(head) || isLaw(raw[:min(len(raw), sniffSize)]) {
		return KindLaw, ""
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(raw))
	switch {
	case mt == "text/html":
		return KindHTML, ""
	case mt == "text/plain" && utf8.Valid(head[:lastRuneStart(head)]):
		return KindText, ""
	}
	what := contentType
	if what == "" {
		what = "no Content-Type"
	}
	return KindNone, fmt.Sprintf("no text extractor for these bytes (%s, they look like %s); only HTML, PDF, CSV/TSV, plain text, XLSX and legislation's XML have a text view", what, mt)
}

// lastRuneStart is the length of b without a rune cut off at its end.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
