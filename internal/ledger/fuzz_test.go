package ledger

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzRead feeds arbitrary bytes to the reader as a ledger file, as a crash,
// a hand edit or a bad merge might leave one: reading never panics, counts
// agree with the lines read, and an Append after it always leaves a file
// whose last line is the appended one, whole.
func FuzzRead(f *testing.F) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	line := func(ev string) []byte {
		b, _ := json.Marshal(Line{Event: ev, Time: at, Host: "x.example", URL: "https://x.example/"})
		return append(b, '\n')
	}
	f.Add(line(Dispatch))
	f.Add(append(line(Dispatch), line(Result)...))
	f.Add(append(line(Dispatch), `{"event":"resu`...)) // torn by a kill
	f.Add([]byte("not json\n"))
	f.Add([]byte(`{"event":"dispatch","host":"other.example"}` + "\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		day := "2026-11-30"
		path := filepath.Join(dir, day, FileName("x.example"))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		lines, rerr := l.Read(day, "x.example")
		n, derr := l.Dispatches(day, "x.example")
		if (rerr == nil) != (derr == nil) && rerr == nil {
			t.Fatalf("Read read the file, Dispatches failed: %v", derr)
		}
		if rerr == nil {
			want := 0
			for _, v := range lines {
				if v.Event == Dispatch {
					want++
				}
			}
			if n != want {
				t.Fatalf("Dispatches = %d, Read has %d dispatch lines", n, want)
			}
		}
		next := Line{Event: Dispatch, Time: at.Add(time.Second), Host: "x.example", URL: "https://x.example/next"}
		if err := l.Append(next); err != nil {
			t.Fatalf("Append after arbitrary content: %v", err)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(next)
		want = append(want, '\n')
		if !bytes.HasSuffix(after, want) {
			t.Fatalf("file does not end with the appended line:\n%q", after)
		}
		if prefix := after[:len(after)-len(want)]; len(prefix) > 0 && prefix[len(prefix)-1] != '\n' {
			t.Fatalf("the appended line was glued to a torn one:\n%q", after)
		}
		if rerr == nil {
			again, err := l.Read(day, "x.example")
			if err != nil || len(again) != len(lines)+1 {
				t.Fatalf("after Append: %d lines (%v), want %d", len(again), err, len(lines)+1)
			}
		}
	})
}
