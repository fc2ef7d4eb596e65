package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"testing"
)

// sentSink is a hashSink that also keeps the bytes as sent, as the store
// does. fail makes PutSent fail after reading them, as a full disk would.
type sentSink struct {
	hashSink
	sent     []byte
	sentErr  error // the read error PutSent saw
	sentCall int
	fail     error
}

func (s *sentSink) PutSent(_ context.Context, r io.Reader) (string, int64, error) {
	s.sentCall++
	b, err := io.ReadAll(r)
	if err != nil {
		s.sentErr = err
		return "", 0, fmt.Errorf("sent: %w", err)
	}
	if s.fail != nil {
		return "", 0, s.fail
	}
	s.sent = b
	return sum(b), int64(len(b)), nil
}

func gzipAt(t testing.TB, level int, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// serveEncoded answers every request with body under the Content-Encoding
// lines given.
func serveEncoded(t testing.TB, body []byte, encodings ...string) string {
	return server(t, func(w http.ResponseWriter, r *http.Request) {
		for _, e := range encodings {
			w.Header().Add("Content-Encoding", e)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}).URL
}

var page = []byte(strings.Repeat("<tr><td>Basic rate</td><td>£12,571 to £50,270</td><td>20%</td></tr>\n", 200))

// TestGetDecodesDocuments: whatever Content-Encoding a server chose, the
// document's hash and size are those of the page under it; the bytes as
// sent are described beside it and handed to a SentSink whole.
func TestGetDecodesDocuments(t *testing.T) {
	tests := []struct {
		name      string
		body      []byte
		encodings []string // one Content-Encoding line each
	}{
		{"gzip", encodeAs(t, "gzip", page), []string{"gzip"}},
		{"x-gzip", encodeAs(t, "gzip", page), []string{"x-gzip"}},
		{"deflate as zlib", encodeAs(t, "deflate", page), []string{"deflate"}},
		{"deflate as raw deflate", encodeAs(t, "raw-deflate", page), []string{"deflate"}},
		{"br", encodeAs(t, "br", page), []string{"br"}},
		{"upper case", encodeAs(t, "gzip", page), []string{"GZIP"}},
		{"stacked on one line", encodeAs(t, "br", encodeAs(t, "gzip", page)), []string{"gzip, br"}},
		{"stacked on two lines", encodeAs(t, "gzip", encodeAs(t, "deflate", page)), []string{"deflate", "gzip"}},
		{"identity around gzip", encodeAs(t, "gzip", page), []string{"identity, gzip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := serveEncoded(t, tt.body, tt.encodings...)
			for _, keep := range []bool{false, true} {
				var sink Sink = &hashSink{}
				ss := &sentSink{}
				if keep {
					sink = ss
				}
				resp, err := newClient(nil).Get(t.Context(), Request{URL: url}, sink)
				if err != nil {
					t.Fatal(err)
				}
				if resp.SHA256 != sum(page) || resp.Size != int64(len(page)) {
					t.Errorf("document %s/%d, want the page's %s/%d", resp.SHA256, resp.Size, sum(page), len(page))
				}
				want := &Sent{Encoding: strings.Join(tt.encodings, ", "), SHA256: sum(tt.body), Size: int64(len(tt.body))}
				if resp.Sent == nil || *resp.Sent != *want {
					t.Errorf("as sent %+v, want %+v", resp.Sent, want)
				}
				if keep && !bytes.Equal(ss.sent, tt.body) {
					t.Errorf("PutSent got %d bytes, want the %d sent", len(ss.sent), len(tt.body))
				}
				if ce := resp.Header.Get("Content-Encoding"); ce == "" {
					t.Error("the Content-Encoding header is not kept in the response")
				}
			}
		})
	}
}

// TestGetIdentityIsNotEncoded: a body without a coding, or under
// identity alone, is the document itself: no as-sent copy is made.
func TestGetIdentityIsNotEncoded(t *testing.T) {
	for _, enc := range [][]string{nil, {"identity"}} {
		sink := &sentSink{}
		resp, err := newClient(nil).Get(t.Context(), Request{URL: serveEncoded(t, page, enc...)}, sink)
		if err != nil {
			t.Fatal(err)
		}
		if resp.SHA256 != sum(page) || resp.Sent != nil || sink.sentCall != 0 {
			t.Errorf("%q: %s, sent %+v, PutSent called %d times: want the page, nothing as sent", enc, resp.SHA256, resp.Sent, sink.sentCall)
		}
	}
}

// TestRecompressedIsTheSameDocument: the same page compressed at another
// level (a server that re-compressed it, another replica) is other bytes
// as sent but the same document: the same hash, so not a change.
func TestRecompressedIsTheSameDocument(t *testing.T) {
	fast, best := gzipAt(t, gzip.BestSpeed, page), gzipAt(t, gzip.BestCompression, page)
	if bytes.Equal(fast, best) {
		t.Fatal("the two levels gave the same bytes: the test proves nothing")
	}
	var got []*Response
	for _, body := range [][]byte{fast, best} {
		resp, err := newClient(nil).Get(t.Context(), Request{URL: serveEncoded(t, body, "gzip")}, &sentSink{})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, resp)
	}
	if got[0].SHA256 != got[1].SHA256 || got[0].SHA256 != sum(page) {
		t.Errorf("levels 1 and 9 hash to %s and %s, want both %s", got[0].SHA256, got[1].SHA256, sum(page))
	}
	if got[0].Sent.SHA256 == got[1].Sent.SHA256 {
		t.Errorf("the bytes as sent differ, but both were described as %s", got[0].Sent.SHA256)
	}
	t.Logf("page %d bytes; gzip -1 %d bytes, gzip -9 %d bytes; one document %.12s", len(page), len(fast), len(best), got[0].SHA256)
}

// TestDecodedBodyIsBounded: a small stream that decodes to more than
// max_body (a compression bomb) ends as too large, with no more than
// max_body bytes written and nothing kept or hashed; so does a coded
// stream over max_body itself.
func TestDecodedBodyIsBounded(t *testing.T) {
	const max = 64 << 10
	bomb := encodeAs(t, "gzip", make([]byte, 4<<20)) // 4 MiB of zeros in about 4 KiB
	brBomb := encodeAs(t, "br", make([]byte, 4<<20))
	noise := make([]byte, 2*max) // does not compress
	rand.NewChaCha8([32]byte{1}).Read(noise)
	tests := []struct {
		name string
		body []byte
		enc  string
	}{
		{"gzip bomb", bomb, "gzip"},
		{"br bomb", brBomb, "br"},
		{"gzip over max_body as sent", encodeAs(t, "gzip", noise), "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("%d bytes sent", len(tt.body))
			sink := &countSink{}
			c := newClient(func(c *Config) { c.MaxBody = max })
			resp, err := c.Get(t.Context(), Request{URL: serveEncoded(t, tt.body, tt.enc)}, sink)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			if sink.n > max {
				t.Errorf("the sink was given %d bytes, more than max_body %d", sink.n, max)
			}
			if resp == nil || resp.SHA256 != "" || resp.Sent != nil {
				t.Errorf("resp = %+v, want no hash for bytes not kept", resp)
			}
			if sink.kept {
				t.Error("the bytes as sent were kept for an abandoned answer")
			}
		})
	}
}

// countSink counts what Put reads, and says whether PutSent saw the end
// of the bytes as sent (kept them) or an error (abandoned them).
type countSink struct {
	n    int64
	kept bool
}

func (s *countSink) Put(_ context.Context, r io.Reader) (string, int64, error) {
	n, err := io.Copy(io.Discard, r)
	s.n = n
	return "", n, err
}

func (s *countSink) PutSent(_ context.Context, r io.Reader) (string, int64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return "", 0, err
	}
	s.kept = true
	return sum(b), int64(len(b)), nil
}

// TestUndecodableAnswerFails: a coding this client does not know, or a
// stream that does not decode, fails the answer with words that say so
// (ErrUndecodable, Describe) and keeps nothing; it is neither a network
// failure nor a failure of the sink.
func TestUndecodableAnswerFails(t *testing.T) {
	gz := encodeAs(t, "gzip", page)
	tests := []struct {
		name, enc string
		body      []byte
		want      string
		putCalled bool
	}{
		{"unknown coding", "zstd", []byte("(\xb5/\xfd whatever"), `"zstd"`, false},
		{"unknown among known", "gzip, compress", gz, `"compress"`, false},
		{"four codings", "gzip, gzip, gzip, gzip", gz, "stacks 4 codings", false},
		{"not gzip at all", "gzip", page, "invalid header", false},
		{"truncated gzip", "gzip", gz[:len(gz)/2], "unexpected EOF", true},
		{"gzip with a bad checksum", "gzip", badCRC(gz), "checksum", true},
		{"deflate that is not", "deflate", []byte("\xff\xff\xff plain text"), "decoding Content-Encoding deflate", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := &sentSink{}
			resp, err := newClient(nil).Get(t.Context(), Request{URL: serveEncoded(t, tt.body, tt.enc)}, sink)
			if !errors.Is(err, ErrUndecodable) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrUndecodable saying %q", err, tt.want)
			}
			if IsTimeout(err) {
				t.Errorf("%v reads as a timeout", err)
			}
			if d := Describe(err); !strings.HasPrefix(d, "unreadable answer: ") || !strings.Contains(d, "Content-Encoding") {
				t.Errorf("Describe = %q, want an unreadable answer naming the Content-Encoding", d)
			}
			if resp == nil || resp.Status != 200 || resp.SHA256 != "" || resp.Sent != nil {
				t.Errorf("resp = %+v, want the 200 without a hash", resp)
			}
			if (sink.calls > 0) != tt.putCalled || sink.sent != nil {
				t.Errorf("Put called %d times, as sent kept %d bytes", sink.calls, len(sink.sent))
			}
		})
	}
}

// badCRC flips a bit of a gzip member's CRC-32 trailer.
func badCRC(gz []byte) []byte {
	b := bytes.Clone(gz)
	b[len(b)-8] ^= 1
	return b
}

// TestEncodedBodyCutIsANetworkFailure: a coded stream whose connection
// breaks is a failure of the body, as for any document, not a coding the
// client cannot read.
func TestEncodedBodyCutIsANetworkFailure(t *testing.T) {
	gz := encodeAs(t, "gzip", page)
	url := rawServer(t, func(conn net.Conn) {
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", len(gz))
		conn.Write(gz[:len(gz)/2])
		conn.Close()
	})
	_, err := newClient(nil).Get(t.Context(), Request{URL: url}, &sentSink{})
	if err == nil || errors.Is(err, ErrUndecodable) || !strings.Contains(err.Error(), "reading body") {
		t.Errorf("err = %v, want a failure reading the body", err)
	}
}

// TestSentSinkFailureFailsTheGet: when the bytes as sent cannot be kept
// (a full disk), the Get fails with the sink's error, whole document or
// not, so the caller does not index a copy that is missing.
func TestSentSinkFailureFailsTheGet(t *testing.T) {
	full := errors.New("no space left on device")
	sink := &sentSink{fail: full}
	resp, err := newClient(nil).Get(t.Context(), Request{URL: serveEncoded(t, encodeAs(t, "gzip", page), "gzip")}, sink)
	if !errors.Is(err, full) {
		t.Fatalf("err = %v, want the sink's %v", err, full)
	}
	if resp.SHA256 != "" || resp.Sent != nil || sink.err != nil {
		t.Errorf("resp %+v, document sink saw %v: want no hash, and the document read whole", resp, sink.err)
	}
}
