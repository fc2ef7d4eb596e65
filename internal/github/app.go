package github

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// RefreshBefore is how long before its expiry an installation token is
// replaced: longer than any one request the bot makes (a push of a big day
// included), so no request ever carries a token that expires on the way.
const RefreshBefore = 10 * time.Minute

// AppTokens mints installation tokens of a GitHub App for one repository,
// itself, from the App's id and private key: an installation token lives
// an hour and cannot be renewed, and a run may last longer, so each is
// replaced RefreshBefore its expiry, for the REST API and git alike. Safe
// for concurrent use.
type AppTokens struct {
	appID             string
	key               *rsa.PrivateKey
	api, owner, repo  string
	http              *http.Client
	clock             clock.Clock
	mu                sync.Mutex
	installation      int64
	token             string
	expires, issuedAt time.Time
}

// ParseAppKey reads an App's private key as GitHub hands it out (PEM,
// PKCS#1 "RSA PRIVATE KEY"; PKCS#8 is taken too).
func ParseAppKey(pemData []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(bytes.TrimSpace(pemData))
	if block == nil {
		return nil, errors.New("TAXKERNELBOT_APP_PRIVATE_KEY is not a PEM key: paste the whole .pem file GitHub gave for the App, BEGIN and END lines included")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("TAXKERNELBOT_APP_PRIVATE_KEY: %w", err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("TAXKERNELBOT_APP_PRIVATE_KEY is not an RSA key: GitHub Apps sign with RSA")
	}
	return rk, nil
}

// NewAppTokens returns the token source of App appID (key: its private
// key) for c's repository. httpClient may be nil.
func NewAppTokens(c Config, key *rsa.PrivateKey, httpClient *http.Client, clk clock.Clock) *AppTokens {
	if httpClient == nil {
		httpClient = &http.Client{Timeout: time.Minute}
	}
	if clk == nil {
		clk = clock.Real{}
	}
	api := c.APIURL
	if api == "" {
		api = DefaultAPIURL
	}
	return &AppTokens{appID: c.AppID, key: key, api: api, owner: c.Owner, repo: c.Repo, http: httpClient, clock: clk}
}

// Token returns an installation token with more than RefreshBefore left,
// minting one when the last is older.
func (a *AppTokens) Token(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clock.Now()
	if a.token != "" && now.Before(a.expires.Add(-RefreshBefore)) {
		return a.token, nil
	}
	if a.installation == 0 {
		var inst struct {
			ID int64 `json:"id"`
		}
		if err := a.call(ctx, http.MethodGet, fmt.Sprintf("/repos/%s/%s/installation", a.owner, a.repo), nil, http.StatusOK, &inst); err != nil {
			return "", fmt.Errorf("github: find the App's installation on %s/%s: %w (install the App on the repository)", a.owner, a.repo, err)
		}
		a.installation = inst.ID
	}
	var tok struct {
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	body := map[string]any{"repositories": []string{a.repo}}
	if err := a.call(ctx, http.MethodPost, fmt.Sprintf("/app/installations/%d/access_tokens", a.installation), body, http.StatusCreated, &tok); err != nil {
		return "", fmt.Errorf("github: mint an installation token for %s/%s: %w", a.owner, a.repo, err)
	}
	if tok.Token == "" || !tok.ExpiresAt.After(now) {
		return "", fmt.Errorf("github: the installation token GitHub gave expires at %s, before now", tok.ExpiresAt)
	}
	a.token, a.expires, a.issuedAt = tok.Token, tok.ExpiresAt, now
	return a.token, nil
}

// call makes one App-authenticated request and decodes its answer.
func (a *AppTokens) call(ctx context.Context, method, path string, body any, want int, out any) error {
	jwt, err := a.jwt(a.clock.Now())
	if err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.api+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+jwt)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", UserAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		var msg struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &msg)
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized {
			hint = " (check TAXKERNELBOT_APP_ID and TAXKERNELBOT_APP_PRIVATE_KEY: the key must be the App's, and the runner's clock right)"
		}
		return fmt.Errorf("%s %s: HTTP %d %s%s", method, path, resp.StatusCode, strconv.Quote(msg.Message), hint)
	}
	return json.Unmarshal(data, out)
}

// jwt is the App's own token, RS256-signed: issued a minute in the past
// (GitHub's advice, against clock drift), valid 9 minutes (at most 10).
func (a *AppTokens) jwt(now time.Time) (string, error) {
	enc := base64.RawURLEncoding
	header := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))
	claims, err := json.Marshal(map[string]any{"iat": now.Add(-time.Minute).Unix(), "exp": now.Add(9 * time.Minute).Unix(), "iss": a.appID})
	if err != nil {
		return "", err
	}
	signing := header + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, a.key, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return signing + "." + enc.EncodeToString(sig), nil
}

// bearer sets each request's Authorization from the current token.
type bearer struct {
	tokens interface {
		Token(context.Context) (string, error)
	}
	base http.RoundTripper
}

func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := b.tokens.Token(req.Context())
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return b.base.RoundTrip(r)
}
