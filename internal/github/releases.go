package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// Release is a release as the blob store uses it: where its assets are
// uploaded (UploadURL, the release's upload_url without its {?name,label}
// template; on github.com another host than the API's).
type Release struct {
	ID         int64
	Tag        string
	UploadURL  string
	Draft      bool
	Prerelease bool
}

// Asset is a release asset. State is "uploaded" for a whole one; anything
// else ("open" in GitHub's description, "starter" or "new" in what it
// answers after an upstream failure) is an upload that never finished.
type Asset struct {
	ID     int64
	Name   string
	Size   int64
	State  string
	Digest string // "sha256:<hex>" where GitHub computed it, else ""
	// DownloadURL is the asset's browser_download_url: anyone can
	// download a published release's asset from it, without a token.
	DownloadURL string
}

// Uploaded says whether the asset's bytes were all received.
func (a Asset) Uploaded() bool { return a.State == "uploaded" }

// MaxAssetSize is GitHub's bound on a release asset: each file must be
// under 2 GiB.
const MaxAssetSize = 2<<30 - 1

// Repository is "owner/name" of the client's repository.
func (c *Client) Repository() string { return c.owner + "/" + c.repo }

func release(r *gh.RepositoryRelease) Release {
	up, _, _ := strings.Cut(r.GetUploadURL(), "{") // the hypermedia template's query part
	return Release{ID: r.GetID(), Tag: r.GetTagName(), UploadURL: up, Draft: r.GetDraft(), Prerelease: r.GetPrerelease()}
}

// ReleaseByTag returns the published release of tag; ok is false when
// there is none (repos/get-release-by-tag).
func (c *Client) ReleaseByTag(ctx context.Context, tag string) (rel Release, ok bool, err error) {
	r, _, err := c.gh.Repositories.GetReleaseByTag(ctx, c.owner, c.repo, tag)
	switch {
	case hasStatus(err, http.StatusNotFound):
		return Release{}, false, nil
	case err != nil:
		return Release{}, false, fmt.Errorf("github: get release %s of %s/%s: %w", tag, c.owner, c.repo, c.explain(err, ""))
	}
	return release(r), true, nil
}

// CreatePrerelease creates a published prerelease of tag (the tag made
// from the default branch's head when it does not exist), never marked
// the latest release, so that it does not pass for a product release
// (repos/create-release). When another run created it first (422), that
// one is returned.
func (c *Client) CreatePrerelease(ctx context.Context, tag, body string) (Release, error) {
	r, _, err := c.gh.Repositories.CreateRelease(ctx, c.owner, c.repo, &gh.RepositoryRelease{
		TagName:    gh.String(tag),
		Name:       gh.String(tag),
		Body:       gh.String(body),
		Prerelease: gh.Bool(true),
		MakeLatest: gh.String("false"),
	})
	if err == nil {
		return release(r), nil
	}
	if hasStatus(err, http.StatusUnprocessableEntity) {
		if rel, ok, gerr := c.ReleaseByTag(ctx, tag); gerr == nil && ok {
			return rel, nil
		}
	}
	return Release{}, fmt.Errorf("github: create release %s in %s/%s: %w", tag, c.owner, c.repo,
		c.explain(err, "check that "+tag+" is a valid tag name and that the repository has a default branch with a commit"))
}

// ListReleases calls fn with every release, drafts included where the
// token may see them, page by page (repos/list-releases).
func (c *Client) ListReleases(ctx context.Context, fn func(Release) error) error {
	opts := &gh.ListOptions{PerPage: 100}
	for {
		list, resp, err := c.gh.Repositories.ListReleases(ctx, c.owner, c.repo, opts)
		if err != nil {
			return fmt.Errorf("github: list releases of %s/%s (page %d): %w", c.owner, c.repo, max(opts.Page, 1), c.explain(err, ""))
		}
		for _, r := range list {
			if err := fn(release(r)); err != nil {
				return err
			}
		}
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

func asset(a *gh.ReleaseAsset, digest string) Asset {
	return Asset{ID: a.GetID(), Name: a.GetName(), Size: int64(a.GetSize()), State: a.GetState(), Digest: digest, DownloadURL: a.GetBrowserDownloadURL()}
}

// releaseAsset is go-github's asset with the digest it does not decode.
type releaseAsset struct {
	gh.ReleaseAsset
	Digest *string `json:"digest,omitempty"`
}

// ListReleaseAssets calls fn with every asset of release id, page by page
// (repos/list-release-assets).
func (c *Client) ListReleaseAssets(ctx context.Context, id int64, fn func(Asset) error) error {
	u := fmt.Sprintf("repos/%v/%v/releases/%d/assets", c.owner, c.repo, id)
	for page := 1; page != 0; {
		req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("%s?per_page=100&page=%d", u, page), nil)
		if err != nil {
			return err
		}
		var list []*releaseAsset
		resp, err := c.gh.Do(ctx, req, &list)
		if err != nil {
			return fmt.Errorf("github: list assets of release %d in %s/%s (page %d): %w", id, c.owner, c.repo, page, c.explain(err, ""))
		}
		for _, a := range list {
			if err := fn(asset(&a.ReleaseAsset, derefString(a.Digest))); err != nil {
				return err
			}
		}
		page = resp.NextPage
	}
	return nil
}

// UploadReleaseAsset uploads size bytes of r as asset name of rel, to the
// release's upload_url (repos/upload-release-asset). A retried call reads
// r again from its start. 422 (an asset of that name is there, whole or
// left over by a failed upload) is returned as ErrAssetExists.
func (c *Client) UploadReleaseAsset(ctx context.Context, rel Release, name string, r io.ReaderAt, size int64) (Asset, error) {
	if size > MaxAssetSize {
		return Asset{}, fmt.Errorf("github: asset %s is %d bytes: GitHub takes release assets under 2 GiB", name, size)
	}
	if rel.UploadURL == "" {
		return Asset{}, fmt.Errorf("github: release %s has no upload_url", rel.Tag)
	}
	u := rel.UploadURL + "?name=" + url.QueryEscape(name)
	req, err := c.gh.NewUploadRequest(u, io.NewSectionReader(r, 0, size), size, "application/octet-stream")
	if err != nil {
		return Asset{}, err
	}
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(io.NewSectionReader(r, 0, size)), nil }
	if size == 0 {
		req.Body, req.GetBody = http.NoBody, func() (io.ReadCloser, error) { return http.NoBody, nil }
	}
	var a releaseAsset
	if _, err := c.gh.Do(ctx, req, &a); err != nil {
		if alreadyExists(err) {
			return Asset{}, fmt.Errorf("github: upload %s to release %s: %w", name, rel.Tag, ErrAssetExists)
		}
		return Asset{}, fmt.Errorf("github: upload %s (%d bytes) to release %s of %s/%s: %w", name, size, rel.Tag, c.owner, c.repo,
			c.explain(err, "a release that takes no more assets is immutable: turn off Settings → General → Releases → \"Enable release immutability\" in the repository holding the bytes"))
	}
	return asset(&a.ReleaseAsset, derefString(a.Digest)), nil
}

// alreadyExists says whether err is GitHub's 422 for a name taken.
func alreadyExists(err error) bool {
	var resp *gh.ErrorResponse
	if !hasStatus(err, http.StatusUnprocessableEntity) || !errors.As(err, &resp) {
		return false
	}
	for _, e := range resp.Errors {
		if e.Code == "already_exists" {
			return true
		}
	}
	return false
}

// ErrAssetExists: the release holds an asset of that name already.
var ErrAssetExists = errors.New("an asset of that name exists in the release")

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// DownloadReleaseAsset opens asset id's bytes (repos/get-release-asset
// with Accept: application/octet-stream). GitHub answers with the bytes or
// with a redirect to its storage, which is followed without the token:
// the address it gives is signed, and the token is the API's alone.
// found is false when there is no such asset.
func (c *Client) DownloadReleaseAsset(ctx context.Context, id int64) (rc io.ReadCloser, found bool, err error) {
	rc, _, err = c.gh.Repositories.DownloadReleaseAsset(ctx, c.owner, c.repo, id, c.storage)
	switch {
	case hasStatus(err, http.StatusNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("github: download asset %d of %s/%s: %w", id, c.owner, c.repo, c.explain(err, ""))
	}
	return rc, true, nil
}

// DeleteReleaseAsset deletes asset id (repos/delete-release-asset): what
// GitHub says to do with one an upstream failure left unfinished. An asset
// already gone is not an error.
func (c *Client) DeleteReleaseAsset(ctx context.Context, id int64) error {
	_, err := c.gh.Repositories.DeleteReleaseAsset(ctx, c.owner, c.repo, id)
	if err != nil && !hasStatus(err, http.StatusNotFound) {
		return fmt.Errorf("github: delete asset %d of %s/%s: %w", id, c.owner, c.repo, c.explain(err, ""))
	}
	return nil
}
