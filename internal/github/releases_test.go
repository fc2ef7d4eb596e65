package github

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

func releasesClient(t *testing.T) (*Client, *githubtest.Fake, *clock.Fake) {
	t.Helper()
	f := githubtest.New(t, "taxkernel", "archive", "tok")
	clk := clock.NewFake(time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC))
	c, err := NewClient(Config{Owner: f.Owner, Repo: f.Repo, APIURL: f.URL, Token: f.Token}, nil, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	return c, f, clk
}

func TestReleasesCreateFindsTheOneAnotherRunMade(t *testing.T) {
	c, f, _ := releasesClient(t)
	ctx := context.Background()
	if _, ok, err := c.ReleaseByTag(ctx, "blobs-2026-12"); ok || err != nil {
		t.Fatalf("ReleaseByTag before any: %v, %v; want none, no error", ok, err)
	}
	first, err := c.CreatePrerelease(ctx, "blobs-2026-12", "bytes")
	if err != nil {
		t.Fatal(err)
	}
	if !first.Prerelease || first.Draft || !strings.HasPrefix(first.UploadURL, f.UploadsURL()) || strings.Contains(first.UploadURL, "{") {
		t.Errorf("created %+v: want a published prerelease whose upload URL is the uploads host's, without its template", first)
	}
	again, err := c.CreatePrerelease(ctx, "blobs-2026-12", "bytes")
	if err != nil || again.ID != first.ID {
		t.Errorf("creating it again: %+v, %v; want release %d", again, err, first.ID)
	}
	if rel := f.Releases(); len(rel) != 1 || rel[0].MakeLatest != "false" {
		t.Errorf("releases %+v: want one, never made latest", rel)
	}
}

func TestReleasesUploadIsRetriedWithItsBytes(t *testing.T) {
	c, f, clk := releasesClient(t)
	ctx := context.Background()
	rel, err := c.CreatePrerelease(ctx, "blobs-2026-12", "bytes")
	if err != nil {
		t.Fatal(err)
	}
	path := "/repos/taxkernel/archive/releases/1/assets"
	f.FailNext("POST", path, http.StatusServiceUnavailable, nil, "Service Unavailable")
	f.FailNext("POST", path, http.StatusForbidden, http.Header{"Retry-After": {"3"}}, "You have exceeded a secondary rate limit")
	data := bytes.Repeat([]byte("Corporation Tax\n"), 4096)
	a, err := c.UploadReleaseAsset(ctx, rel, "notice", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "notice" || a.Size != int64(len(data)) || !a.Uploaded() || !strings.HasPrefix(a.Digest, "sha256:") {
		t.Errorf("asset %+v", a)
	}
	got := f.Releases()[0].Assets
	if len(got) != 1 || !bytes.Equal(got[0].Data, data) {
		t.Errorf("the fake holds %d assets; want the one, with the bytes sent whole on the third try", len(got))
	}
	if sleeps := clk.Sleeps(); !slices.Contains(sleeps, 3*time.Second) {
		t.Errorf("slept %v: want the 3 s Retry-After of the secondary limit among them", sleeps)
	}
	if _, err := c.UploadReleaseAsset(ctx, rel, "notice", bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrAssetExists) {
		t.Errorf("uploading a name held: %v, want ErrAssetExists", err)
	}
}

func TestReleasesDownloadAndDelete(t *testing.T) {
	c, f, _ := releasesClient(t)
	ctx := context.Background()
	id := f.AddAsset("blobs-2026-12", "doc", "uploaded", []byte("Council Tax bands"))
	rc, found, err := c.DownloadReleaseAsset(ctx, id)
	if err != nil || !found {
		t.Fatalf("download: %v, %v", found, err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(data) != "Council Tax bands" {
		t.Errorf("downloaded %q, %v", data, err)
	}
	if authed := f.StorageRequestsWithToken(); len(authed) != 0 {
		t.Errorf("the token went to the storage host: %q", authed)
	}
	if err := c.DeleteReleaseAsset(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteReleaseAsset(ctx, id); err != nil {
		t.Errorf("deleting it again: %v, want nothing to do", err)
	}
	if _, found, err := c.DownloadReleaseAsset(ctx, id); found || err != nil {
		t.Errorf("download of a deleted asset: found %v, %v; want not found", found, err)
	}
}

func TestReleasesForbiddenSaysWhichPermission(t *testing.T) {
	c, f, _ := releasesClient(t)
	f.FailNext("POST", "/repos/taxkernel/archive/releases", http.StatusForbidden, nil, "Resource not accessible by integration")
	_, err := c.CreatePrerelease(context.Background(), "blobs-2026-12", "bytes")
	if err == nil || !strings.Contains(err.Error(), "contents: write") {
		t.Errorf("create with a read-only token: %v, want the permission named", err)
	}
}

func TestReleasesUploadToAnImmutableReleaseSaysSo(t *testing.T) {
	c, f, _ := releasesClient(t)
	ctx := context.Background()
	rel, err := c.CreatePrerelease(ctx, "blobs-2026-12", "bytes")
	if err != nil {
		t.Fatal(err)
	}
	f.FailNext("POST", "/repos/taxkernel/archive/releases/1/assets", http.StatusUnprocessableEntity, nil, "Cannot upload assets to an immutable release")
	_, err = c.UploadReleaseAsset(ctx, rel, "notice", strings.NewReader("x"), 1)
	if err == nil || errors.Is(err, ErrAssetExists) || !strings.Contains(err.Error(), "immutability") {
		t.Errorf("upload to an immutable release: %v; want the setting named, not a name taken", err)
	}
}
