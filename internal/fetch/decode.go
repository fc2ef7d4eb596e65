package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"
)

// ErrUndecodable means a body's Content-Encoding could not be undone (a
// coding this client does not know, or a broken stream): the answer is
// unusable, though neither the network nor the store failed.
var ErrUndecodable = errors.New("content coding cannot be undone")

// maxEncodings bounds how many Content-Encoding layers are undone: more
// than three is no server's honest answer.
const maxEncodings = 3

// Sent describes a document's bytes as the server sent them, under a
// Content-Encoding: what an archive of the exchange holds, while the
// document is what was under the coding.
type Sent struct {
	Encoding string // the Content-Encoding, as sent
	SHA256   string // hex, of the bytes as sent
	Size     int64
}

// SentSink is a Sink that also keeps the bytes of an encoded answer as
// they were sent. PutSent is called at the same time as Put, on another
// goroutine, and reads the bytes as they arrive, so that neither copy is
// held in memory; an error it returns fails the Get.
type SentSink interface {
	Sink
	PutSent(ctx context.Context, r io.Reader) (sum string, size int64, err error)
}

// contentEncoding is every Content-Encoding line of h, in order: two lines
// are two codings stacked, as one line listing both.
func contentEncoding(h http.Header) string {
	return strings.Join(h.Values("Content-Encoding"), ", ")
}

// codingsOf lists the codings a Content-Encoding names, in the order they
// were applied (identity, which is none, left out). An unknown coding is
// an error wrapping ErrUndecodable: the bytes under it cannot be read.
func codingsOf(contentEncoding string) ([]string, error) {
	var codings []string
	for _, c := range strings.Split(contentEncoding, ",") {
		switch c = strings.ToLower(strings.TrimSpace(c)); c {
		case "", "identity":
		case "gzip", "x-gzip", "deflate", "br":
			codings = append(codings, c)
		default:
			return nil, fmt.Errorf("Content-Encoding %q: %w (gzip, deflate and br can)", c, ErrUndecodable)
		}
	}
	if len(codings) > maxEncodings {
		return nil, fmt.Errorf("Content-Encoding %q stacks %d codings, more than the %d undone: %w", contentEncoding, len(codings), maxEncodings, ErrUndecodable)
	}
	return codings, nil
}

// decoded returns a reader of body with the codings named by a
// Content-Encoding header undone (gzip, x-gzip, deflate, br; identity is
// none), last applied first. An unknown coding is an error, since the text
// under it cannot be read.
func decoded(body io.Reader, contentEncoding string) (io.Reader, error) {
	codings, err := codingsOf(contentEncoding)
	if err != nil {
		return nil, err
	}
	return undo(body, codings)
}

// undo undoes codings (as codingsOf lists them) over body, last applied
// first.
func undo(body io.Reader, codings []string) (io.Reader, error) {
	r := body
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch codings[i] {
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(r)
		case "deflate":
			r, err = inflate(r)
		case "br":
			r = brotli.NewReader(r)
		}
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding %s: %w: %w", codings[i], ErrUndecodable, err)
		}
	}
	return r, nil
}

// inflate reads "deflate" as RFC 9110 defines it (a zlib stream), or as the
// raw deflate stream that some servers send under that name.
func inflate(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	// A zlib header: compression method 8, and the two bytes a multiple of 31.
	if len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// putDocument hands the document of a 200 body to sink, and sets the
// response's SHA256 and Size from it. A body with a Content-Encoding is
// decoded first, so that the hash names the document whatever compression
// a server chose that day (nginx's gzip_static, an object stored
// compressed), and its derived text is the document's; maxBody bounds the
// decoded bytes as well as the raw ones, so a compression bomb ends as
// ErrTooLarge having written no more than maxBody. The bytes as sent are
// hashed into resp.Sent, and kept when sink is a SentSink.
func putDocument(ctx context.Context, url string, body io.Reader, resp *Response, maxBody int64, sink Sink) error {
	ce := contentEncoding(resp.Header)
	codings, err := codingsOf(ce)
	if err != nil {
		return fmt.Errorf("fetch: %s: %w", url, err)
	}
	if len(codings) == 0 {
		sum, size, err := sink.Put(ctx, body)
		resp.SHA256, resp.Size = sum, size
		return err
	}

	sent := &sentTee{r: body, h: sha256.New()}
	var kept chan putResult
	if ss, ok := sink.(SentSink); ok {
		pr, pw := io.Pipe()
		sent.w = pw
		kept = make(chan putResult, 1)
		go func() {
			var res putResult
			res.sum, res.size, res.err = ss.PutSent(ctx, pr)
			// Writes after an early return fail at once instead of
			// blocking the document's reads.
			pr.CloseWithError(errSentGone)
			kept <- res
		}()
	}
	// finish ends the as-sent copy: whole when cause is nil, else
	// abandoned with cause; it returns what PutSent said.
	finish := func(cause error) putResult {
		if kept == nil {
			return putResult{}
		}
		if cause != nil {
			sent.w.CloseWithError(cause)
		} else {
			sent.w.Close()
		}
		return <-kept
	}

	doc, err := undo(sent, codings)
	if err != nil {
		finish(err)
		return fmt.Errorf("fetch: %s: %w", url, err)
	}
	limited := &limitedReader{r: doc, left: maxBody}
	sum, size, err := sink.Put(ctx, limited)
	switch {
	case limited.tooLarge:
		err = fmt.Errorf("fetch: %s: decoded (Content-Encoding %s) over %d bytes: %w", url, ce, maxBody, ErrTooLarge)
	case limited.err != nil:
		// A failure of the body itself is told by do, which knows it;
		// otherwise the coded stream is broken.
		err = fmt.Errorf("fetch: %s: decoding Content-Encoding %s: %w: %w", url, ce, ErrUndecodable, limited.err)
	case err == nil:
		// Whatever follows the coded stream was sent too (nothing, from
		// an honest server).
		_, err = io.Copy(io.Discard, sent)
	}
	if err != nil {
		finish(err)
		return err
	}
	if res := finish(nil); res.err != nil {
		return fmt.Errorf("fetch: %s: keeping the bytes as sent: %w", url, res.err)
	} else if kept != nil && res.sum != hex.EncodeToString(sent.h.Sum(nil)) {
		return fmt.Errorf("fetch: %s: the bytes as sent were kept as %s, but hash to %x", url, res.sum, sent.h.Sum(nil))
	}
	resp.SHA256, resp.Size = sum, size
	resp.Sent = &Sent{Encoding: ce, SHA256: hex.EncodeToString(sent.h.Sum(nil)), Size: sent.n}
	return nil
}

// errSentGone is what a write to the as-sent copy gets once PutSent has
// returned.
var errSentGone = errors.New("the copy of the bytes as sent ended")

type putResult struct {
	sum  string
	size int64
	err  error
}

// sentTee passes the body through, hashing and counting it and copying it
// to w. A failed write stops the copy but not the reads: the document is
// still read whole, and PutSent's own error says why the copy failed.
type sentTee struct {
	r    io.Reader
	h    hash.Hash
	n    int64
	w    *io.PipeWriter
	wErr error
}

func (s *sentTee) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.h.Write(p[:n])
		s.n += int64(n)
		if s.w != nil && s.wErr == nil {
			_, s.wErr = s.w.Write(p[:n])
		}
	}
	return n, err
}
