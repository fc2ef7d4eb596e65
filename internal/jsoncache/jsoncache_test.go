package jsoncache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

type value struct {
	Name  string            `json:"name"`
	N     int               `json:"n,omitempty"`
	Tags  []string          `json:"tags,omitempty"`
	Empty []string          `json:"empty"`
	Head  map[string]string `json:"head,omitempty"`
	Inner *value            `json:"inner,omitempty"`
}

type doc struct {
	Items map[string]value `json:"items"`
	Other map[string]int   `json:"other"`
}

// render is what the owner of a map does: the cached map's field, the
// rest as encoding/json writes it.
func render(t *testing.T, m *Map[value], d doc, at uint64, escapeHTML bool) []byte {
	t.Helper()
	b := []byte("{\n  \"items\": ")
	b, err := m.Append(b, d.Items, at)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := json.MarshalIndent(d.Other, "  ", "  ")
	return append(append(append(b, ",\n  \"other\": "...), other...), "\n}"...)
}

func want(t *testing.T, d doc, escapeHTML bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendIsEncodingJSONsOutput(t *testing.T) {
	for _, escapeHTML := range []bool{true, false} {
		m := New[value](1, escapeHTML)
		check := func(d doc) {
			t.Helper()
			got, w := render(t, m, d, m.Stamp(), escapeHTML), want(t, d, escapeHTML)
			if !bytes.Equal(got, w) {
				t.Fatalf("escapeHTML=%v: got\n%s\nwant\n%s", escapeHTML, got, w)
			}
		}
		check(doc{})
		check(doc{Items: map[string]value{}, Other: map[string]int{}})
		d := doc{Items: map[string]value{}, Other: map[string]int{"b": 2, "a": 1}}
		for i := range 30 {
			d.Items[fmt.Sprintf("k<%02d>&\u2028é", i)] = value{Name: fmt.Sprintf("a&b <%d>", i), N: i, Tags: []string{"x", "y"}, Head: map[string]string{"Z": "1", "A": "2"}}
		}
		d.Items["nested"] = value{Inner: &value{Name: "in", Tags: []string{}}}
		check(d)
		// A change is seen once Forget is called, and only then.
		v := d.Items["k<03>&\u2028é"]
		v.Name = "changed"
		d.Items["k<03>&\u2028é"] = v
		m.Forget("k<03>&\u2028é")
		delete(d.Items, "k<04>&\u2028é")
		m.Forget("k<04>&\u2028é")
		check(d)
	}
}

// An encoding made from a copy taken before a change is not kept for
// after it.
func TestAnOlderCopysEncodingIsNotReused(t *testing.T) {
	m := New[value](1, true)
	old := map[string]value{"a": {Name: "old"}}
	at := m.Stamp()
	m.Forget("a") // changed after the copy, before it was encoded
	if err := m.Fill(old, at); err != nil {
		t.Fatal(err)
	}
	cur := map[string]value{"a": {Name: "new"}}
	got, err := m.Append(nil, cur, m.Stamp())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`"new"`)) {
		t.Fatalf("got %s, want the new value", got)
	}
}

// A map with as many keys as the last one appended, but not the same,
// is written with its own keys, in order.
func TestAppendSeesOtherKeysOfTheSameCount(t *testing.T) {
	m := New[value](1, true)
	d := doc{Items: map[string]value{"a": {Name: "a"}, "c": {Name: "c"}}, Other: map[string]int{}}
	render(t, m, d, m.Stamp(), true)
	delete(d.Items, "c")
	m.Forget("c")
	d.Items["b"] = value{Name: "b"}
	m.Forget("b")
	if got, w := render(t, m, d, m.Stamp(), true), want(t, d, true); !bytes.Equal(got, w) {
		t.Fatalf("got\n%s\nwant\n%s", got, w)
	}
}
