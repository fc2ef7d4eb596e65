package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/blobs"
	"github.com/taxkernel/taxkernelbot/internal/blobs/blobstest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// verify --stores names each cited hash held by fewer stores than asked,
// and re-hashes what each store serves: against the local store and a
// real S3-compatible server (SeaweedFS) on loopback, configured in
// policy.yaml with its keys in the environment.
func TestVerifyStores(t *testing.T) {
	w := blobstest.StartWeed(t)
	bucket := w.NewBucket(t)
	ws := newWorkspace(t, testPolicy+"stores:\n  - {kind: s3, endpoint: \""+w.Endpoint+"\", bucket: "+bucket+", prefix: blobs/, region: us-east-1, access_key_env: TEST_S3_KEY, secret_key_env: TEST_S3_SECRET}\n", "",
		src{"test-rates", "http://127.0.0.1:1/rates", ""}, src{"test-table", "http://127.0.0.1:1/table", ""})
	env := map[string]string{"TEST_S3_KEY": w.AccessKey, "TEST_S3_SECRET": w.SecretKey}

	local, err := store.Open(ws.Snapshots)
	must(t, err)
	ix := store.NewIndex()
	both, only := []byte("Personal Allowance £12,570"), []byte("PAYE table 2026")
	for id, data := range map[string][]byte{"test-rates": both, "test-table": only} {
		sum, _, err := local.Put(context.Background(), bytes.NewReader(data))
		must(t, err)
		ix.Add(id, store.Entry{SHA256: sum, Size: int64(len(data)), FinalURL: "http://127.0.0.1:1/" + id, FirstSeen: "2026-12-07"}, "")
	}
	must(t, ix.Save(ws.indexPath()))
	s3, err := blobs.NewS3(blobs.S3Config{Endpoint: w.Endpoint, Bucket: bucket, Prefix: "blobs/", Region: "us-east-1", AccessKey: w.AccessKey, SecretKey: w.SecretKey})
	must(t, err)
	must(t, s3.Save(context.Background(), blobstest.SumOf(both), bytes.NewReader(both), int64(len(both))))

	verify := func() (int, string) {
		t.Helper()
		code, out, stderr := runMain(t, env, "verify", "--stores", "--manifests", ws.Manifests, "--snapshots", ws.Snapshots)
		return code, out + stderr
	}
	code, out := verify()
	if code != ExitFailures || !strings.Contains(out, string(blobstest.SumOf(only))+": held by 1 of the 2 store(s) it should be (local:") || !strings.Contains(out, "cited by test-table") || strings.Contains(out, string(blobstest.SumOf(both))) {
		t.Errorf("a hash held once: exit %d, want %d naming it alone\n%s", code, ExitFailures, out)
	}

	// A second copy made from the first: every hash is held twice.
	if _, err := (blobs.Stores{blobs.NewLocal(local)}).CopyTo(context.Background(), blobstest.SumOf(only), s3, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if code, out := verify(); code != ExitOK || !strings.Contains(out, "every cited hash is held by 2 or more of local:") || !strings.Contains(out, "s3:"+bucket+"/blobs/") {
		t.Errorf("every hash held twice: exit %d\n%s", code, out)
	}

	code, js, _ := runMain(t, env, "verify", "--stores", "--json", "--manifests", ws.Manifests, "--snapshots", ws.Snapshots)
	if code != ExitOK || !strings.Contains(js, `"ok": true`) || !strings.Contains(js, `"sampled": 2`) || !strings.Contains(js, `"s3:`+bucket+`/blobs/"`) {
		t.Errorf("--json: exit %d\n%s", code, js)
	}

	// A local copy gone bad is found by re-hashing it.
	p := local.Path(blobstest.SumOf(both))
	must(t, os.Chmod(p, 0o644))
	must(t, os.WriteFile(p, []byte("Personal Allowance £99,999"), 0o644))
	if code, out := verify(); code != ExitFailures || !strings.Contains(out, string(blobstest.SumOf(both))+": local:") || !strings.Contains(out, "does not match its hash") {
		t.Errorf("a corrupt local copy: exit %d\n%s", code, out)
	}

	// Without its keys in the environment the bucket cannot be asked, and
	// verify says so rather than counting it as holding nothing.
	code, stdout, stderr := runMain(t, nil, "verify", "--stores", "--manifests", ws.Manifests, "--snapshots", ws.Snapshots)
	if code != ExitCannot || !strings.Contains(stdout+stderr, "TEST_S3_KEY") {
		t.Errorf("keys missing: exit %d\n%s%s", code, stdout, stderr)
	}
}

// blob brings any hash from whichever store holds it, verified: from the
// bucket when snapshots/ lacks it, into snapshots/ and the file asked
// for; a hash no store holds is nothing to answer from.
func TestBlobFromWhicheverStoreHoldsIt(t *testing.T) {
	w := blobstest.StartWeed(t)
	bucket := w.NewBucket(t)
	ws := newWorkspace(t, testPolicy+"stores:\n  - {kind: s3, endpoint: \""+w.Endpoint+"\", bucket: "+bucket+", region: us-east-1, access_key_env: TEST_S3_KEY, secret_key_env: TEST_S3_SECRET}\n", "",
		src{"test-rates", "http://127.0.0.1:1/rates", ""})
	env := map[string]string{"TEST_S3_KEY": w.AccessKey, "TEST_S3_SECRET": w.SecretKey}
	s3, err := blobs.NewS3(blobs.S3Config{Endpoint: w.Endpoint, Bucket: bucket, Region: "us-east-1", AccessKey: w.AccessKey, SecretKey: w.SecretKey})
	must(t, err)
	data := []byte("%PDF-1.7 Publication 15-T (2026)")
	sum := blobstest.SumOf(data)
	must(t, s3.Save(context.Background(), sum, bytes.NewReader(data), int64(len(data))))

	out := filepath.Join(t.TempDir(), "p15t.pdf")
	code, stdout, stderr := runMain(t, env, "blob", string(sum), "-o", out, "--manifests", ws.Manifests, "--snapshots", ws.Snapshots)
	if code != ExitOK || !strings.Contains(stderr, "from s3:"+bucket+"/") {
		t.Fatalf("blob: exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := os.ReadFile(out)
	must(t, err)
	if !bytes.Equal(got, data) {
		t.Errorf("blob wrote %q, want %q", got, data)
	}
	if !store.ReadOnly(ws.Snapshots).Has(sum) {
		t.Error("the bytes fetched are not kept in snapshots/")
	}
	// Now held locally: served from there, to stdout.
	if code, stdout, _ := runMain(t, nil, "blob", string(sum), "--manifests", ws.Manifests, "--snapshots", ws.Snapshots); code != ExitOK || stdout != string(data) {
		t.Errorf("blob to stdout: exit %d, %q", code, stdout)
	}
	code, _, stderr = runMain(t, env, "blob", string(blobstest.SumOf([]byte("never held"))), "--manifests", ws.Manifests, "--snapshots", ws.Snapshots)
	if code != ExitCannot || !strings.Contains(stderr, "held by none of local:") {
		t.Errorf("a hash none holds: exit %d\n%s", code, stderr)
	}
	if code, _, _ := runMain(t, env, "blob", "not-a-hash", "--manifests", ws.Manifests, "--snapshots", ws.Snapshots); code != ExitUsage {
		t.Errorf("blob not-a-hash: exit %d, want %d", code, ExitUsage)
	}
}
