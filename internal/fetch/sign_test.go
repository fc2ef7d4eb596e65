package fetch

import (
	"crypto/ed25519"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// TestEveryRequestSigned: robots.txt, a document and a redirect hop each
// reach the server with a signature of their own that a verifier accepts.
func TestEveryRequestSigned(t *testing.T) {
	key, err := sign.ParseKey(strings.Repeat("42", 32))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := sign.New(key, sign.Options{Directory: "https://bot.example" + sign.WellKnownPath})
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	var mu sync.Mutex
	seen := map[string]string{} // path → verification outcome
	nonces := map[string]bool{}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		v, err := sign.Verify(r, func(kid string) (ed25519.PublicKey, bool) { return pub, kid == signer.KeyID() }, time.Now())
		mu.Lock()
		if err != nil {
			seen[r.URL.Path] = err.Error()
		} else {
			seen[r.URL.Path] = "ok " + v.Agent
		}
		nonces[r.Header.Get("Signature-Input")] = true
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		case "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		default:
			w.Write([]byte("rates"))
		}
	})
	c := newClient(func(cfg *Config) { cfg.Sign = signer.Sign })
	if _, _, err := c.GetBytes(t.Context(), Request{URL: srv.URL + "/robots.txt"}, 1<<10); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(t.Context(), Request{URL: srv.URL + "/old"}, &hashSink{})
	if err != nil || resp.Status != http.StatusMovedPermanently {
		t.Fatalf("redirect: %v %+v", err, resp)
	}
	if _, err := c.Get(t.Context(), Request{URL: resp.Location}, &hashSink{}); err != nil {
		t.Fatal(err)
	}
	want := `ok "https://bot.example/.well-known/http-message-signatures-directory"`
	for _, p := range []string{"/robots.txt", "/old", "/new"} {
		if seen[p] != want {
			t.Errorf("%s: %s, want %s", p, seen[p], want)
		}
	}
	if len(nonces) != 3 {
		t.Errorf("%d distinct Signature-Input values for 3 requests; each needs its own nonce", len(nonces))
	}
}

// TestSignFailureSendsNothing: a request that cannot be signed is not sent
// unsigned.
func TestSignFailureSendsNothing(t *testing.T) {
	hits := 0
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { hits++ })
	boom := errors.New("no entropy")
	c := newClient(func(cfg *Config) { cfg.Sign = func(*http.Request) error { return boom } })
	if _, err := c.Get(t.Context(), Request{URL: srv.URL + "/a"}, &hashSink{}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the signing error", err)
	}
	if hits != 0 {
		t.Errorf("server saw %d request(s)", hits)
	}
}
