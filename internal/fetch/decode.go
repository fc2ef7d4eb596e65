package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
)

// maxEncodings bounds how many Content-Encoding layers are undone: more
// than three is no server's honest answer.
const maxEncodings = 3

// decoded returns a reader of body with the codings named by a
// Content-Encoding header undone (gzip, x-gzip, deflate, br; identity is
// none), last applied first. Only robots.txt is decoded: documents are
// stored as served. An unknown coding is an error, since the text under it
// cannot be read.
func decoded(body io.Reader, contentEncoding string) (io.Reader, error) {
	var codings []string
	for _, c := range strings.Split(contentEncoding, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
			codings = append(codings, c)
		}
	}
	if len(codings) > maxEncodings {
		return nil, fmt.Errorf("Content-Encoding %q stacks %d codings, more than the %d undone", contentEncoding, len(codings), maxEncodings)
	}
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
		default:
			return nil, fmt.Errorf("Content-Encoding %q cannot be decoded (gzip, deflate and br can)", codings[i])
		}
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding %s: %w", codings[i], err)
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
