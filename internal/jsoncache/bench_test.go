package jsoncache

import (
	"fmt"
	"testing"
)

// BenchmarkAppend is a save at the end of a run: 1,000 entries, every
// one encoded already while the run waited.
//
//	go test -run '^$' -bench Append -benchmem ./internal/jsoncache
func BenchmarkAppend(b *testing.B) {
	m := New[value](1, true)
	src := make(map[string]value, 1000)
	for i := range 1000 {
		src[fmt.Sprintf("j%02d-source-%06d", i%50, i)] = value{Name: fmt.Sprintf("a source & its <title> %d", i), N: i, Tags: []string{"x", "y"}}
	}
	at := m.Stamp()
	if err := m.Fill(src, at); err != nil {
		b.Fatal(err)
	}
	var out []byte
	for b.Loop() {
		var err error
		if out, err = m.Append(nil, src, at); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(out)))
}
