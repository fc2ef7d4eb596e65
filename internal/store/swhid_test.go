package store

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A blob's SWHID is what git names the same bytes: held to
// `git hash-object`, the independent implementation, on chosen and
// random contents.
func TestSWHIDIsGitsBlobID(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := rand.New(rand.NewPCG(39, 5))
	contents := [][]byte{nil, []byte("hello\n"), []byte("%PDF-1.7\n\x00\xff binary"), bytes.Repeat([]byte("rates "), 100_000)}
	for range 20 {
		b := make([]byte, r.IntN(5000))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		contents = append(contents, b)
	}
	s := openStore(t)
	for _, data := range contents {
		cmd := exec.Command("git", "hash-object", "--stdin")
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want := "swh:1:cnt:" + strings.TrimSpace(string(out))
		if got := SWHIDOf(data); got != want {
			t.Errorf("SWHIDOf(%d bytes) = %s, git says %s", len(data), got, want)
		}
		sum := mustPut(t, s, data)
		if got, err := s.SWHID(sum); err != nil || got != want {
			t.Errorf("Store.SWHID(%d bytes) = %s, %v; git says %s", len(data), got, err, want)
		}
	}
	if want := "swh:1:cnt:e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"; SWHIDOf(nil) != want {
		t.Errorf("the empty blob is %s, want %s", SWHIDOf(nil), want)
	}
}

// A corrupt blob has no SWHID, and verify names an index entry whose
// SWHID is not its bytes'.
func TestSWHIDOfCorruptBlobAndVerify(t *testing.T) {
	s := openStore(t)
	sum := mustPut(t, s, []byte("income tax rates 2026"))
	ix := NewIndex()
	ix.Add("uk-rates", Entry{SHA256: sum, Size: 21, FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-12-07", SWHID: SWHIDOf([]byte("income tax rates 2026"))}, "")
	if probs, err := s.Verify(t.Context(), ix); err != nil || len(probs) != 0 {
		t.Fatalf("verify of a sound store: %v, %v", probs, err)
	}
	other := NewIndex()
	other.Add("uk-rates", Entry{SHA256: sum, Size: 21, FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-12-07", SWHID: SWHIDOf([]byte("something else"))}, "")
	probs, err := s.Verify(t.Context(), other)
	if err != nil || len(probs) != 1 || !strings.Contains(probs[0].Message, "uk-rates: the index gives its SWHID as "+SWHIDOf([]byte("something else"))) {
		t.Errorf("verify of a wrong SWHID: %v, %v", probs, err)
	}
	p := s.Path(sum)
	must(t, os.Chmod(p, 0o644))
	must(t, os.WriteFile(p, []byte("income tax rates 2027"), 0o644))
	if _, err := s.SWHID(sum); !errors.Is(err, ErrCorrupt) {
		t.Errorf("SWHID of a corrupt blob: %v, want ErrCorrupt", err)
	}
}
