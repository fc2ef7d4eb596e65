package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes as policy.yaml and as a manifest. Load must
// never panic, every diagnostic must name its file, and a returned Set must
// only hold complete sources.
func FuzzLoad(f *testing.F) {
	for _, dir := range []string{"good", "host-conflict", "bad-policy", "bad-override", "alias", "malformed"} {
		pol, _ := os.ReadFile(filepath.Join("testdata", dir, "policy.yaml"))
		man, err := os.ReadFile(filepath.Join("testdata", dir, "uk.yaml"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(pol, man)
	}
	f.Add([]byte("a: &a [*a]"), []byte("jurisdiction: uk\nsources: &s [*s]\nhosts: {x: &h {robots_override: *h}}"))
	f.Add([]byte("{"), []byte("- - - [\n"))
	f.Add([]byte("exclude: [{host: '', path: ''}]"), []byte("jurisdiction: uk\nname: x\ntimezone: '../../etc/passwd'\nsources: [{id: a, url: 'http://[::1', kind: gazette, title: t}]"))

	f.Fuzz(func(t *testing.T, pol, man []byte) {
		set, diags := check("fuzz", []input{{path: "fuzz/policy.yaml", data: pol}, {path: "fuzz/uk.yaml", data: man}}, nil)
		for _, d := range diags {
			if d.File == "" || d.Line < 0 || d.Message == "" {
				t.Errorf("diagnostic without a place or a message: %#v", d)
			}
		}
		if set == nil {
			if !diags.HasErrors() {
				t.Errorf("no Set and no error")
			}
			return
		}
		if diags.HasErrors() {
			t.Errorf("a Set despite errors: %v", diags)
		}
		for _, s := range set.Sources {
			if s.ID == "" || s.URL == "" || s.Parsed == nil || s.Host == "" || s.Kind == "" || s.Title == "" || s.Jurisdiction != "uk" {
				t.Errorf("incomplete source in a valid Set: %+v", s)
			}
			if _, ok := set.Hosts[s.Host]; !ok {
				t.Errorf("source %s: host %s has no settings", s.ID, s.Host)
			}
		}
	})
}
