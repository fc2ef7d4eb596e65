package report

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// jsonWriter writes entries as an Encoder with SetEscapeHTML(false)
// writes them, without its reflection: coverage.json is written after a
// run's last answer, a thousand entries long. A string with anything to
// escape is left to the Encoder. TestEntryJSONIsEncodingJSONs holds the
// two to the same bytes, with every field set.
type jsonWriter struct {
	b     []byte
	tmp   bytes.Buffer // the Encoder's output
	enc   *json.Encoder
	err   error // the first error; what follows it is not written
	first bool  // the next field is its object's first
}

func newJSONWriter() *jsonWriter {
	w := &jsonWriter{}
	w.enc = json.NewEncoder(&w.tmp)
	w.enc.SetEscapeHTML(false)
	return w
}

// entry writes e in the order of Entry's fields, left out as omitempty
// leaves them out.
func (w *jsonWriter) entry(e *Entry) error {
	w.open()
	w.str("jurisdiction", e.Jurisdiction, false)
	w.str("id", e.ID, false)
	w.str("url", e.URL, false)
	w.str("kind", e.Kind, false)
	w.str("title", e.Title, false)
	w.str("status", string(e.Status), false)
	w.str("since", e.Since, true)
	w.int("http_status", int64(e.HTTPStatus))
	w.str("sha256", e.SHA256, true)
	w.int("size", e.Size)
	w.str("content_type", e.ContentType, true)
	w.str("final_url", e.FinalURL, true)
	w.str("detail", e.Detail, true)
	w.strs("encodes", e.Encodes)
	w.strs("gaps", e.Gaps)
	if n := e.Noisy; n != nil {
		w.key("noisy")
		w.open()
		w.str("since", n.Since, false)
		w.strs("drop", n.Drop)
		w.strs("ignore", n.Ignore)
		if n.Matched {
			w.key("matched")
			w.b = append(w.b, "true"...)
		}
		w.b = append(w.b, '}')
	}
	if e.FRBR != nil {
		w.key("frbr")
		w.encode(e.FRBR)
	}
	if e.Usage != nil {
		w.key("usage")
		w.encode(e.Usage)
	}
	if e.Audit != nil {
		w.key("first_fetch")
		w.encode(e.Audit)
	}
	w.b = append(w.b, '}')
	return w.err
}

// encode writes v as the Encoder writes it: for the fields too rare to be
// worth writing by hand.
func (w *jsonWriter) encode(v any) {
	if w.err == nil {
		w.tmp.Reset()
		w.err = w.enc.Encode(v)
		w.b = append(w.b, bytes.TrimSuffix(w.tmp.Bytes(), []byte("\n"))...)
	}
}

// host writes h in the order of HostSeen's fields.
func (w *jsonWriter) host(h *HostSeen) {
	w.open()
	w.str("host", h.Host, false)
	w.str("robots", h.Robots, true)
	w.ints("requests", h.Requests)
	w.ints("daily", h.Daily)
	if len(h.Pace) > 0 {
		w.key("pace")
		w.encode(h.Pace)
	}
	w.b = append(w.b, '}')
}

// ints writes "name":[n,…], nothing for none.
func (w *jsonWriter) ints(name string, ns []int) {
	if len(ns) == 0 {
		return
	}
	w.key(name)
	w.b = append(w.b, '[')
	for i, n := range ns {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = strconv.AppendInt(w.b, int64(n), 10)
	}
	w.b = append(w.b, ']')
}

func (w *jsonWriter) open() {
	w.b = append(w.b, '{')
	w.first = true
}

// key writes "name": after a comma unless it is the object's first.
func (w *jsonWriter) key(name string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, `":`...)
}

func (w *jsonWriter) str(name, s string, omitempty bool) {
	if omitempty && s == "" {
		return
	}
	w.key(name)
	w.quote(s)
}

func (w *jsonWriter) int(name string, n int64) {
	if n == 0 { // every integer field is omitempty
		return
	}
	w.key(name)
	w.b = strconv.AppendInt(w.b, n, 10)
}

// strs writes the array vs, left out when empty.
func (w *jsonWriter) strs(name string, vs []string) {
	if len(vs) == 0 {
		return
	}
	w.key(name)
	w.b = append(w.b, '[')
	for i, v := range vs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.quote(v)
	}
	w.b = append(w.b, ']')
}

// quote writes s quoted: as it is when it is printable ASCII without a
// quote or a backslash, else as the Encoder writes it.
func (w *jsonWriter) quote(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			if w.err == nil {
				w.tmp.Reset()
				w.err = w.enc.Encode(s)
				w.b = append(w.b, bytes.TrimSuffix(w.tmp.Bytes(), []byte("\n"))...)
			}
			return
		}
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
}
