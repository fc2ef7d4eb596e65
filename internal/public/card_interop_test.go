package public_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/sign"
)

// TestInteropAgentCard has independent implementations from the npm
// registry read the repository's card as a verifier would: the draft's
// types, every inline key's thumbprint its kid (jsonwebkey-thumbprint),
// the keys the directory's, and signed requests verified
// (http-message-sig, web-bot-auth) with keys found in the card alone. A
// card left behind by a rotation is the control: its keys differ from
// the directory's and the new key's requests do not verify against it.
// It runs when TAXKERNELBOT_NPM_DIR names a folder with the packages
// (.ci/interop.sh sets it up) and skips otherwise.
func TestInteropAgentCard(t *testing.T) {
	const needs = "{http-message-sig,web-bot-auth}"
	interoptest.Need(t, needs)
	oldKey, err := sign.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	curKey, err := sign.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := sign.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	// The verifiers judge nbf and exp by their own clock: the directory
	// is dated from now.
	now := time.Now()
	before := sign.Rotate(sign.Directory{}, sign.PrivateJWK(oldKey), now.Add(-48*time.Hour), 7*24*time.Hour)
	dir := sign.Rotate(before, sign.PrivateJWK(curKey), now.Add(-time.Hour), 7*24*time.Hour)

	set := loadSet(t, "../../manifests")
	const url = "https://taxkernel.com/.well-known/signature-agent-card.json"
	type named struct {
		Name string `json:"name"`
		Card any    `json:"card"`
	}
	var cards []named
	for name, keys := range map[string]sign.Directory{"ours": dir, "stale": before} {
		data, err := public.AgentCard(set, url, keys).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		cards = append(cards, named{name, doc})
	}

	type request struct {
		Name    string      `json:"name"`
		Form    string      `json:"form"`
		Method  string      `json:"method"`
		URL     string      `json:"url"`
		Headers [][2]string `json:"headers"`
	}
	var requests []request
	for _, r := range []struct {
		name, form, directory string
		key                   []byte
	}{
		{"current key", "dictionary", "https://taxkernel.com" + sign.WellKnownPath, curKey},
		{"current key", "no-agent", "", curKey},
		{"rotated-out key", "no-agent", "", oldKey},
		{"a stranger's key", "control", "", stranger},
	} {
		s, err := sign.New(r.key, sign.Options{Directory: r.directory})
		if err != nil {
			t.Fatal(err)
		}
		u := set.Sources[0].URL
		hr, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Sign(hr); err != nil {
			t.Fatal(err)
		}
		req := request{Name: r.name + " (" + r.form + ")", Form: r.form, Method: hr.Method, URL: u, Headers: [][2]string{{"host", hr.Host}}}
		for name, vals := range hr.Header {
			for _, v := range vals {
				req.Headers = append(req.Headers, [2]string{strings.ToLower(name), v})
			}
		}
		requests = append(requests, req)
	}
	var dirDoc any
	dirJSON, err := dir.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(dirJSON, &dirDoc); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(map[string]any{"directory": dirDoc, "cards": cards, "requests": requests})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "input.json")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		t.Fatal(err)
	}

	out := interoptest.Run(t, "verify-card.cjs", needs, file)
	checks, verdicts := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			Card, Check, Request, Form, Verifier, Error string
			OK                                          bool
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("node output %q: %v", sc.Text(), err)
		}
		if r.Check != "" {
			checks++
			// The stale card is a card all the same; only its keys are
			// not the directory's.
			want := r.Card == "ours" || r.Check != "directory"
			if r.OK != want {
				t.Errorf("card %s, check %s: ok %v, want %v (%s)", r.Card, r.Check, r.OK, want, r.Error)
			}
			continue
		}
		verdicts++
		switch {
		case r.Form == "control", r.Card == "stale" && strings.HasPrefix(r.Request, "current key"):
			if r.OK {
				t.Errorf("card %s, %s: %s accepts it", r.Card, r.Request, r.Verifier)
			}
		case r.OK:
			t.Logf("card %s, %s: %s accepts", r.Card, r.Request, r.Verifier)
		case r.Verifier == "http-message-sig" || r.Form == "no-agent":
			t.Errorf("card %s, %s: %s refuses: %s", r.Card, r.Request, r.Verifier, r.Error)
		default:
			// web-bot-auth 0.1.3 predates the Dictionary form of
			// Signature-Agent.
			t.Logf("card %s, %s: %s refuses (form not supported by its published version): %s", r.Card, r.Request, r.Verifier, r.Error)
		}
	}
	if checks != 3*len(cards) || verdicts != 2*len(cards)*len(requests) {
		t.Errorf("%d checks and %d verdicts; want %d and %d", checks, verdicts, 3*len(cards), 2*len(cards)*len(requests))
	}
}
