package ledger

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A corrupt line's error keeps the JSON error for errors.As, and an error
// of the caller's own comes back as it is, not as a corrupt line.
func TestScanAllErrorsUnwrap(t *testing.T) {
	l := open(t)
	dir := l.Dir()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	if err := l.Append(Line{Event: Result, Time: at, Host: "x.example", URL: "https://x.example/a", Status: 200}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	stop := errors.New("enough")
	err := ScanAll(dir, func(Line) error { return stop })
	if !errors.Is(err, stop) || strings.Contains(err.Error(), "corrupt") {
		t.Errorf("ScanAll with a callback error = %v; want the callback's error as it is", err)
	}
	p := filepath.Join(dir, Day(at), FileName("x.example"))
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json\n")
	f.Close()
	err = ScanAll(dir, func(Line) error { return nil })
	var syn *json.SyntaxError
	if !errors.As(err, &syn) || !strings.Contains(err.Error(), "corrupt ledger line") {
		t.Errorf("ScanAll over a corrupt line = %v; want a corrupt-line error wrapping the *json.SyntaxError", err)
	}
}
