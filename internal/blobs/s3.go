package blobs

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/taxkernel/taxkernelbot/internal/store"
)

// S3Config says which bucket an S3 backend holds its blobs in and how to
// reach it. The keys are the secrets' values, never read from a file.
type S3Config struct {
	// Endpoint is the server's URL: https://<account>.r2.cloudflarestorage.com,
	// https://s3.<region>.backblazeb2.com, https://s3.<region>.amazonaws.com;
	// http:// only for a server on this machine (the tests').
	Endpoint string
	Bucket   string
	// Prefix is put before every object's name ("blobs/"): empty, or
	// ending in "/".
	Prefix string
	// Region signs the requests: "auto" for R2, the bucket's region for B2
	// and AWS; empty asks the server.
	Region               string
	AccessKey, SecretKey string
	// Transport carries the requests; nil is Go's default. Tests wrap it to
	// count what is sent.
	Transport http.RoundTripper
}

// S3 is a bucket on an S3-compatible server (Cloudflare R2, Backblaze B2,
// AWS S3, SeaweedFS), its blobs named <prefix>sha256/<two hex>/<64 hex>
// as in a local store.
type S3 struct {
	c      *minio.Client
	bucket string
	prefix string
}

// NewS3 is the bucket cfg names. It sends nothing: a wrong endpoint or
// key shows at the first request.
func NewS3(cfg S3Config) (*S3, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("blobs: s3 endpoint %q is not a server's URL; write e.g. https://<account>.r2.cloudflarestorage.com", cfg.Endpoint)
	}
	if cfg.Bucket == "" {
		return nil, errors.New("blobs: s3 store without a bucket")
	}
	if cfg.Prefix != "" && (!strings.HasSuffix(cfg.Prefix, "/") || strings.HasPrefix(cfg.Prefix, "/")) {
		return nil, fmt.Errorf("blobs: s3 prefix %q must not start with / and must end with one, e.g. blobs/", cfg.Prefix)
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, fmt.Errorf("blobs: s3 store %s/%s has no access key or no secret key", cfg.Bucket, cfg.Prefix)
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds:     credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:    u.Scheme == "https",
		Region:    cfg.Region,
		Transport: cfg.Transport,
		// Lets a PUT carry an x-amz-checksum-* header (minio-go refuses one
		// otherwise); the checksum goes as a header, not in a trailer.
		TrailingHeaders: true,
	})
	if err != nil {
		return nil, fmt.Errorf("blobs: s3 endpoint %s: %w", cfg.Endpoint, err)
	}
	return &S3{c: c, bucket: cfg.Bucket, prefix: cfg.Prefix}, nil
}

// Name is "s3:" and the bucket and prefix.
func (s *S3) Name() string { return "s3:" + s.bucket + "/" + s.prefix }

// Bucket is the bucket's name.
func (s *S3) Bucket() string { return s.bucket }

// Key is the name of the blob's object in the bucket.
func (s *S3) Key(sum store.Sum) string { return s.prefix + sum.Path() }

// Save checks the bytes, asks whether the blob is already held (then sends
// nothing more), and puts them in one PUT: S3 makes an object visible only
// once the whole of it is received, so a failed transfer leaves nothing.
// One PUT, not a multipart upload, because a blob is at most the policy's
// max_body (under 100 MB, far below the 5 GiB a single PUT takes) and a
// multipart upload abandoned by a killed run would hold parts until a
// lifecycle rule removes them. The PUT carries the SHA-256 as
// x-amz-checksum-sha256, so the server too refuses bytes that changed on
// the way; a retry rereads them from the start.
func (s *S3) Save(ctx context.Context, sum store.Sum, r io.ReaderAt, size int64) error {
	if !sum.Valid() {
		return fmt.Errorf("%w: %q is not a hex sha256", ErrNotFound, sum)
	}
	if err := Check(sum, r, size); err != nil {
		return err
	}
	switch _, err := s.Stat(ctx, sum); {
	case err == nil:
		return nil
	case !IsNotFound(err):
		return err
	}
	raw, _ := hex.DecodeString(string(sum))
	_, err := s.c.PutObject(ctx, s.bucket, s.Key(sum), io.NewSectionReader(r, 0, size), size, minio.PutObjectOptions{
		ContentType:      "application/octet-stream",
		DisableMultipart: true,
		UserMetadata:     map[string]string{"x-amz-checksum-sha256": base64.StdEncoding.EncodeToString(raw)},
	})
	if err != nil {
		return fmt.Errorf("blobs: %s: save %s: %w", s.Name(), sum.Short(), s.explain(err))
	}
	return nil
}

// Load streams the object; reading it to its end re-hashes it.
func (s *S3) Load(ctx context.Context, sum store.Sum) (io.ReadCloser, error) {
	size, err := s.Stat(ctx, sum)
	if err != nil {
		return nil, err
	}
	obj, err := s.c.GetObject(ctx, s.bucket, s.Key(sum), minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("blobs: %s: load %s: %w", s.Name(), sum.Short(), s.explain(err))
	}
	return Verified(obj, sum, size, s.Name()), nil
}

// Stat is the object's size.
func (s *S3) Stat(ctx context.Context, sum store.Sum) (int64, error) {
	if !sum.Valid() {
		return 0, fmt.Errorf("%w: %q is not a hex sha256", ErrNotFound, sum)
	}
	info, err := s.c.StatObject(ctx, s.bucket, s.Key(sum), minio.StatObjectOptions{})
	if err != nil {
		if notFound(err) {
			return 0, fmt.Errorf("%w: %s in %s", ErrNotFound, sum.Short(), s.Name())
		}
		return 0, fmt.Errorf("blobs: %s: stat %s: %w", s.Name(), sum.Short(), s.explain(err))
	}
	return info.Size, nil
}

// List lists the objects under <prefix>sha256/; names that are not a blob's
// (anything put there by hand, another tool's files) are not listed.
func (s *S3) List(ctx context.Context, fn func(sum store.Sum, size int64) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the listing's goroutine when fn ends it early
	under := s.prefix + "sha256/"
	for obj := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: under, Recursive: true}) {
		if obj.Err != nil {
			return fmt.Errorf("blobs: %s: list: %w", s.Name(), s.explain(obj.Err))
		}
		sum := store.Sum(obj.Key[strings.LastIndexByte(obj.Key, '/')+1:])
		if !sum.Valid() || obj.Key != s.Key(sum) {
			continue
		}
		if err := fn(sum, obj.Size); err != nil {
			return err
		}
	}
	return nil
}

func notFound(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.StatusCode == http.StatusNotFound || r.Code == "NoSuchKey"
}

// explain adds what to do to the errors a configuration causes.
func (s *S3) explain(err error) error {
	switch r := minio.ToErrorResponse(err); {
	case r.Code == "NoSuchBucket":
		return fmt.Errorf("%w (create the bucket %s, or correct bucket: in policy.yaml's stores)", err, s.bucket)
	case r.Code == "InvalidAccessKeyId" || r.Code == "SignatureDoesNotMatch" || r.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w (check the access key and secret key the store's *_env variables name, and that they may read and write %s)", err, s.bucket)
	}
	return err
}
