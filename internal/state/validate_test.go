package state

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

const goodSum = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"

func decodeJSON(js string) (*State, error) {
	return Decode(fstest.MapFS{"state.json": {Data: []byte(js)}})
}

// Decode refuses what no run writes, naming the field and what to do.
func TestDecodeValidates(t *testing.T) {
	for _, tc := range []struct {
		name, js, field string
	}{
		{"short hash", `{"sources":{"s":{"status":"fresh","sha256":"a"}}}`, `sources["s"].sha256`},
		{"upper-case hash", `{"sources":{"s":{"status":"fresh","sha256":"` + strings.ToUpper(goodSum) + `"}}}`, `sources["s"].sha256`},
		{"unknown status", `{"sources":{"s":{"status":"ok"}}}`, `sources["s"].status`},
		{"empty status", `{"sources":{"s":{}}}`, `sources["s"].status`},
		{"bad since", `{"sources":{"s":{"status":"fresh","since":"yesterday"}}}`, `sources["s"].since`},
		{"negative size", `{"sources":{"s":{"status":"fresh","size":-1}}}`, `sources["s"].size`},
		{"bad http status", `{"sources":{"s":{"status":"failing","http_status":7}}}`, `sources["s"].http_status`},
		{"time in year 1", `{"sources":{"s":{"status":"fresh","last_good":"0001-01-02T00:00:00Z"}}}`, `sources["s"].last_good`},
		{"negative failures", `{"hosts":{"h":{"failures":-3}}}`, `hosts["h"].failures`},
		{"backoff in 9999", `{"hosts":{"h":{"backoff_until":"9999-01-01T00:00:00Z"}}}`, `hosts["h"].backoff_until`},
		{"unknown robots outcome", `{"robots":{"https://h":{"url":"https://h/robots.txt","outcome":"fine"}}}`, `robots["https://h"].outcome`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeJSON(tc.js)
			if err == nil {
				t.Fatalf("Decode(%s) = nil error", tc.js)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("error %v is not ErrCorrupt", err)
			}
			for _, want := range []string{"state.json", tc.field, "remove it"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// Every status and robots outcome a run writes decodes, unreachable
// included.
func TestDecodeAcceptsEveryKnownValue(t *testing.T) {
	for st := range knownStatus {
		js := `{"sources":{"s":{"status":"` + string(st) + `","since":"2026-11-30","sha256":"` + goodSum + `","last_check":"2026-11-30T10:00:00Z"}}}`
		if _, err := decodeJSON(js); err != nil {
			t.Errorf("status %s: %v", st, err)
		}
	}
	for _, o := range []RobotsOutcome{RobotsParsed, RobotsMissing, RobotsUnreadable, RobotsUnreached} {
		js := `{"robots":{"https://h":{"url":"https://h/robots.txt","outcome":"` + string(o) + `","fetched_at":"2026-11-30T10:00:00Z"}}}`
		if _, err := decodeJSON(js); err != nil {
			t.Errorf("robots outcome %s: %v", o, err)
		}
	}
}

// Load names the file by its path.
func TestLoadNamesTheFileOfABadField(t *testing.T) {
	dir := t.TempDir()
	s := New()
	s.PutSource("s", Source{Status: Fresh, SHA256: "a"})
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), dir+"/state.json: sources[\"s\"].sha256") {
		t.Fatalf("Load = %v; want the path and the field", err)
	}
}

// FuzzDecode: whatever state.json holds, Decode returns a State or an
// error, never panics, and what it accepts survives a round trip.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"sources":{"s":{"status":"fresh","since":"2026-11-30","sha256":"` + goodSum + `","size":1}},"hosts":{"h":{"failures":2,"backoff_until":"2026-11-30T10:00:00Z"}},"robots":{"https://h":{"url":"https://h/robots.txt","outcome":"parsed","fetched_at":"2026-11-30T10:00:00Z"}}}`))
	f.Add([]byte(`{"sources":{"s":{"status":"fresh","sha256":"a"}}}`))
	f.Add([]byte(`{"sources":{"a": `))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(fstest.MapFS{"state.json": {Data: b}})
		if err != nil {
			if s != nil {
				t.Fatal("Decode returned a State and an error")
			}
			return
		}
		files, err := s.Files()
		if err != nil {
			t.Fatalf("Files of a decoded state: %v", err)
		}
		fsys := fstest.MapFS{}
		for name, data := range files {
			fsys[name] = &fstest.MapFile{Data: data}
		}
		again, err := Decode(fsys)
		if err != nil {
			t.Fatalf("a decoded state does not decode again: %v\n%s", err, files["state.json"])
		}
		for _, id := range s.SourceIDs() {
			if s.Source(id).SHA256 != "" && !s.Source(id).SHA256.Valid() {
				t.Fatalf("accepted an invalid hash for %q", id)
			}
			if !reflect.DeepEqual(again.Source(id), s.Source(id)) {
				t.Fatalf("source %q changed in a round trip", id)
			}
		}
	})
}
