package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
)

// evilNames are a certificate's DNS names: Go's hostname error quotes
// them as they are, newline and escape sequences included.
var evilNames = []string{"evil.example\n::add-mask::cert \x1b[2J\x1b[31m", "x ##[add-mask]fetch @octocat ![i](https://evil.example/i.png)"}

// TestHostileCertificateNames: a server whose certificate, signed by a CA
// the run trusts, names hosts with newlines, workflow commands and
// terminal escapes. The run's log has no command and no control byte, and
// the report shows the names inert. The run is a child process, which
// alone can trust the test's CA (SSL_CERT_FILE is read once per process).
func TestHostileCertificateNames(t *testing.T) {
	if os.Getenv("TAXKERNELBOT_CERT_CHILD") != "" {
		t.Skip("the child's half runs in TestHostileCertificateNamesChild")
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	must(t, err)
	ca, err := x509.ParseCertificate(caDER)
	must(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	leafDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), DNSNames: evilNames,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}, ca, &key.PublicKey, caKey)
	must(t, err)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "x") }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	must(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644))

	// localhost: an IP would be checked against IP SANs, not the names.
	u := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/rates"
	w := newWorkspace(t, testPolicy, "", src{"test-rates", u, ""})
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileCertificateNamesChild$")
	cmd.Env = append(os.Environ(), "TAXKERNELBOT_CERT_CHILD=1", "SSL_CERT_FILE="+caFile, "SSL_CERT_DIR="+t.TempDir(), "GITHUB_ACTIONS=true",
		"TAXKERNELBOT_CERT_ARGS="+strings.Join([]string{"run", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State}, "\n"))
	out, err := cmd.CombinedOutput()
	if testing.Verbose() {
		t.Logf("child (%v):\n%s", err, out)
	}
	log := string(out)
	if !strings.Contains(log, "certificate is valid for evil.example") {
		t.Fatalf("the run did not fail on the certificate's names:\n%s", log)
	}
	for _, l := range escapetest.Commands(log) {
		t.Errorf("a runner would execute %q", l)
	}
	if c := escapetest.Controls(log); len(c) > 0 {
		t.Errorf("control characters in the run's log: %q", c)
	}
	host := strings.TrimPrefix(strings.TrimSuffix(u, "/rates"), "https://")
	_, ledgerOut, ledgerErr := runMain(t, map[string]string{"GITHUB_ACTIONS": "true"}, "ledger", host, "--state", w.State)
	md, err := os.ReadFile(filepath.Join(w.Reports, "coverage.md"))
	must(t, err)
	for name, text := range map[string]string{"ledger": ledgerOut + ledgerErr, "coverage.md": string(md)} {
		if !strings.Contains(text, "evil.example") {
			t.Errorf("%s does not show the names:\n%s", name, text)
		}
		for _, l := range escapetest.Commands(text) {
			t.Errorf("%s: a runner would execute %q", name, l)
		}
		if c := escapetest.Controls(text); len(c) > 0 {
			t.Errorf("%s: control characters %q", name, c)
		}
	}
	if live := escapetest.Live(string(md), escapetest.Options{Link: func(d string) bool { return strings.HasPrefix(d, "https://localhost:") }}); len(live) > 0 {
		t.Errorf("coverage.md: live Markdown %q", live)
	}
}

// TestHostileCertificateNamesChild is the run of TestHostileCertificateNames,
// in a process that trusts the test's CA.
func TestHostileCertificateNamesChild(t *testing.T) {
	args := os.Getenv("TAXKERNELBOT_CERT_ARGS")
	if os.Getenv("TAXKERNELBOT_CERT_CHILD") == "" || args == "" {
		t.Skip("run by TestHostileCertificateNames")
	}
	Main(ctx, strings.Split(args, "\n"), IO{Out: os.Stdout, Err: os.Stdout, Getenv: os.Getenv})
}
