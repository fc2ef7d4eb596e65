package demo

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// keyDirectory is the bot's public page, serving its key directory.
type keyDirectory struct {
	srv *httptest.Server
	url string
}

// ServeKeyDirectory serves the key directory file at
// /.well-known/http-message-signatures-directory of a server of its own,
// as the bot's public page would, and names it in the policy that
// WriteManifests writes. It returns the directory's URL.
func (a *Authorities) ServeKeyDirectory(file string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != sign.WellKnownPath {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(file)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", sign.DirectoryMediaType)
		w.Write(data)
	}))
	a.keys = &keyDirectory{srv: srv, url: srv.URL + sign.WellKnownPath}
	return a.keys.url
}

// signatureChecks verifies every request the authorities receive as a site
// operator would: it fetches the key directory that Signature-Agent names
// (once per URL), takes the key whose thumbprint is the keyid, and checks
// the signature.
type signatureChecks struct {
	mu       sync.Mutex
	dirs     map[string]sign.Directory
	verified int
	unsigned int
	failed   []string
	example  string
}

func (s *signatureChecks) check(r *http.Request) {
	_, err := s.verify(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err == sign.ErrUnsigned:
		s.unsigned++
	case err != nil:
		s.failed = append(s.failed, r.URL.Path+": "+err.Error())
	default:
		s.verified++
		if s.example == "" {
			var b strings.Builder
			fmt.Fprintf(&b, "%s %s HTTP/1.1\nHost: %s\n", r.Method, r.URL.RequestURI(), r.Host)
			for _, h := range []string{"User-Agent", "From", "Signature-Agent", "Signature-Input", "Signature"} {
				fmt.Fprintf(&b, "%s: %s\n", h, r.Header.Get(h))
			}
			s.example = b.String()
		}
	}
}

func (s *signatureChecks) verify(r *http.Request) (sign.Verified, error) {
	if r.Header.Get("Signature-Input") == "" {
		return sign.Verified{}, sign.ErrUnsigned
	}
	agents, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature-Agent"))
	if err != nil {
		return sign.Verified{}, fmt.Errorf("Signature-Agent: %w", err)
	}
	dir := sign.Directory{}
	for _, name := range agents.Names() {
		m, _ := agents.Get(name)
		it, ok := m.(httpsfv.Item)
		u, isString := it.Value.(string)
		if !ok || !isString {
			continue
		}
		d, err := s.directory(u)
		if err != nil {
			return sign.Verified{}, err
		}
		dir.Keys = append(dir.Keys, d.Keys...)
	}
	now := time.Now()
	return sign.Verify(r, func(kid string) (ed25519.PublicKey, bool) { return dir.Lookup(kid, now) }, now)
}

// directory fetches (once) the key directory at u.
func (s *signatureChecks) directory(u string) (sign.Directory, error) {
	s.mu.Lock()
	d, ok := s.dirs[u]
	s.mu.Unlock()
	if ok {
		return d, nil
	}
	resp, err := http.Get(u)
	if err != nil {
		return d, fmt.Errorf("key directory %s: %w", u, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return d, fmt.Errorf("key directory %s: status %d, body: %w", u, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK {
		return d, fmt.Errorf("key directory %s: status %d, want 200", u, resp.StatusCode)
	}
	if d, err = sign.ParseDirectory(data); err != nil {
		return d, err
	}
	s.mu.Lock()
	if s.dirs == nil {
		s.dirs = map[string]sign.Directory{}
	}
	s.dirs[u] = d
	s.mu.Unlock()
	return d, nil
}

// Signatures says what the servers' signature checks found, with one
// verified request's headers.
func (a *Authorities) Signatures() string {
	s := &a.checks
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	total := s.verified + s.unsigned + len(s.failed)
	fmt.Fprintf(&b, "%d of %d requests carried a Web Bot Auth signature that the servers verified against the key directory", s.verified, total)
	if a.keys != nil {
		fmt.Fprintf(&b, " at %s", a.keys.url)
	}
	fmt.Fprintf(&b, "; %d unsigned, %d refused.\n", s.unsigned, len(s.failed))
	for _, f := range s.failed {
		fmt.Fprintf(&b, "  refused: %s\n", f)
	}
	if s.example != "" {
		fmt.Fprintf(&b, "One of them, as the server received it:\n%s", s.example)
	}
	return b.String()
}
