package ledger

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A scripted ledger: A served, then 304s, then B, a 304 (of B), a bot
// challenge that carried other bytes, A again. The checks that found A
// are its 200s and the 304s while A was held; a 304 before any 200 in the
// ledgers asks the index.
func TestConfirmations(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	add := func(d int, host string, status int, sum, notDoc, purpose string) {
		t.Helper()
		for _, ev := range []string{Dispatch, Result} {
			line := Line{Event: ev, Time: day(d), Host: host, URL: "https://" + host + "/x", Purpose: purpose, Source: "s"}
			if ev == Result {
				line.Status, line.SHA256, line.NotDocument = status, sum, notDoc
			}
			if err := l.Append(line); err != nil {
				t.Fatal(err)
			}
		}
	}
	add(1, "old.example", 304, "", "", PurposeDocument) // before any 200: the index held A
	add(2, "new.example", 200, a, "", PurposeDocument)
	add(3, "new.example", 304, "", "", PurposeDocument)
	add(4, "new.example", 200, a, "", PurposeRedirect)
	add(4, "new.example", 200, c, "", PurposeRobots)
	add(5, "new.example", 200, b, "", PurposeDocument)
	add(6, "new.example", 304, "", "", PurposeDocument)
	add(7, "new.example", 200, c, "bot challenge", PurposeDocument)
	add(8, "new.example", 304, "", "", PurposeDocument) // still B
	add(9, "new.example", 503, "", "", PurposeDocument)
	add(10, "new.example", 200, a, "", PurposeDocument)
	add(10, "other.example", 200, a, "", PurposeDocument)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	heldAt := func(at time.Time) string {
		if at.Before(day(5)) {
			return a
		}
		return b
	}
	got, err := Confirmations(dir, "s", a, heldAt)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{day(1), day(2), day(3), day(4), day(10), day(10)}
	if !slices.Equal(got, want) {
		t.Errorf("confirmations of A: %v, want %v", got, want)
	}
	got, _ = Confirmations(dir, "s", b, heldAt)
	if want := []time.Time{day(5), day(6), day(8)}; !slices.Equal(got, want) {
		t.Errorf("confirmations of B: %v, want %v", got, want)
	}
	if got, _ := Confirmations(t.TempDir(), "s", a, heldAt); len(got) != 0 {
		t.Errorf("no ledgers: %v", got)
	}
}
