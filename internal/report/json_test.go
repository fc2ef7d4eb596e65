package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// strings a field may hold: plain, empty, and each thing encoding/json
// escapes (quotes, backslashes, controls, HTML, U+2028, bad UTF-8).
var jsonStrings = []string{
	"", "uk", "https://www.gov.uk/rates?a=1&b=2", "Rates <2026> & more", `say "hi"`, `a\b`,
	"line\nbreak\ttab\r\x00\x1f\x7f", "caf\u00e9 \u65e5\u672c", "\u2028\u2029", "bad \xff\xfe utf-8", "\ufffd",
}

// fill sets v (addressable) to random values, each field of a struct
// through reflection, so that a field added to Entry is covered too.
func fill(t *testing.T, r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(jsonStrings[r.IntN(len(jsonStrings))])
	case reflect.Int, reflect.Int64:
		v.SetInt([]int64{0, 0, 1, 200, -3, 1 << 40}[r.IntN(6)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Slice:
		switch r.IntN(3) {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			v.Set(reflect.MakeSlice(v.Type(), 1+r.IntN(3), 3))
			for i := range v.Len() {
				fill(t, r, v.Index(i))
			}
		}
	case reflect.Map:
		if n := r.IntN(3); n > 0 {
			m := reflect.MakeMap(v.Type())
			for range n {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fill(t, r, k)
				fill(t, r, e)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Pointer:
		if r.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(t, r, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, r, v.Field(i))
		}
	default:
		t.Fatalf("fill: no values for a %s; the JSON of a report entry needs a case for it", v.Type())
	}
}

// TestEntryJSONIsEncodingJSONs: coverage.json's entries are the bytes an
// Encoder with SetEscapeHTML(false) writes, whatever the fields hold.
func TestEntryJSONIsEncodingJSONs(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	for range 20_000 {
		var e Entry
		fill(t, r, reflect.ValueOf(&e).Elem())
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
		w := newJSONWriter()
		if err := w.entry(&e); err != nil {
			t.Fatal(err)
		}
		if got := string(w.b); got+"\n" != want.String() {
			t.Fatalf("entry %+v:\ngot  %s\nwant %s", e, got, want.String())
		}
	}
}
