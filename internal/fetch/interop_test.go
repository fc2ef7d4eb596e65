package fetch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"

	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// TestInteropSignatures has requests that the fetcher really sent to a
// loopback server checked by two independent implementations from the npm
// registry: http-message-sig (RFC 9421) must accept every one, and
// Cloudflare's web-bot-auth every one in a form its published version
// reads (0.1.3 predates the Dictionary form of Signature-Agent, so it is
// only required to accept requests signed without a key directory).
func TestInteropSignatures(t *testing.T) {
	const needs = "{http-message-sig,web-bot-auth}"
	interoptest.Need(t, needs)
	key, err := sign.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	type seenReq struct {
		Name    string      `json:"name"`
		Form    string      `json:"form"`
		Method  string      `json:"method"`
		URL     string      `json:"url"`
		Headers [][2]string `json:"headers"`
	}
	var mu sync.Mutex
	var seen []seenReq
	form := ""
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		sr := seenReq{Name: form + " " + r.URL.Path, Form: form, Method: r.Method, URL: "http://" + r.Host + r.URL.RequestURI(),
			Headers: [][2]string{{"host", r.Host}}}
		for name, vals := range r.Header {
			for _, v := range vals {
				sr.Headers = append(sr.Headers, [2]string{strings.ToLower(name), v})
			}
		}
		mu.Lock()
		seen = append(seen, sr)
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		case "/old":
			http.Redirect(w, r, "/new?year=2026", http.StatusFound)
		default:
			w.Write([]byte("rates"))
		}
	})
	for _, f := range []struct{ name, dir string }{
		{"dictionary", "https://bot.example" + sign.WellKnownPath},
		{"no-agent", ""},
	} {
		s, err := sign.New(key, sign.Options{Directory: f.dir})
		if err != nil {
			t.Fatal(err)
		}
		form = f.name
		c := newClient(func(cfg *Config) { cfg.Sign = s.Sign })
		if _, _, err := c.GetBytes(t.Context(), Request{URL: srv.URL + "/robots.txt"}, 1<<10); err != nil {
			t.Fatal(err)
		}
		resp, err := c.Get(t.Context(), Request{URL: srv.URL + "/old"}, &hashSink{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(t.Context(), Request{URL: resp.Location, ETag: `"v1"`}, &hashSink{}); err != nil {
			t.Fatal(err)
		}
	}
	// A control the verifiers must refuse: a signed request replayed to
	// another host.
	replay := seen[len(seen)-1]
	replay.Name, replay.Form = "control: replayed to another host", "control"
	replay.URL = strings.Replace(replay.URL, "127.0.0.1", "localhost", 1)
	replay.Headers = append([][2]string{{"host", strings.Replace(replay.Headers[0][1], "127.0.0.1", "localhost", 1)}}, replay.Headers[1:]...)
	seen = append(seen, replay)
	in, err := json.Marshal(map[string]any{"jwk": sign.PrivateJWK(key), "requests": seen})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "requests.json")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		t.Fatal(err)
	}
	out := interoptest.Run(t, "verify-signatures.cjs", needs, file)
	results := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			Name, Form, Verifier, Error string
			OK                          bool
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("node output %q: %v", sc.Text(), err)
		}
		results++
		required := r.Verifier == "http-message-sig" || r.Form == "no-agent"
		switch {
		case r.Form == "control":
			if r.OK {
				t.Errorf("%s: %s accepts it", r.Name, r.Verifier)
			}
		case r.OK:
			t.Logf("%s: %s accepts", r.Name, r.Verifier)
		case required:
			t.Errorf("%s: %s refuses: %s", r.Name, r.Verifier, r.Error)
		default:
			t.Logf("%s: %s refuses (form not supported by its published version): %s", r.Name, r.Verifier, r.Error)
		}
	}
	if want := 2 * len(seen); results != want || len(seen) != 7 {
		t.Errorf("%d results for %d requests; want %d for 7", results, len(seen), want)
	}
}
