package blobs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/blobs/blobstest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// TestS3 holds the S3 backend to the suite, against a real SeaweedFS on
// loopback.
func TestS3(t *testing.T) {
	w := blobstest.StartWeed(t)
	newS3 := func(t *testing.T, bucket, prefix string, rt http.RoundTripper) *blobs.S3 {
		b, err := blobs.NewS3(blobs.S3Config{
			Endpoint: w.Endpoint, Bucket: bucket, Prefix: prefix, Region: "us-east-1",
			AccessKey: w.AccessKey, SecretKey: w.SecretKey, Transport: rt,
		})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	t.Run("Suite", func(t *testing.T) {
		blobstest.Run(t, blobstest.Options{
			New: func(t *testing.T) blobs.Backend { return newS3(t, w.NewBucket(t), "blobs/", nil) },
			Corrupt: func(t *testing.T, b blobs.Backend, sum store.Sum) {
				s3 := b.(*blobs.S3)
				bucket, key := s3.Bucket(), s3.Key(sum)
				other := []byte("not what was saved")
				if _, err := w.Client().PutObject(context.Background(), bucket, key, bytes.NewReader(other), int64(len(other)), minio.PutObjectOptions{}); err != nil {
					t.Fatal(err)
				}
			},
		})
	})

	t.Run("SuiteWithoutPrefix", func(t *testing.T) {
		blobstest.Run(t, blobstest.Options{
			New:   func(t *testing.T) blobs.Backend { return newS3(t, w.NewBucket(t), "", nil) },
			Large: 100_000,
		})
	})

	t.Run("SavingWhatIsHeldSendsNoPUT", func(t *testing.T) {
		count := &countingTransport{rt: http.DefaultTransport}
		b := newS3(t, w.NewBucket(t), "blobs/", count)
		data := []byte("Basic rate 20%\n")
		sum := blobstest.SumOf(data)
		if err := b.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		if got := count.n(http.MethodPut); got != 1 {
			t.Fatalf("the first Save sent %d PUTs, want 1", got)
		}
		if err := b.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		if got := count.n(http.MethodPut); got != 1 {
			t.Errorf("a second Save of a held blob sent %d PUTs in all, want the first one only", got)
		}
		digest := sha256.Sum256(data)
		if got := count.header("x-amz-checksum-sha256"); len(got) != 1 || got[0] != base64.StdEncoding.EncodeToString(digest[:]) {
			t.Errorf("the PUT's x-amz-checksum-sha256: %q, want the blob's SHA-256 in base64", got)
		}
	})

	// Over https a PUT's body is not signed (UNSIGNED-PAYLOAD): the SHA-256
	// the PUT carries is what lets the server refuse bytes that changed on
	// the way.
	t.Run("BytesChangedOnTheWayAreRefused", func(t *testing.T) {
		bucket := w.NewBucket(t)
		flip := &flippingTransport{rt: &http.Transport{TLSClientConfig: w.TLSConfig}}
		b, err := blobs.NewS3(blobs.S3Config{Endpoint: w.EndpointTLS, Bucket: bucket, Prefix: "blobs/", Region: "us-east-1",
			AccessKey: w.AccessKey, SecretKey: w.SecretKey, Transport: flip})
		if err != nil {
			t.Fatal(err)
		}
		data := bytes.Repeat([]byte("Corporation tax main rate 25%\n"), 100)
		sum := blobstest.SumOf(data)
		if err := b.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))); err == nil {
			t.Errorf("Save whose bytes were changed on the way succeeded")
		}
		if flip.flipped() == 0 {
			t.Fatalf("no PUT body was changed: the test tests nothing")
		}
		if _, err := w.Client().StatObject(context.Background(), bucket, b.Key(sum), minio.StatObjectOptions{}); minio.ToErrorResponse(err).StatusCode != http.StatusNotFound {
			t.Errorf("the changed bytes are visible: stat %v", err)
		}
		// The same over https, unchanged, is saved.
		whole, err := blobs.NewS3(blobs.S3Config{Endpoint: w.EndpointTLS, Bucket: bucket, Prefix: "blobs/", Region: "us-east-1",
			AccessKey: w.AccessKey, SecretKey: w.SecretKey, Transport: &http.Transport{TLSClientConfig: w.TLSConfig}})
		if err != nil {
			t.Fatal(err)
		}
		if err := whole.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatalf("Save over https: %v", err)
		}
		rc, err := whole.Load(context.Background(), sum)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("Load over https: %d bytes, %v", len(got), err)
		}
	})

	t.Run("ObjectNames", func(t *testing.T) {
		bucket := w.NewBucket(t)
		b := newS3(t, bucket, "archive/blobs/", nil)
		if got, want := b.Name(), "s3:"+bucket+"/archive/blobs/"; got != want {
			t.Errorf("Name = %q, want %q", got, want)
		}
		data := []byte("Higher rate 40%\n")
		sum := blobstest.SumOf(data)
		if err := b.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		want := "archive/blobs/sha256/" + string(sum[:2]) + "/" + string(sum)
		if _, err := w.Client().StatObject(context.Background(), bucket, want, minio.StatObjectOptions{}); err != nil {
			t.Errorf("object %s: %v", want, err)
		}
		// Objects that are not blobs, under the prefix or beside it, are
		// not listed.
		for _, key := range []string{
			"archive/blobs/sha256/" + string(sum[:2]) + "/" + string(sum) + ".tmp",
			"archive/blobs/sha256/00/" + string(sum),
			"archive/blobs/sha256/" + string(sum),
			"archive/blobs/README",
			"sha256/" + string(sum[:2]) + "/" + strings.Repeat("a", 64),
		} {
			if _, err := w.Client().PutObject(context.Background(), bucket, key, bytes.NewReader(nil), 0, minio.PutObjectOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		var listed []store.Sum
		if err := b.List(context.Background(), func(s store.Sum, _ int64) error { listed = append(listed, s); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 1 || listed[0] != sum {
			t.Errorf("List = %v, want only %s", listed, sum.Short())
		}
	})

	t.Run("KeysFromTheEnvironment", func(t *testing.T) {
		st := policy.Store{Kind: policy.StoreS3, Endpoint: w.Endpoint, Bucket: w.NewBucket(t), Prefix: "blobs/", Region: "us-east-1",
			AccessKeyEnv: "TAXKERNELBOT_TEST_S3_ACCESS_KEY", SecretKeyEnv: "TAXKERNELBOT_TEST_S3_SECRET_KEY"}
		t.Setenv(st.AccessKeyEnv, w.AccessKey)
		t.Setenv(st.SecretKeyEnv, w.SecretKey)
		b, err := blobs.Open(st, os.LookupEnv)
		if err != nil {
			t.Fatal(err)
		}
		data := []byte("Additional rate 45%\n")
		if err := b.Save(context.Background(), blobstest.SumOf(data), bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatalf("Save with the keys the environment holds: %v", err)
		}
		if got := b.Name(); got != "s3:"+st.Bucket+"/blobs/" {
			t.Errorf("Name = %q", got)
		}
	})

	t.Run("WrongKeyIsExplained", func(t *testing.T) {
		bucket := w.NewBucket(t)
		b, err := blobs.NewS3(blobs.S3Config{Endpoint: w.Endpoint, Bucket: bucket, Region: "us-east-1", AccessKey: w.AccessKey, SecretKey: "wrong"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Stat(context.Background(), blobstest.SumOf([]byte("x")))
		if err == nil || blobs.IsNotFound(err) || !strings.Contains(err.Error(), "secret key") {
			t.Errorf("Stat with a wrong secret key: %v; want an error saying to check the keys", err)
		}
	})
}

// TestOpenNeedsTheEnvironment: a store's keys come from the variables it
// names, and a missing one is named in the error.
func TestOpenNeedsTheEnvironment(t *testing.T) {
	st := policy.Store{Kind: policy.StoreS3, Endpoint: "https://acct.r2.cloudflarestorage.com", Bucket: "taxkernel-archive", Prefix: "blobs/", Region: "auto",
		AccessKeyEnv: "AK", SecretKeyEnv: "SK"}
	env := map[string]string{"AK": "key-id"}
	getenv := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	if _, err := blobs.Open(st, getenv); err == nil || !strings.Contains(err.Error(), "environment variable SK") {
		t.Errorf("Open without the secret key's variable: %v; want an error naming SK", err)
	}
	env["SK"] = ""
	if _, err := blobs.Open(st, getenv); err == nil || !strings.Contains(err.Error(), "environment variable SK") {
		t.Errorf("Open with the secret key's variable empty: %v; want an error naming SK", err)
	}
	env["SK"] = "secret"
	b, err := blobs.Open(st, getenv)
	if err != nil {
		t.Fatalf("Open with both variables set: %v", err)
	}
	if got := b.Name(); got != "s3:taxkernel-archive/blobs/" {
		t.Errorf("Name = %q", got)
	}
	st.Kind = "gcs"
	if _, err := blobs.Open(st, getenv); err == nil {
		t.Errorf("Open of kind gcs succeeded")
	}
}

func TestNewS3RefusesBadConfig(t *testing.T) {
	good := blobs.S3Config{Endpoint: "https://acct.r2.cloudflarestorage.com", Bucket: "taxkernel-archive", Prefix: "blobs/", Region: "auto", AccessKey: "k", SecretKey: "s"}
	if _, err := blobs.NewS3(good); err != nil {
		t.Fatalf("NewS3(%+v): %v", good, err)
	}
	for name, edit := range map[string]func(*blobs.S3Config){
		"endpoint without scheme": func(c *blobs.S3Config) { c.Endpoint = "acct.r2.cloudflarestorage.com" },
		"endpoint with a path":    func(c *blobs.S3Config) { c.Endpoint = "https://acct.r2.cloudflarestorage.com/bucket" },
		"no bucket":               func(c *blobs.S3Config) { c.Bucket = "" },
		"prefix without slash":    func(c *blobs.S3Config) { c.Prefix = "blobs" },
		"prefix from the root":    func(c *blobs.S3Config) { c.Prefix = "/blobs/" },
		"no access key":           func(c *blobs.S3Config) { c.AccessKey = "" },
		"no secret key":           func(c *blobs.S3Config) { c.SecretKey = "" },
	} {
		c := good
		edit(&c)
		if _, err := blobs.NewS3(c); err == nil {
			t.Errorf("%s: NewS3(%+v) succeeded", name, c)
		}
	}
}

// flippingTransport changes one byte of each PUT's body, as a faulty
// link or proxy would.
type flippingTransport struct {
	rt http.RoundTripper
	mu sync.Mutex
	n  int
}

func (f *flippingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPut || r.Body == nil || r.ContentLength <= 0 {
		return f.rt.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	body[len(body)/2] ^= 0x20
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	return f.rt.RoundTrip(r)
}

func (f *flippingTransport) flipped() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// countingTransport counts the requests a client sends, by method, and
// keeps the headers of its PUTs.
type countingTransport struct {
	rt      http.RoundTripper
	mu      sync.Mutex
	methods map[string]int
	puts    []http.Header
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.methods == nil {
		c.methods = map[string]int{}
	}
	c.methods[r.Method]++
	if r.Method == http.MethodPut {
		c.puts = append(c.puts, r.Header.Clone())
	}
	c.mu.Unlock()
	return c.rt.RoundTrip(r)
}

func (c *countingTransport) n(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.methods[method]
}

func (c *countingTransport) header(name string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, h := range c.puts {
		out = append(out, h.Values(name)...)
	}
	return out
}
