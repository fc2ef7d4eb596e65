package blobstest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// WeedEnv names the SeaweedFS binary the S3 tests run; without it, weed
// is looked for on PATH.
const WeedEnv = "TAXKERNELBOT_WEED"

// Weed is a real S3-compatible server, SeaweedFS, run on loopback for the
// duration of a test: what the S3 backend is tested against.
type Weed struct {
	Endpoint string // http://127.0.0.1:<port>
	// EndpointTLS is the same server over https, its certificate trusted
	// by TLSConfig: where a PUT is not signed chunk by chunk, as a real
	// service is reached.
	EndpointTLS string
	TLSConfig   *tls.Config
	AccessKey   string
	SecretKey   string
	client      *minio.Client
	mu          sync.Mutex
	buckets     int
}

// StartWeed starts SeaweedFS (master, volume, filer and S3 gateway in one
// process) in a temporary directory, on free loopback ports, with one S3
// identity, and stops it when t ends. Without a weed binary the test is
// skipped, saying how to get one; in CI (CI=true), where .ci/run builds
// one, and whenever TAXKERNELBOT_WEED names one that does not start, the
// test fails instead.
func StartWeed(t testing.TB) *Weed {
	t.Helper()
	bin := os.Getenv(WeedEnv)
	if bin == "" {
		if p, err := exec.LookPath("weed"); err == nil {
			bin = p
		}
	}
	if bin == "" {
		const how = "no SeaweedFS binary: set " + WeedEnv + " to one, or put weed on PATH; .ci/run builds it from the Go module proxy (see docs/testing.md)"
		if os.Getenv("CI") == "true" {
			t.Fatal(how + "; in CI the S3 tests must run")
		}
		t.Skip(how)
	}
	dir := t.TempDir()
	w := &Weed{AccessKey: "taxkernelbot-test", SecretKey: randomHex(t, 20)}
	identities := map[string]any{"identities": []any{map[string]any{
		"name":        "taxkernelbot",
		"credentials": []any{map[string]string{"accessKey": w.AccessKey, "secretKey": w.SecretKey}},
		"actions":     []string{"Admin", "Read", "Write", "List", "Tagging"},
	}}}
	config := filepath.Join(dir, "s3.json")
	data, _ := json.Marshal(identities)
	if err := os.WriteFile(config, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 9)
	s3Port := ports[6]
	w.Endpoint = "http://127.0.0.1:" + strconv.Itoa(s3Port)
	w.EndpointTLS = "https://127.0.0.1:" + strconv.Itoa(ports[8])
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	w.TLSConfig = selfSigned(t, certFile, keyFile)
	args := []string{"server",
		"-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=" + dir,
		"-master.port=" + strconv.Itoa(ports[0]), "-master.port.grpc=" + strconv.Itoa(ports[1]),
		"-volume.port=" + strconv.Itoa(ports[2]), "-volume.port.grpc=" + strconv.Itoa(ports[3]),
		"-filer.port=" + strconv.Itoa(ports[4]), "-filer.port.grpc=" + strconv.Itoa(ports[5]),
		"-s3", "-s3.port=" + strconv.Itoa(s3Port), "-s3.port.grpc=" + strconv.Itoa(ports[7]),
		"-s3.port.https=" + strconv.Itoa(ports[8]), "-s3.cert.file=" + certFile, "-s3.key.file=" + keyFile,
		"-s3.port.iceberg=0", "-s3.config=" + config,
		"-master.volumeSizeLimitMB=16", "-volume.max=500",
	}
	log := &syncWriter{}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s=%s does not start: %v", WeedEnv, bin, err)
	}
	// exited is closed once weed has exited, waitErr then says how.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	// Killed, not asked to stop: its data is thrown away with the test's
	// directory, and asked, it takes ten seconds to stop.
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	c, err := minio.New("127.0.0.1:"+strconv.Itoa(s3Port), &minio.Options{
		Creds: credentials.NewStaticV4(w.AccessKey, w.SecretKey, ""), Region: "us-east-1",
	})
	if err != nil {
		t.Fatal(err)
	}
	w.client = c
	// Up means a bucket can be made and an object written to it: the S3
	// gateway answers before the volume server has registered.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var last error
	for {
		if last = w.probe(ctx); last == nil {
			return w
		}
		select {
		case <-exited:
			t.Fatalf("%s (%s) exited before answering: %v\n%s", WeedEnv, bin, waitErr, log.String())
		case <-ctx.Done():
			t.Fatalf("%s (%s) did not answer S3 on %s within 90s: %v\n%s", WeedEnv, bin, w.Endpoint, last, log.String())
		case <-clock.Real{}.After(200 * time.Millisecond):
		}
	}
}

func (w *Weed) probe(ctx context.Context) error {
	// A PUT sent before the volume server has registered waits rather
	// than fails: each probe is short, so the first one after it is up
	// answers.
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if ok, err := w.client.BucketExists(ctx, "probe"); err != nil {
		return err
	} else if !ok {
		if err := w.client.MakeBucket(ctx, "probe", minio.MakeBucketOptions{}); err != nil {
			return err
		}
	}
	_, err := w.client.PutObject(ctx, "probe", "up", bytes.NewReader([]byte("up")), 2, minio.PutObjectOptions{})
	return err
}

// NewBucket makes an empty bucket and returns its name.
func (w *Weed) NewBucket(t testing.TB) string {
	t.Helper()
	w.mu.Lock()
	w.buckets++
	name := fmt.Sprintf("test-%d", w.buckets)
	w.mu.Unlock()
	if err := w.client.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket %s: %v", name, err)
	}
	return name
}

// Client is an S3 client with the server's identity, for doing things
// behind a backend's back.
func (w *Weed) Client() *minio.Client { return w.client }

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// a client configuration that trusts it.
func selfSigned(t testing.TB, certFile, keyFile string) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := clock.Real{}.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// syncWriter is the server's output, shown when it fails to start.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
